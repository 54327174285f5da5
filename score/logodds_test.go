package score

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// TestLogOddsBrute checks LogOdds on random MLNs against the log-odds of
// each atom computed by recounting every clause's true groundings with the
// atom true and false.
func TestLogOddsBrute(t *testing.T) {
	checked := 0
	for seed := int64(0); seed < 40; seed++ {
		c := randmln.Generate(seed)
		m, _, _, _, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		db, w := randomWorld(m, r, 0.2+0.6*r.Float64())
		d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var cls []*mln.Clause
		var wts []float64
		for _, cl := range m.Clauses {
			if len(cl.Plus) > 0 || cl.Hard {
				continue
			}
			if _, err := d.Counts(cl); err != nil {
				if strings.Contains(err.Error(), "not supported") {
					continue
				}
				t.Fatal(err)
			}
			cls = append(cls, cl)
			wts = append(wts, 4*r.Float64()-2)
		}
		for p := range m.Preds {
			var args [][]mln.ConstID
			allAtoms(m, func(q mln.PredID, a []mln.ConstID) {
				if int(q) == p {
					args = append(args, append([]mln.ConstID(nil), a...))
				}
			})
			got, err := d.LogOdds(context.Background(), cls, wts, 0, mln.PredID(p), args)
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range args {
				k := atomKey(mln.PredID(p), a)
				old := w[k]
				var want float64
				for j, cl := range cls {
					w[k] = true
					nt := bruteTrueGroundings(m, cl, w)
					w[k] = false
					nf := bruteTrueGroundings(m, cl, w)
					want += wts[j] * float64(nt-nf)
				}
				w[k] = old
				if math.Abs(got[i]-want) > 1e-9 {
					t.Fatalf("seed %d: atom %s%v: log-odds %g, brute force %g", seed, m.Preds[p].Name, a, got[i], want)
				}
				checked++
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d atoms checked", checked)
	}
}

// TestListedOnly checks that with ListedOnly the pseudo-log-likelihood
// sums exactly the listed atoms' conditionals, each weighted by 1/(listed
// atoms of its predicate), the unlisted atoms false in the blankets.
func TestListedOnly(t *testing.T) {
	checked := 0
	for seed := int64(0); seed < 60 && checked < 5; seed++ {
		if checkListedOnly(t, seed) {
			checked++
		}
	}
	if checked < 5 {
		t.Fatalf("only %d random MLNs checked", checked)
	}
}

func checkListedOnly(t *testing.T, seed int64) bool {
	c := randmln.Generate(seed)
	m, _, _, _, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 4))
	db := mln.NewDatabase(m)
	listed := map[mln.PredID][][]mln.ConstID{}
	truth := map[string]bool{}
	allAtoms(m, func(p mln.PredID, a []mln.ConstID) {
		if r.Float64() < 0.3 {
			return // unlisted (false in the blankets)
		}
		v, tv := r.IntN(2) == 0, mln.False
		if v {
			tv = mln.True
		}
		db.Set(p, a, tv)
		listed[p] = append(listed[p], append([]mln.ConstID(nil), a...))
		truth[atomKey(p, a)] = v
	})
	d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{ListedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var cls []*mln.Clause
	var cw []float64
	w := make([]float64, len(m.Weights))
	for i := range w {
		w[i] = 2*r.Float64() - 1
	}
	for _, cl := range m.Clauses {
		if cl.Hard || len(cl.Plus) > 0 {
			return false
		}
		if _, err := d.Counts(cl); err != nil {
			return false
		}
		cls = append(cls, cl)
		cw = append(cw, w[m.Formulas[cl.Formula].Params[""]]*cl.Coef)
	}
	ps, err := d.ModelRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for p, args := range listed {
		lo, err := d.LogOdds(context.Background(), cls, cw, 0, p, args)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			x := lo[i]
			if !truth[atomKey(p, a)] {
				x = -x
			}
			want += -math.Log1p(math.Exp(-x)) / float64(len(args))
		}
	}
	if got := ps[0].Eval(w, nil); math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
		t.Fatalf("seed %d: WPLL over the listed atoms %g, want %g", seed, got, want)
	}
	return true
}
