package lifted

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/mln"
)

// smokers returns friends and smokers over n people (the weights of
// examples/smokers/smoking-weighted.mln).
func smokersModel(t testing.TB, n int, evidence string) (*mln.Model, *mln.Database) {
	var b strings.Builder
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nFriends(person, person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n")
	m, err := mln.ParseModel("smokers.mln", b.String())
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "smokers.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return m, db
}

func TestSmokersSpeed(t *testing.T) {
	for _, n := range []int{100, 1000, 10000} {
		m, db := smokersModel(t, n, "")
		q, _ := m.PredIDs("Smokes,Cancer")
		ow, _ := m.PredIDs("Friends")
		start := time.Now()
		r, err := Exact(context.Background(), m, db, Options{Query: q, OpenWorld: ow, NoFallback: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("n=%d logZ=%.6f %v classes=%d work=%d %v", n, r.LogZ, r.Classes, len(r.Classes), r.Work, time.Since(start))
	}
}

func TestSmokersEvidenceSpeed(t *testing.T) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		var ev strings.Builder
		for i := 0; i < n; i += 10 {
			s, c := "", ""
			if i%20 == 0 {
				s = "!"
			}
			if i%30 == 0 {
				c = "!"
			}
			fmt.Fprintf(&ev, "%sSmokes(P%d)\n%sCancer(P%d)\n", s, i, c, i)
		}
		m, db := smokersModel(t, n, ev.String())
		q, _ := m.PredIDs("Smokes,Cancer")
		ow, _ := m.PredIDs("Friends")
		start := time.Now()
		r, err := Exact(context.Background(), m, db, Options{Query: q, OpenWorld: ow, NoFallback: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("n=%d logZ=%.6f %v classes=%d work=%d %v", n, r.LogZ, r.Classes, len(r.Classes), r.Work, time.Since(start))
	}
}

func TestSmokersSampleManual(t *testing.T) {
	for _, n := range []int{10, 100, 1000} {
		m, db := smokersModel(t, n, "Smokes(P0)\n!Cancer(P1)\n")
		q, _ := m.PredIDs("Smokes,Cancer")
		ow, _ := m.PredIDs("Friends")
		opt := Options{Query: q, OpenWorld: ow, NoFallback: true}
		ex, err := Exact(context.Background(), m, db, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, prop := range []Proposal{Binomial, Uniform, Informed} {
			start := time.Now()
			s, err := Sample(context.Background(), m, db, opt, Sampling{Proposal: prop, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("n=%d %v exact %.4f lis %.4f ± %.4f  %v", n, prop, ex.LogZ, s.LogZ, s.LogZErr, time.Since(start))
			for i, c := range ex.Classes {
				t.Logf("   %v exact %.6f lis %.6f ± %.6f", c.Args, c.Prob, s.Classes[i].Prob, s.Classes[i].Err)
			}
		}
	}
}
