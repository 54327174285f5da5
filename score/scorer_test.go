package score

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/plant"
	"github.com/marple-mln/marple/mln"
)

// plantedScorer returns data sampled from plant's model and a scorer of
// its unit clauses, with the planted clauses.
func plantedScorer(t *testing.T, seed uint64, people, worlds int, opt CountOptions) (*mln.Model, *Scorer, []*mln.Clause) {
	t.Helper()
	m, dbs, planted, err := plant.Planted(context.Background(), seed, people, worlds)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewPLLData(m, dbs, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	var units []*mln.Clause
	for _, c := range m.Clauses {
		if len(c.Lits) == 1 {
			units = append(units, c)
		}
	}
	s, err := d.NewScorer(units)
	if err != nil {
		t.Fatal(err)
	}
	return m, s, planted
}

// parseClause compiles one clause over m's predicates.
func parseClause(t *testing.T, m *mln.Model, src string) *mln.Clause {
	t.Helper()
	f, err := m.ParseFormula(src)
	if err != nil {
		t.Fatal(err)
	}
	cls, err := m.AddFormula(f)
	if err != nil {
		t.Fatal(err)
	}
	return m.Clauses[cls[0]]
}

// TestScorerOverlayEqualsRebuild checks that the base-plus-candidates
// view evaluates exactly like a scorer built with the candidates as base
// clauses, and that scoring leaves the base unchanged.
func TestScorerOverlayEqualsRebuild(t *testing.T) {
	m, s, planted := plantedScorer(t, 1, 8, 1, CountOptions{})
	extra := parseClause(t, m, "!Friends(x, y) v Friends(y, x)")
	cands := append(slices.Clone(planted), extra)
	full, err := s.Add(cands...)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	np := len(s.Clauses()) + len(cands)
	var cc []*ClauseCounts
	for _, c := range cands {
		x, err := s.Data().Counts(c)
		if err != nil {
			t.Fatal(err)
		}
		cc = append(cc, x)
	}
	baseBefore := s.base[0].Eval(make([]float64, len(s.Clauses())), nil)
	for trial := 0; trial < 5; trial++ {
		w := make([]float64, np)
		for i := range w {
			w[i] = 3*r.Float64() - 1.5
		}
		view, x := s.overlay(0, s.base[0], make([]bool, len(s.Clauses())), cc, np)
		g1, g2, gx := make([]float64, np), make([]float64, np), make([]float64, np)
		v1 := view.Eval(w, g1) + x.Eval(w, gx)
		for i := range g1 {
			g1[i] += gx[i]
		}
		v2 := full.base[0].Eval(w, g2)
		if math.Abs(v1-v2) > 1e-9 {
			t.Fatalf("overlay %.12g, rebuilt %.12g", v1, v2)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-9 {
				t.Fatalf("gradient[%d]: overlay %.12g, rebuilt %.12g", i, g1[i], g2[i])
			}
		}
	}
	if v := s.base[0].Eval(make([]float64, len(s.Clauses())), nil); v != baseBefore {
		t.Fatalf("the base changed: %v, was %v", v, baseBefore)
	}
	// Replacing: the full set without its last candidate and first unit
	// clause, as an overlay, equals the rebuilt set.
	removed := make([]bool, np)
	removed[0], removed[np-1] = true, true
	view, x := full.overlay(0, full.base[0], removed, nil, np)
	rebuilt, err := full.Remove(0, np-1)
	if err != nil {
		t.Fatal(err)
	}
	for trial := 0; trial < 5; trial++ {
		w := make([]float64, np)
		var wr []float64
		for i := range w {
			if !removed[i] {
				w[i] = 3*r.Float64() - 1.5
				wr = append(wr, w[i])
			}
		}
		v1 := view.Eval(w, nil) + x.Eval(w, nil)
		if v2 := rebuilt.base[0].Eval(wr, nil); math.Abs(v1-v2) > 1e-9 {
			t.Fatalf("replace overlay %.12g, rebuilt %.12g", v1, v2)
		}
	}
	f1, err := full.ScoreReplace(context.Background(), []int{0, np - 1}, nil, TightFit(nil))
	if err != nil {
		t.Fatal(err)
	}
	f2, err := rebuilt.Fit(context.Background(), TightFit(nil))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f1.Objective-f2.Objective) > 1e-6 || f1.Weights[0] != 0 || f1.Weights[np-1] != 0 || math.Abs(f1.Weights[1]-f2.Weights[0]) > 1e-3 {
		t.Fatalf("ScoreReplace %v %v, rebuilt %v %v", f1.Objective, f1.Weights, f2.Objective, f2.Weights)
	}
	// Removing a hard clause takes its offsets away.
	hard := parseClause(t, m, "!Friends(x, y) v Friends(y, x).")
	if !hard.Hard {
		t.Fatal("not hard")
	}
	withHard, err := full.Add(hard)
	if err != nil {
		t.Fatal(err)
	}
	removed = make([]bool, np+1)
	removed[np] = true
	view, x = withHard.overlay(0, withHard.base[0], removed, nil, np+1)
	for trial := 0; trial < 3; trial++ {
		w := make([]float64, np+1)
		for i := 0; i < np; i++ {
			w[i] = 3*r.Float64() - 1.5
		}
		v1 := view.Eval(w, nil) + x.Eval(w, nil)
		if v2 := full.base[0].Eval(w[:np], nil); math.Abs(v1-v2) > 1e-9 {
			t.Fatalf("without the hard clause %.12g, rebuilt %.12g", v1, v2)
		}
		if v3 := withHard.base[0].Eval(w, nil); math.Abs(v3-v1) < 1e-6 {
			t.Fatalf("the hard clause changes nothing (%v)", v3)
		}
	}
	// Remove undoes Add.
	back, err := full.Remove(3, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0.3, -0.2, 0.1}
	if a, b := back.base[0].Eval(w, nil), s.base[0].Eval(w, nil); math.Abs(a-b) > 1e-12 {
		t.Fatalf("after Remove %v, base %v", a, b)
	}
}

