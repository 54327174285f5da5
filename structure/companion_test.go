package structure

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

func TestJoinCompanions(t *testing.T) {
	m, err := mln.ParseModel("j.mln", `Movie(film, person)
Dir(person)
Act(person)
Under(person, person)
1 !Movie(f,a) v !Movie(f,d) v !Dir(d) v !Act(a) v Under(a,d)
1 !Movie(f,a) v !Movie(f,d) v Under(a,d)
1 !Movie(f,a) v !Dir(a) v Under(a,a)
`)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Movie(f,d) v !Dir(d)", "Movie(f,a) v !Act(a)"},
		nil, // no guard
		nil, // not a join
	}
	for i, c := range m.Clauses {
		var got []string
		for _, d := range JoinCompanions(c) {
			got = append(got, CanonicalKey(d))
		}
		var keys []string
		for _, s := range want[i] {
			keys = append(keys, CanonicalKey(parseClause(t, m, s)))
		}
		slices.Sort(got)
		slices.Sort(keys)
		if !slices.Equal(got, keys) {
			t.Errorf("%s: companions %v, want %v", m.ClauseString(c), got, want[i])
		}
	}
}

// bruteWorld enumerates the blocks of a small model and database: a world
// is the database's truth values (closed world) over every ground atom of
// the model's declared constants.
type bruteWorld struct {
	m     *mln.Model
	db    *mln.Database
	doms  [][]mln.ConstID
	atoms [][][]mln.ConstID // per predicate, its ground atoms
}

func newBruteWorld(m *mln.Model, db *mln.Database) *bruteWorld {
	b := &bruteWorld{m: m, db: db, doms: score.OwnDomains(m, db)}
	for p := range m.Preds {
		var rec func(args []mln.ConstID)
		rec = func(args []mln.ConstID) {
			if len(args) == len(m.Preds[p].Args) {
				b.atoms[p] = append(b.atoms[p], slices.Clone(args))
				return
			}
			for _, k := range b.doms[m.Preds[p].Args[len(args)]] {
				rec(append(args, k))
			}
		}
		b.atoms = append(b.atoms, nil)
		rec(nil)
	}
	return b
}

// score is the sum of weight times true groundings of every clause of
// model in the world whose atoms are the database's but for block p,
// which takes the values of x.
func (b *bruteWorld) score(model *mln.Model, p mln.PredID, x map[string]bool) float64 {
	val := func(q mln.PredID, args []mln.ConstID) bool {
		if q == p {
			return x[mln.BindingKey(args)]
		}
		v, _ := b.db.Get(q, args)
		return v == mln.True
	}
	s := 0.0
	for _, c := range model.Clauses {
		w := model.Weights[model.Formulas[c.Formula].Params[""]] * c.Coef
		binding := make([]mln.ConstID, len(c.Vars))
		n := 0.0
		var rec func(v int)
		rec = func(v int) {
			if v < len(c.Vars) {
				for _, k := range b.doms[c.Vars[v].Type] {
					binding[v] = k
					rec(v + 1)
				}
				return
			}
			for _, l := range c.Lits {
				args := make([]mln.ConstID, len(l.Args))
				for i, a := range l.Args {
					args[i] = binding[a.Var()]
				}
				if val(l.Pred, args) != l.Neg {
					n++
					return
				}
			}
		}
		rec(0)
		s += w * n
	}
	return s
}

// block enumerates block p: each assignment of p's atoms and its score.
func (b *bruteWorld) block(model *mln.Model, p mln.PredID, fn func(x map[string]bool, s float64)) {
	atoms := b.atoms[p]
	for mask := 0; mask < 1<<len(atoms); mask++ {
		x := map[string]bool{}
		for i, a := range atoms {
			x[mln.BindingKey(a)] = mask>>i&1 == 1
		}
		fn(x, b.score(model, p, x))
	}
}

// marginals is an exact BlockMarginals over this world.
func (b *bruteWorld) marginals(_ context.Context, model *mln.Model, _ *mln.Database, p mln.PredID) (map[string]float64, error) {
	var xs []map[string]bool
	var ss []float64
	b.block(model, p, func(x map[string]bool, s float64) { xs, ss = append(xs, x), append(ss, s) })
	top := slices.Max(ss)
	z := 0.0
	out := map[string]float64{}
	for i, x := range xs {
		e := math.Exp(ss[i] - top)
		z += e
		for k, v := range x {
			if v {
				out[k] += e
			}
		}
	}
	for _, a := range b.atoms[p] {
		out[mln.BindingKey(a)] /= z
	}
	return out, nil
}

