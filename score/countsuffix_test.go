package score

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/mln"
)

// randomLongClauses returns a model text of nc random clauses of three to
// six literals over five predicates (a predicate often repeated, both
// signs, shared variables, now and then a constant or a comparison), and
// two database texts over overlapping sets of constants, not all of them
// declared (each database has its own domains).
func randomLongClauses(r *rand.Rand, nc int) (model string, dbs []string) {
	type pred struct {
		name string
		args []string
	}
	preds := []pred{
		{"M", []string{"film", "person"}},
		{"W", []string{"person", "person"}},
		{"A", []string{"person"}},
		{"D", []string{"person"}},
		{"G", []string{"person", "gend"}},
	}
	prefix := map[string]string{"film": "F", "person": "P", "gend": "S"}
	var b strings.Builder
	b.WriteString("gend = {S0, S1}\n")
	for _, p := range preds {
		fmt.Fprintf(&b, "%s(%s)\n", p.name, strings.Join(p.args, ", "))
	}
	for range nc {
		vars := map[string][]string{}
		n := 3 + r.IntN(4)
		var lits []string
		for len(lits) < n {
			if r.IntN(10) == 0 {
				if vs := vars["person"]; len(vs) >= 2 {
					i, j := r.IntN(len(vs)), r.IntN(len(vs))
					if i != j {
						op := []string{"=", "!="}[r.IntN(2)]
						lits = append(lits, vs[i]+" "+op+" "+vs[j])
					}
				}
				continue
			}
			p := preds[r.IntN(len(preds))]
			if len(lits) < 2 && r.IntN(2) == 0 {
				p = preds[0] // M repeated often
			}
			var args []string
			for _, t := range p.args {
				vs := vars[t]
				switch {
				case r.IntN(25) == 0:
					args = append(args, prefix[t]+fmt.Sprint(r.IntN(3)))
				case len(vs) > 0 && r.IntN(10) < 6:
					args = append(args, vs[r.IntN(len(vs))])
				default:
					v := strings.ToLower(prefix[t]) + fmt.Sprint(len(vs))
					vars[t] = append(vs, v)
					args = append(args, v)
				}
			}
			neg := ""
			if r.IntN(2) == 0 {
				neg = "!"
			}
			lits = append(lits, neg+p.name+"("+strings.Join(args, ",")+")")
		}
		b.WriteString(strings.Join(lits, " v ") + "\n")
	}
	for k := range 2 {
		people := 3 + r.IntN(3)
		films := 1 + r.IntN(2)
		off := k * 2
		var d strings.Builder
		density := 0.1 + 0.5*r.Float64()
		for _, p := range preds {
			var rec func(args []string)
			rec = func(args []string) {
				if len(args) == len(p.args) {
					if r.Float64() < density {
						fmt.Fprintf(&d, "%s(%s)\n", p.name, strings.Join(args, ","))
					}
					return
				}
				n := map[string]int{"film": films, "person": people, "gend": 2}[p.args[len(args)]]
				for i := range n {
					c := prefix[p.args[len(args)]] + fmt.Sprint(i+off)
					if p.args[len(args)] == "gend" {
						c = fmt.Sprintf("S%d", i)
					}
					rec(append(args, c))
				}
			}
			rec(nil)
		}
		dbs = append(dbs, d.String())
	}
	return b.String(), dbs
}

// TestCountSuffixExact checks that counting a plan's independent suffix
// in closed form gives the counts, the groundings examined and the
// decisions of the bound on groundings of the enumeration, on random
// long clauses with repeated predicates in databases with their own
// domains, at bounds around each count's groundings.
func TestCountSuffixExact(t *testing.T) {
	defer func() { countSuffix = true }()
	r := rand.New(rand.NewPCG(5, 6))
	suffixPlans, danglingSteps, uniformSteps, clauses, limits := 0, 0, 0, 0, 0
	trials := 40
	if testenv.Short() {
		trials = 6
	}
	for trial := range trials {
		src, dbSrc := randomLongClauses(r, 12)
		m, err := mln.ParseModel("long.mln", src)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		var dbs []*mln.Database
		for i, s := range dbSrc {
			db, err := mln.ParseDatabase(m, fmt.Sprint(i, ".db"), s)
			if err != nil {
				t.Fatal(err)
			}
			dbs = append(dbs, db)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		for _, own := range []bool{false, true} {
			d, err := NewPLLData(m, dbs, nil, CountOptions{OwnDomains: own})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range m.Clauses {
				plans, err := compileClause(m, c)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range plans {
					p.prepare(d.sp)
					if p.indepFrom <= len(p.steps) {
						suffixPlans++
					}
					for _, st := range p.steps {
						if st.dangling {
							danglingSteps++
						}
						if st.uniform {
							uniformSteps++
						}
					}
				}
				clauses++
				for wi := range dbs {
					run := func(fast bool, limit int64) (column, int64, bool) {
						countSuffix = fast
						d.opt.MaxGroundings = limit
						col, seen, over, err := d.countWorld(c, plans, wi)
						if err != nil {
							t.Fatal(err)
						}
						return col, seen, over
					}
					colE, seenE, _ := run(false, 0)
					colF, seenF, _ := run(true, 0)
					if !slices.Equal(colE.idx, colF.idx) || !slices.Equal(colE.val, colF.val) || seenE != seenF {
						t.Fatalf("trial %d, own domains %v, database %d, clause %s: closed form %v %v (%d examined), enumeration %v %v (%d examined)",
							trial, own, wi, clauseString(m, c), colF.idx, colF.val, seenF, colE.idx, colE.val, seenE)
					}
					for _, limit := range []int64{1, seenE - 2, seenE - 1, seenE, seenE + 1, 1 + r.Int64N(seenE+1)} {
						if limit <= 0 {
							continue
						}
						limits++
						colE, _, overE := run(false, limit)
						colF, _, overF := run(true, limit)
						if overE != overF || !overE && (!slices.Equal(colE.idx, colF.idx) || !slices.Equal(colE.val, colF.val)) {
							t.Fatalf("trial %d, own domains %v, database %d, clause %s, bound %d (%d examined): closed form over %v, enumeration over %v",
								trial, own, wi, clauseString(m, c), limit, seenE, overF, overE)
						}
					}
				}
			}
		}
	}
	if suffixPlans < clauses || danglingSteps < clauses/4 || uniformSteps < clauses/4 {
		t.Fatalf("only %d plans with an independent suffix, %d dangling and %d uniform steps in %d clauses", suffixPlans, danglingSteps, uniformSteps, clauses)
	}
	t.Logf("%d clauses, %d plans with an independent suffix, %d dangling and %d uniform steps, %d bounds", clauses, suffixPlans, danglingSteps, uniformSteps, limits)
}