// TestScorerPlanted checks on data sampled from a known MLN that the
// planted clauses improve the score of the unit clauses, more than
// clauses that are not planted, and that parallel scoring equals serial
// scoring.
func TestScorerPlanted(t *testing.T) {
	ctx := context.Background()
	m, s, planted := plantedScorer(t, 7, 30, 3, CountOptions{PLLOptions: PLLOptions{Workers: 1}})
	fit0, err := s.Fit(ctx, TightFit(nil))
	if err != nil {
		t.Fatal(err)
	}
	wrong := []*mln.Clause{
		parseClause(t, m, "!Cancer(x) v Friends(x, x)"),
		parseClause(t, m, "Smokes(x) v Friends(x, x)"),
		parseClause(t, m, "!Friends(x, y) v Cancer(y)"),
	}
	cands := append(slices.Clone(planted), wrong...)
	serial := make([]*Fit, len(cands))
	for i, c := range cands {
		f, err := s.Score(ctx, []*mln.Clause{c}, TightFit(fit0.Weights))
		if err != nil {
			t.Fatal(err)
		}
		serial[i] = f
	}
	parallel := make([]*Fit, len(cands))
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := s.Score(ctx, []*mln.Clause{c}, TightFit(fit0.Weights))
			if err != nil {
				t.Error(err)
				return
			}
			parallel[i] = f
		}()
	}
	wg.Wait()
	each, errs := s.ScoreEach(ctx, cands, TightFit(fit0.Weights), 2)
	for i := range cands {
		if errs[i] != nil || each[i].Objective != serial[i].Objective || !slices.Equal(each[i].Weights, serial[i].Weights) {
			t.Fatalf("candidate %d: ScoreEach %+v (%v), serial %+v", i, each[i], errs[i], serial[i])
		}
		if parallel[i] == nil || parallel[i].Objective != serial[i].Objective || !slices.Equal(parallel[i].Weights, serial[i].Weights) {
			t.Fatalf("candidate %d: parallel %+v, serial %+v", i, parallel[i], serial[i])
		}
	}
	bestWrong := math.Inf(-1)
	for i := len(planted); i < len(cands); i++ {
		bestWrong = max(bestWrong, serial[i].Objective-fit0.Objective)
	}
	for i := range planted {
		gain := serial[i].Objective - fit0.Objective
		if gain <= 0 || gain <= bestWrong {
			t.Fatalf("planted clause %d: gain %g, best wrong clause %g", i, gain, bestWrong)
		}
		if w := serial[i].Weights[len(s.Clauses())]; w <= 0 {
			t.Fatalf("planted clause %d: weight %g", i, w)
		}
	}
}