// bpll is the blocked pseudo-log-likelihood enumerated: the sum over
// predicates of (1/N_P) log P(x_P | x_rest).
func (b *bruteWorld) bpll(model *mln.Model) float64 {
	total := 0.0
	for p := range b.m.Preds {
		truth := map[string]bool{}
		for _, a := range b.atoms[p] {
			v, _ := b.db.Get(mln.PredID(p), a)
			truth[mln.BindingKey(a)] = v == mln.True
		}
		var ss []float64
		b.block(model, mln.PredID(p), func(_ map[string]bool, s float64) { ss = append(ss, s) })
		top := slices.Max(ss)
		z := 0.0
		for _, s := range ss {
			z += math.Exp(s - top)
		}
		total += (b.score(model, mln.PredID(p), truth) - top - math.Log(z)) / float64(len(b.atoms[p]))
	}
	return total
}

const bruteDecl = `film = {F1, F2}
person = {A, B, C}
Movie(film, person)
Dir(person)
Under(person, person)
`

// bruteClauses are the clauses of the random models: units, the join, two
// companion-shaped clauses.
var bruteClauses = []string{
	"Movie(f,p)", "Dir(p)", "Under(a,d)",
	"!Movie(f,a) v !Movie(f,d) v !Dir(d) v Under(a,d)",
	"Movie(f,d) v !Dir(d)",
	"Under(a,d) v !Dir(d)",
}

func bruteModel(t *testing.T, w []float64) *mln.Model {
	t.Helper()
	var b strings.Builder
	b.WriteString(bruteDecl)
	for i, c := range bruteClauses {
		fmt.Fprintf(&b, "%g %s\n", w[i], c)
	}
	m, err := mln.ParseModel("brute.mln", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	if len(m.Clauses) != len(bruteClauses) {
		t.Fatalf("%d clauses, want %d", len(m.Clauses), len(bruteClauses))
	}
	return m
}

func randomBruteDB(t *testing.T, m *mln.Model, r *rand.Rand) *mln.Database {
	t.Helper()
	var b strings.Builder
	for _, f := range []string{"F1", "F2"} {
		for _, p := range []string{"A", "B", "C"} {
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "Movie(%s, %s)\n", f, p)
			}
		}
	}
	for _, p := range []string{"A", "B", "C"} {
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "Dir(%s)\n", p)
		}
		for _, q := range []string{"A", "B", "C"} {
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, "Under(%s, %s)\n", p, q)
			}
		}
	}
	db, err := mln.ParseDatabase(m, "brute.db", b.String())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestBlockedPLLGradientBruteForce checks BlockedPLLGradient, with the
// blocks' marginals enumerated, against finite differences of the blocked
// pseudo-log-likelihood enumerated over every block, on random weights and
// databases.
func TestBlockedPLLGradientBruteForce(t *testing.T) {
	ctx := context.Background()
	largest := 0.0
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		w := make([]float64, len(bruteClauses))
		for i := range w {
			w[i] = 2*r.Float64() - 1
		}
		m := bruteModel(t, w)
		db := randomBruteDB(t, m, r)
		b := newBruteWorld(m, db)
		cs := m.Clauses[4:]
		var dbs []*mln.Database
		for range 2 {
			dbs = append(dbs, db) // two databases sum
		}
		g, err := BlockedPLLGradient(ctx, m, cs, dbs, b.marginals, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cs {
			largest = max(largest, math.Abs(g[i]))
			const h = 1e-5
			wp, wm := slices.Clone(w), slices.Clone(w)
			wp[4+i] += h
			wm[4+i] -= h
			fd := 2 * (b.bpll(bruteModel(t, wp)) - b.bpll(bruteModel(t, wm))) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-6 {
				t.Errorf("seed %d, %s: gradient %.8f, finite difference %.8f", seed, bruteClauses[4+i], g[i], fd)
			}
		}
	}
	if largest < 0.01 {
		t.Errorf("largest gradient entry %.4g: the cases test nothing", largest)
	}
}

