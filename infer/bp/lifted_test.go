package bp

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/mln"
)

func TestLiftedEqualsGround(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		var net *ground.Network
		if trial%2 == 0 {
			net = randomTree(rng, 2+rng.IntN(11), trial%4 == 0)
		} else {
			net = randomLoopy(rng, 8, 10, 1)
		}
		var bias []float64
		if trial%3 == 0 {
			bias = make([]float64, net.NumAtoms())
			for a := range bias {
				bias[a] = float64(rng.IntN(3)) - 1 // few distinct values: symmetry to find
			}
		}
		opt := Options{Options: infer.Options{Bias: bias}}
		want, wst, err := Marginals(context.Background(), net, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := Lifted(context.Background(), net, opt)
		if err != nil {
			t.Fatal(err)
		}
		if st.Iterations != wst.Iterations || st.Converged != wst.Converged {
			t.Fatalf("trial %d: lifted %d iterations (converged %v), ground %d (%v)", trial, st.Iterations, st.Converged, wst.Iterations, wst.Converged)
		}
		for a := range want {
			if math.Abs(got[a]-want[a]) > 1e-9 {
				t.Fatalf("trial %d: atom %d: lifted %v, ground %v", trial, a, got[a], want[a])
			}
		}
	}
}

// friendsSmokers grounds friends and smokers over n people: Friends
// unknown, Smokes known true for every tenth person and false for every
// tenth person after that, the rest unknown; Cancer unknown.
func friendsSmokers(tb testing.TB, n int) *ground.Network {
	var model strings.Builder
	model.WriteString("person = {")
	for i := 0; i < n; i++ {
		if i > 0 {
			model.WriteString(", ")
		}
		fmt.Fprintf(&model, "P%d", i)
	}
	model.WriteString("}\n")
	model.WriteString("Friends(person, person)\nSmokes(person)\nCancer(person)\n")
	model.WriteString("1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n-1 Friends(x, y)\n")
	var ev strings.Builder
	for i := 0; i < n; i++ {
		switch i % 10 {
		case 0:
			fmt.Fprintf(&ev, "Smokes(P%d)\n", i)
		case 1:
			fmt.Fprintf(&ev, "!Smokes(P%d)\n", i)
		}
	}
	m, err := mln.ParseModel("fs.mln", model.String())
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "fs.db", ev.String())
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		tb.Fatal(err)
	}
	var q []mln.PredID
	for _, name := range []string{"Friends", "Smokes", "Cancer"} {
		p, _ := m.Pred(name)
		q = append(q, p.ID)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
	if err != nil {
		tb.Fatal(err)
	}
	return net
}

func TestLiftedFriendsSmokers(t *testing.T) {
	net := friendsSmokers(t, 40)
	want, _, err := Marginals(context.Background(), net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := Lifted(context.Background(), net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d atoms, %d clauses: %d atom clusters, %d clause clusters, %d rounds, %d iterations", net.NumAtoms(), net.NumClauses(), st.AtomClusters, st.FactorClusters, st.Rounds, st.Iterations)
	if st.AtomClusters > 20 {
		t.Errorf("%d atom clusters; want a handful", st.AtomClusters)
	}
	for a := range want {
		if math.Abs(got[a]-want[a]) > 1e-6 {
			t.Fatalf("atom %d: lifted %v, ground %v", a, got[a], want[a])
		}
	}
}

var people = flag.Int("people", 2000, "people in the friends-and-smokers benchmark")

// BenchmarkFriendsSmokers compares ground and lifted BP on friends and
// smokers over -people people (default 2,000: 4 million Friends atoms, 8
// million ground clauses), the ground network built once:
//
//	go test ./infer/bp -run '^$' -bench FriendsSmokers -benchtime 1x
func BenchmarkFriendsSmokers(b *testing.B) {
	net := friendsSmokers(b, *people)
	b.Logf("%d atoms, %d clauses", net.NumAtoms(), net.NumClauses())
	var ground []float64
	b.Run("ground", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p, st, err := Marginals(context.Background(), net, Options{})
			if err != nil {
				b.Fatal(err)
			}
			ground = p
			b.ReportMetric(float64(st.Iterations), "iterations")
		}
	})
	b.Run("lifted", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p, st, err := Lifted(context.Background(), net, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.Iterations), "iterations")
			b.ReportMetric(float64(st.AtomClusters), "atom-clusters")
			if ground != nil {
				d := 0.0
				for a := range p {
					d = math.Max(d, math.Abs(p[a]-ground[a]))
				}
				b.ReportMetric(d, "max-diff")
			}
		}
	})
}