// TestCountCacheBound checks that the cache empties itself at its bound
// and that counts recomputed after that are equal.
func TestCountCacheBound(t *testing.T) {
	m, dbs, planted, err := plant.Planted(context.Background(), 1, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewPLLData(m, dbs, nil, CountOptions{CacheMB: 1})
	if err != nil {
		t.Fatal(err)
	}
	first, err := d.Counts(planted[0])
	if err != nil {
		t.Fatal(err)
	}
	if n, b := d.CachedCounts(); n != 1 || b <= 0 {
		t.Fatalf("%d cached, %d bytes", n, b)
	}
	d.cacheBytes = 2 << 20 // pretend the cache is full
	if _, err := d.Counts(planted[1]); err != nil {
		t.Fatal(err)
	}
	if n, _ := d.CachedCounts(); n != 1 {
		t.Fatalf("%d cached after the bound", n)
	}
	again, err := d.Counts(planted[0])
	if err != nil {
		t.Fatal(err)
	}
	if again == first || again.Nonzeros() != first.Nonzeros() {
		t.Fatal("not recounted, or recounted differently")
	}
}

// TestOwnDomains checks that with OwnDomains each database is scored over
// its own constants: the rows of each equal those of a model that knows
// only that database.
func TestOwnDomains(t *testing.T) {
	ctx := context.Background()
	text := func(seed uint64, people int, prefix string) string {
		m, dbs, _, err := plant.Planted(ctx, seed, people, 1)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for p, pr := range m.Preds {
			dbs[0].Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
				var names []string
				for _, c := range args {
					names = append(names, prefix+m.ConstName(c))
				}
				fmt.Fprintf(&b, "%s(%s)\n", pr.Name, strings.Join(names, ","))
			})
		}
		return b.String()
	}
	srcA, srcB := text(4, 10, "A"), text(5, 15, "B")
	load := func(srcs ...string) (*mln.Model, []*mln.Database) {
		m, err := mln.ParseModel("p.mln", plant.PlantedSource)
		if err != nil {
			t.Fatal(err)
		}
		var dbs []*mln.Database
		for i, s := range srcs {
			db, err := mln.ParseDatabase(m, fmt.Sprint(i, ".db"), s)
			if err != nil {
				t.Fatal(err)
			}
			dbs = append(dbs, db)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		return m, dbs
	}
	m, dbs := load(srcA, srcB)
	own, err := NewPLLData(m, dbs, nil, CountOptions{OwnDomains: true})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := own.ModelRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range []string{srcA, srcB} {
		mi, dbi := load(src)
		ref, err := NewPLLData(mi, dbi, nil, CountOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := ref.ModelRows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		w := []float64{0.5, -1, -2, 1.5, 0.7}
		if a, b := ps[i].Eval(w, nil), pr[0].Eval(w, nil); math.Abs(a-b) > 1e-9 || ps[i].Atoms() != pr[0].Atoms() {
			t.Fatalf("database %d: own domains %v (%d atoms), alone %v (%d atoms)", i, a, ps[i].Atoms(), b, pr[0].Atoms())
		}
	}
	// Sampling draws within the database's own domains.
	samp, err := NewPLLData(m, dbs, nil, CountOptions{OwnDomains: true, FractAtoms: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := m.Pred("Friends")
	size := own.size[0][fr.ID]
	if size >= int64(m.Types[0].Size()*m.Types[0].Size()) {
		t.Fatalf("database 0 has %d Friends atoms, the model %d", size, m.Types[0].Size()*m.Types[0].Size())
	}
	if got, want := samp.kept(0, fr.ID), int64(math.Round(0.5*float64(size))); got != want {
		t.Fatalf("Friends atoms kept in database 0: %d, want %d", got, want)
	}
	for r := samp.rowOff[fr.ID]; r < samp.rowOff[fr.ID]+samp.sp.size[fr.ID]; r++ {
		if samp.sampled[0][r>>6]&(1<<(r&63)) == 0 {
			continue
		}
		args := make([]mln.ConstID, 2)
		id := r - samp.rowOff[fr.ID]
		for j := range args {
			args[j] = m.Types[0].Consts[id/samp.sp.stride[fr.ID][j]%int64(m.Types[0].Size())]
		}
		for _, c := range args {
			if !slices.Contains(samp.worlds[0].dom[0], c) {
				t.Fatalf("sampled atom Friends%v outside database 0's domain", args)
			}
		}
	}
}