// TestBlockedPLLJoinUnbounded checks, by enumeration, why the blocked
// pseudo-likelihood does not fit a join that holds on every grounding of
// the data: its derivative in the join's weight is never negative.
func TestBlockedPLLJoinUnbounded(t *testing.T) {
	m0 := bruteModel(t, make([]float64, len(bruteClauses)))
	db, err := mln.ParseDatabase(m0, "j.db", `Movie(F1, A)
Movie(F1, B)
Movie(F2, C)
Dir(B)
Dir(C)
Under(A, B)
Under(B, B)
Under(C, C)
`)
	if err != nil {
		t.Fatal(err)
	}
	b := newBruteWorld(m0, db)
	r := rand.New(rand.NewPCG(3, 5))
	for range 5 {
		w := make([]float64, len(bruteClauses))
		for i := range w {
			w[i] = 4*r.Float64() - 2
		}
		for _, jw := range []float64{0, 1, 4} {
			w[3] = jw
			const h = 1e-5
			wp, wm := slices.Clone(w), slices.Clone(w)
			wp[3] += h
			wm[3] -= h
			if fd := (b.bpll(bruteModel(t, wp)) - b.bpll(bruteModel(t, wm))) / (2 * h); fd < -1e-7 {
				t.Errorf("weights %v: derivative in the join's weight %.3g < 0", w, fd)
			}
		}
	}
}

// TestFitJoinCompanions fits the companion of the join of a small IMDB
// (the join holds on every grounding) with the blocks enumerated: the
// weight found maximises the enumerated blocked pseudo-likelihood, and
// with MC-SAT blocks the fit is the same with one worker or two.
func TestFitJoinCompanions(t *testing.T) {
	ctx := context.Background()
	m, err := mln.ParseModel("imdb.mln", `film = {F1, F2}
person = {A, B, C, D}
Movie(film, person)
Dir(person)
Act(person)
Under(person, person)
`)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "imdb.db", `Movie(F1, A)
Movie(F1, B)
Movie(F2, C)
Movie(F2, D)
Dir(B)
Dir(D)
Act(A)
Act(C)
Under(A, B)
Under(C, D)
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	join := parseClause(t, m, "!Movie(f,a) v !Movie(f,d) v !Dir(d) v !Act(a) v Under(a,d)")
	// IMDB's weights: a person is a director or an actor, the join near
	// hard.
	base := func() *Result {
		r := &Result{Weights: []float64{-0.5, 3, 3, -3, 6, 6}}
		for p := range m.Preds {
			r.Clauses = append(r.Clauses, UnitClause(m, mln.PredID(p)))
		}
		r.Clauses = append(r.Clauses, parseClause(t, m, "!Dir(p) v !Act(p)"), join)
		return r
	}
	b := newBruteWorld(m, db)
	r := base()
	if _, err := FitJoinCompanions(ctx, m, []*mln.Database{db}, r, []*mln.Clause{join}, 0, 0.01, b.marginals, 1); err != nil {
		t.Fatal(err)
	}
	dirKey := CanonicalKey(parseClause(t, m, "Movie(f,d) v !Dir(d)"))
	at := slices.IndexFunc(r.Clauses, func(c *mln.Clause) bool { return CanonicalKey(c) == dirKey })
	if at < 6 {
		t.Fatalf("the directors' companion was not added: %d clauses", len(r.Clauses))
	}
	w := r.Weights[at]
	obj := func(cw float64) float64 {
		rr := &Result{Clauses: r.Clauses, Weights: slices.Clone(r.Weights)}
		rr.Weights[at] = cw
		mm, err := rr.Model(m)
		if err != nil {
			t.Fatal(err)
		}
		return b.bpll(mm)
	}
	if f := obj(w); f < obj(w-0.02) || f < obj(w+0.02) {
		t.Errorf("companion weight %.4f: objective %.6f, at ±0.02: %.6f %.6f", w, f, obj(w-0.02), obj(w+0.02))
	}
	if !(w > 0) {
		t.Errorf("companion weight %.4f, want it positive (the join keeps directors out of films)", w)
	}
	t.Logf("companions %v, weights %v", len(r.Clauses)-6, r.Weights[6:])
	opt := mcsat.Options{Samples: 200}
	opt.Seed = 7
	var got [][]float64
	for _, workers := range []int{1, 2} {
		r := base()
		if _, err := FitJoinCompanions(ctx, m, []*mln.Database{db, db}, r, []*mln.Clause{join}, 100, 0.01, MCSATBlockMarginals(opt), workers); err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Weights)
	}
	if !slices.Equal(got[0], got[1]) {
		t.Errorf("MC-SAT fit with 1 worker %v, with 2 %v", got[0], got[1])
	}
}
