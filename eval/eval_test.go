package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) <= eps*(1+math.Abs(b)) }

func load(t testing.TB, name string) *AtomSet {
	t.Helper()
	s, err := LoadAtoms(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type want struct {
	c              Counts
	atoms          int
	p, r, f1       float64
	ham            int
	hamNorm        float64
	known          bool
	cll, aucpr, ap float64
	marginal       bool
}

func check(t *testing.T, what string, m Metrics, w want) {
	t.Helper()
	ok := m.Counts == w.c && m.Atoms == w.atoms && near(m.Precision, w.p) && near(m.Recall, w.r) &&
		near(m.F1, w.f1) && m.Hamming == w.ham && near(m.HammingNorm, w.hamNorm) && m.UniverseKnown == w.known &&
		near(m.CLL, w.cll) && near(m.AUCPR, w.aucpr) && near(m.AP, w.ap) && m.Marginal == w.marginal
	if !ok {
		t.Errorf("%s:\n got %+v\nwant %+v", what, m, w)
	}
}

func TestEvaluateMAP(t *testing.T) {
	pred, truth := load(t, "map.result"), load(t, "truth.db")
	opt := Options{Query: []string{"Smokes", "Cancer"}}
	r, err := EvaluateMAP(pred, truth, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Smokes: predicted {A, D}, true {A, B, C}.
	check(t, "Smokes", r.Preds[0], want{c: Counts{1, 1, 2, 0}, atoms: 4, p: 0.5, r: 1.0 / 3, f1: 0.4, ham: 3})
	// Cancer: predicted {A, B}, true {A}.
	check(t, "Cancer", r.Preds[1], want{c: Counts{1, 1, 0, 0}, atoms: 2, p: 0.5, r: 1, f1: 2.0 / 3, ham: 1})
	check(t, "micro", r.Micro, want{c: Counts{2, 2, 2, 0}, atoms: 6, p: 0.5, r: 0.5, f1: 0.5, ham: 4})
	check(t, "macro", r.Macro, want{c: Counts{2, 2, 2, 0}, atoms: 6, p: 0.5, r: 2.0 / 3, f1: (0.4 + 2.0/3) / 2, ham: 4})
	if r.Preds[0].Pred != "Smokes" || r.Marginal || r.Filtered != 0 || r.Unknown != 0 {
		t.Errorf("report %+v", r)
	}

	// Universe sizes: 4 Smokes atoms (A..D), 4 Cancer atoms.
	opt.UniverseSize = map[string]int{"Smokes": 4, "Cancer": 4}
	r, err = EvaluateMAP(pred, truth, opt)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Smokes sized", r.Preds[0], want{c: Counts{1, 1, 2, 0}, atoms: 4, p: 0.5, r: 1.0 / 3, f1: 0.4, ham: 3, hamNorm: 0.75, known: true})
	check(t, "Cancer sized", r.Preds[1], want{c: Counts{1, 1, 0, 2}, atoms: 4, p: 0.5, r: 1, f1: 2.0 / 3, ham: 1, hamNorm: 0.25, known: true})
	check(t, "micro sized", r.Micro, want{c: Counts{2, 2, 2, 2}, atoms: 8, p: 0.5, r: 0.5, f1: 0.5, ham: 4, hamNorm: 0.5, known: true})

	// The same universe given as a list of atoms.
	u := mustParse(t, "u", "Smokes(A)\nSmokes(B)\nSmokes(C)\nSmokes(D)\nCancer(A)\nCancer(B)\nCancer(C)\nCancer(D)\n")
	r2, err := EvaluateMAP(pred, truth, Options{Query: opt.Query, Universe: u})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r2.Preds, r2.Micro) != fmt.Sprint(r.Preds, r.Micro) {
		t.Errorf("Universe list differs from UniverseSize:\n%+v\n%+v", r2, r)
	}

	opt.UniverseSize["Smokes"] = 3
	if _, err := EvaluateMAP(pred, truth, opt); err == nil {
		t.Error("UniverseSize too small: no error")
	}

	// No query: every predicate of prediction and truth, sorted.
	r, _ = EvaluateMAP(pred, truth, Options{})
	var names []string
	for _, m := range r.Preds {
		names = append(names, m.Pred)
	}
	if strings.Join(names, " ") != "Cancer Friends Smokes" {
		t.Errorf("default query = %v", names)
	}
}

func TestEvaluateMarginals(t *testing.T) {
	pred, truth := load(t, "marginal.result"), load(t, "truth.db")
	// Smokes(A..D) = 0.9, 0.8, 0.7, 0.6; true: A, B, C.
	r, err := EvaluateMarginals(pred, truth, Options{Query: []string{"Smokes"}})
	if err != nil {
		t.Fatal(err)
	}
	cll := (math.Log(0.9) + math.Log(0.8) + math.Log(0.7) + math.Log(0.4)) / 4
	// Ranking T T T F: precision 1 up to recall 1, then a vertical drop.
	check(t, "Smokes", r.Preds[0], want{c: Counts{3, 1, 0, 0}, atoms: 4, p: 0.75, r: 1, f1: 6.0 / 7, ham: 1,
		hamNorm: 0.25, known: true, cll: cll, aucpr: 1, ap: 1, marginal: true})
	check(t, "micro", r.Micro, want{c: Counts{3, 1, 0, 0}, atoms: 4, p: 0.75, r: 1, f1: 6.0 / 7, ham: 1,
		hamNorm: 0.25, known: true, cll: cll, aucpr: 1, ap: 1, marginal: true})

	// Truth {A, C}: ranking T F T F.
	truth2 := mustParse(t, "t2", "Smokes(A)\nSmokes(C)\n")
	r, _ = EvaluateMarginals(pred, truth2, Options{Query: []string{"Smokes"}, Threshold: 0.65})
	cll = (math.Log(0.9) + math.Log(0.2) + math.Log(0.7) + math.Log(0.4)) / 4
	check(t, "Smokes T F T F", r.Preds[0], want{c: Counts{2, 1, 0, 1}, atoms: 4, p: 2.0 / 3, r: 1, f1: 0.8, ham: 1,
		hamNorm: 0.25, known: true, cll: cll, aucpr: 0.5 + 0.5*(0.5+2.0/3)/2, ap: 0.5 + 0.5*2.0/3, marginal: true})

	// Two more unlisted query atoms (probability 0, false) and a gold-true
	// atom missing from the result (probability 0).
	truth3 := mustParse(t, "t3", "Smokes(A)\nSmokes(C)\nSmokes(E)\n")
	r, _ = EvaluateMarginals(pred, truth3, Options{Query: []string{"Smokes"}, UniverseSize: map[string]int{"Smokes": 7}})
	cll = (math.Log(0.9) + math.Log(0.2) + math.Log(0.7) + math.Log(0.4) + math.Log(ClipMin) + 2*math.Log(1-ClipMin)) / 7
	// Points (1,0) (1,1) (2,1) (2,2) then E ties with the 2 extra negatives
	// at score 0: (3,4), interpolated from (2,2) with skew 2.
	auc := 1.0/3 + (1.0/3)*(0.5+2.0/3)/2 + (1.0/3)*(0.5+3.0/7)/2
	ap := 1.0/3 + 1.0/3*2.0/3 + 1.0/3*3.0/7
	check(t, "Smokes with extra", r.Preds[0], want{c: Counts{2, 2, 1, 2}, atoms: 7, p: 0.5, r: 2.0 / 3, f1: 4.0 / 7, ham: 3,
		hamNorm: 3.0 / 7, known: true, cll: cll, aucpr: auc, ap: ap, marginal: true})

	// Evaluate picks the marginal evaluation for probabilities.
	r, _ = Evaluate(pred, truth, Options{Query: []string{"Smokes"}})
	if !r.Marginal {
		t.Error("Evaluate did not detect marginals")
	}
	r, _ = Evaluate(load(t, "map.result"), truth, Options{Query: []string{"Smokes"}})
	if r.Marginal {
		t.Error("Evaluate took a MAP result for marginals")
	}
}

func TestUnknownAtoms(t *testing.T) {
	pred := mustParse(t, "p", "A(X)\nA(Y)\n?A(Z)\n")
	truth := mustParse(t, "t", "A(X)\n?A(Y)\n?A(W)\nA(V)\n")
	r, err := EvaluateMAP(pred, truth, Options{Query: []string{"A"}})
	if err != nil {
		t.Fatal(err)
	}
	// Scored: X (TP), V (FN); Y, Z, W unknown.
	check(t, "A", r.Preds[0], want{c: Counts{1, 0, 1, 0}, atoms: 2, p: 1, r: 0.5, f1: 2.0 / 3, ham: 1})
	if r.Unknown != 3 {
		t.Errorf("Unknown = %d, want 3", r.Unknown)
	}
}

func TestTokenFilter(t *testing.T) {
	ev, truth, pred := load(t, "citeseer-evidence.db"), load(t, "citeseer-truth.db"), load(t, "citeseer.result")
	f := TokenFilter(ev)
	for atom, keep := range map[string]bool{
		"InField(B1,Fauthor,P00)": true, "InField(B1,Fvenue,P01)": true, "InField(B2,Ftitle,P00)": true,
		"InField(B1,Ftitle,P02)":  false, // !Token does not count
		"InField(B3,Fauthor,P00)": false, "InField(B2,Fauthor,P01)": false, "InField(B1)": false,
		"Other(A)": true,
	} {
		a, err := ParseAtom(atom)
		if err != nil {
			t.Fatal(err)
		}
		if f(a) != keep {
			t.Errorf("filter(%s) = %v, want %v", atom, !keep, keep)
		}
	}
	r, err := EvaluateMAP(pred, truth, Options{Query: []string{"InField"}, Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	// Kept: B1 author P00 (TP), B1 author P01 (FP), B2 venue P00 (FP),
	// B1 title P01 (FN), B2 author P00 (FN); filtered: B3 author P00,
	// B1 title P02.
	check(t, "InField", r.Preds[0], want{c: Counts{1, 2, 2, 0}, atoms: 5, p: 1.0 / 3, r: 1.0 / 3, f1: 1.0 / 3, ham: 4})
	if r.Filtered != 2 {
		t.Errorf("Filtered = %d, want 2", r.Filtered)
	}
	// Unfiltered, for contrast.
	r, _ = EvaluateMAP(pred, truth, Options{Query: []string{"InField"}})
	check(t, "InField unfiltered", r.Preds[0], want{c: Counts{1, 3, 3, 0}, atoms: 7, p: 0.25, r: 0.25, f1: 0.25, ham: 6})

	// A general hook.
	r, _ = EvaluateMAP(pred, truth, Options{Query: []string{"InField"}, Filter: func(a Atom) bool { return a.Args[0] == "B2" }})
	check(t, "InField B2", r.Preds[0], want{c: Counts{0, 1, 1, 0}, atoms: 2, ham: 2})
}

func TestCountsConventions(t *testing.T) {
	var c Counts
	m := c.Metrics(true)
	if m.Precision != 0 || m.Recall != 0 || m.F1 != 0 || m.HammingNorm != 0 {
		t.Errorf("empty counts: %+v", m)
	}
	c = Counts{TP: 3, FP: 1, FN: 2, TN: 4}
	m = c.Metrics(true)
	if !near(m.Precision, 0.75) || !near(m.Recall, 0.6) || !near(m.F1, 2*0.75*0.6/1.35) || m.Hamming != 3 || !near(m.HammingNorm, 0.3) || m.Atoms != 10 {
		t.Errorf("counts %+v: %+v", c, m)
	}
	if m := c.Metrics(false); m.HammingNorm != 0 || m.UniverseKnown {
		t.Errorf("unknown universe: %+v", m)
	}
	pred := []bool{true, true, false, false, true}
	gold := []bool{true, false, true, false, true}
	if got := CountBool(pred, gold); got != (Counts{2, 1, 1, 1}) {
		t.Errorf("CountBool = %+v", got)
	}
	if !near(F1(pred, gold), 2.0/3) || !near(F1Loss(pred, gold), 100.0/3) {
		t.Errorf("F1 = %v, F1Loss = %v", F1(pred, gold), F1Loss(pred, gold))
	}
	none := []bool{false, false}
	if F1(none, none) != 0 || F1Loss(none, none) != 0 || F1Loss([]bool{true, false}, none) != 100 {
		t.Error("F1/F1Loss conventions for empty sets")
	}
	defer func() {
		if recover() == nil {
			t.Error("CountBool with different lengths did not panic")
		}
	}()
	CountBool(pred, gold[:2])
}

func TestAverage(t *testing.T) {
	a := Metrics{Counts: Counts{1, 0, 1, 0}, Atoms: 2, F1: 0.5, Precision: 1, Recall: 0.5, Hamming: 1, HammingNorm: 0.5, UniverseKnown: true, Marginal: true, CLL: -1, AUCPR: 0.4}
	b := Metrics{Counts: Counts{2, 2, 0, 1}, Atoms: 5, F1: 0.9, Hamming: 2, HammingNorm: 0.4, UniverseKnown: true, Marginal: false}
	m := Average(a, b)
	if m.Counts != (Counts{3, 2, 1, 1}) || m.Atoms != 7 || m.Hamming != 3 || !near(m.F1, 0.7) || !near(m.Precision, 0.5) ||
		!near(m.HammingNorm, 0.45) || !m.UniverseKnown || m.Marginal || m.CLL != 0 || m.AUCPR != 0 {
		t.Errorf("Average = %+v", m)
	}
	if (Average() != Metrics{}) {
		t.Error("Average() is not zero")
	}
	mean, std := MeanStd([]float64{91.742, 92.368, 92.726, 96.994})
	if !near(mean, 93.4575) || math.Abs(std-2.393) > 1e-3 {
		t.Errorf("MeanStd = %v, %v", mean, std)
	}
	if m, s := MeanStd([]float64{2}); m != 2 || s != 0 {
		t.Errorf("MeanStd of one = %v, %v", m, s)
	}
	if m, s := MeanStd(nil); m != 0 || s != 0 {
		t.Errorf("MeanStd of none = %v, %v", m, s)
	}
}

func TestRankingMetricsByHand(t *testing.T) {
	cases := []struct {
		name   string
		scores []float64
		gold   []bool
		auc    float64
		ap     float64
	}{
		{"T F T F", []float64{0.9, 0.8, 0.7, 0.6}, []bool{true, false, true, false}, 0.5 + 0.5*(0.5+2.0/3)/2, 0.5 + 0.5*2.0/3},
		{"F T F F T T", []float64{0.9, 0.8, 0.7, 0.6, 0.5, 0.4}, []bool{false, true, false, false, true, true},
			0.5/3 + (0.25+0.4)/2/3 + (0.4+0.5)/2/3, (0.5 + 0.4 + 0.5) / 3},
		// Ties: one threshold (2 TP, 1 FP), then the last negative.
		{"ties", []float64{0.5, 0.5, 0.5, 0.1}, []bool{true, false, true, false}, 2.0 / 3, 2.0 / 3},
		// Interpolation with skew 1 from (1,0) to (3,2): (2,1) has precision 2/3.
		{"skew", []float64{0.9, 0.5, 0.5, 0.5, 0.5}, []bool{true, true, true, false, false},
			1.0/3 + (1+2.0/3)/2/3 + (2.0/3+0.6)/2/3, 1.0/3 + 2.0/3*0.6},
		// First point has TP = 2: flat from recall 0 at precision 2/3.
		{"first TP 2", []float64{0.9, 0.9, 0.9, 0.1}, []bool{true, true, false, true},
			2.0/3*2.0/3 + (2.0/3+0.75)/2/3, 2.0/3*2.0/3 + 0.75/3},
		{"no positives", []float64{0.9, 0.1}, []bool{false, false}, 0, 0},
		{"all positives", []float64{0.9, 0.1}, []bool{true, true}, 1, 1},
		{"empty", nil, nil, 0, 0},
	}
	for _, c := range cases {
		auc, ap := AUCPR(c.scores, c.gold), AveragePrecision(c.scores, c.gold)
		if !near(auc, c.auc) || !near(ap, c.ap) {
			t.Errorf("%s: AUCPR %v AP %v, want %v %v", c.name, auc, ap, c.auc, c.ap)
		}
		if o := aucCalculator(c.scores, c.gold); !near(o, c.auc) {
			t.Errorf("%s: oracle %v, want %v", c.name, o, c.auc)
		}
	}
	// NaN scores do not hang or panic.
	AUCPR([]float64{math.NaN(), math.NaN(), 0.5}, []bool{true, false, true})
	if got := CLL([]float64{1, 0, 0.5}, []bool{true, false, true}); !near(got, (2*math.Log(1-ClipMin)+math.Log(0.5))/3) {
		t.Errorf("CLL = %v", got)
	}
	if CLL(nil, nil) != 0 {
		t.Error("CLL of nothing")
	}
}

// aucCalculator is a direct transcription of the steps of Davis &
// Goadrich's AUCCalculator 0.2 (list mode): confusion points at each
// distinct score, drop TP = 0, add (1, FP/TP) in front, interpolate at
// integer TP, then area.
func aucCalculator(scores []float64, gold []bool) float64 {
	type pt struct{ tp, fp float64 }
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	var pts []pt
	tp, fp := 0.0, 0.0
	for k, i := range idx {
		if gold[i] {
			tp++
		} else {
			fp++
		}
		if k == len(idx)-1 || scores[idx[k+1]] != scores[i] {
			pts = append(pts, pt{tp, fp})
		}
	}
	totPos := tp
	if totPos == 0 {
		return 0
	}
	for len(pts) > 0 && pts[0].tp == 0 {
		pts = pts[1:]
	}
	if pts[0].tp > 1 {
		pts = append([]pt{{1, pts[0].fp / pts[0].tp}}, pts...)
	}
	var full []pt
	for i := range pts {
		full = append(full, pts[i])
		if i+1 < len(pts) {
			a, b := pts[i], pts[i+1]
			skew := (b.fp - a.fp) / (b.tp - a.tp)
			for x := 1.0; a.tp+x < b.tp; x++ {
				full = append(full, pt{a.tp + x, a.fp + skew*x})
			}
		}
	}
	prec := func(p pt) float64 { return p.tp / (p.tp + p.fp) }
	r0, p0 := full[0].tp/totPos, prec(full[0])
	area := r0 * p0
	for _, p := range full[1:] {
		r, pr := p.tp/totPos, prec(p)
		area += (r-r0)*pr + 0.5*(r-r0)*(p0-pr)
		r0, p0 = r, pr
	}
	return area
}

// brute-force average precision: per group of tied scores, recall gain
// times precision.
func apOracle(scores []float64, gold []bool) float64 {
	type g struct{ tp, n float64 }
	groups := map[float64]*g{}
	P := 0.0
	for i, s := range scores {
		if groups[s] == nil {
			groups[s] = &g{}
		}
		groups[s].n++
		if gold[i] {
			groups[s].tp++
			P++
		}
	}
	if P == 0 {
		return 0
	}
	var keys []float64
	for s := range groups {
		keys = append(keys, s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(keys)))
	ap, tp, n := 0.0, 0.0, 0.0
	for _, s := range keys {
		tp += groups[s].tp
		n += groups[s].n
		ap += groups[s].tp / P * tp / n
	}
	return ap
}

func TestRankingMetricsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(40)
		scores := make([]float64, n)
		gold := make([]bool, n)
		levels := 1 + rng.IntN(8) // few levels: many ties
		for i := range scores {
			if trial%2 == 0 {
				scores[i] = float64(rng.IntN(levels)) / float64(levels)
			} else {
				scores[i] = rng.Float64()
			}
			gold[i] = rng.IntN(3) == 0
		}
		if got, want := AUCPR(scores, gold), aucCalculator(scores, gold); !near(got, want) {
			t.Fatalf("trial %d: AUCPR %v, oracle %v (scores %v gold %v)", trial, got, want, scores, gold)
		}
		if got, want := AveragePrecision(scores, gold), apOracle(scores, gold); !near(got, want) {
			t.Fatalf("trial %d: AP %v, oracle %v", trial, got, want)
		}
	}
}

// TestEvaluateRandom checks EvaluateMarginals against direct computation
// over the full universe, with the universe given in three ways.
func TestEvaluateRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		preds := []string{"A", "B"}
		pred, truth, universe := NewAtomSet(), NewAtomSet(), NewAtomSet()
		mapPred := NewAtomSet()
		type atom struct {
			p    float64
			gold bool
		}
		per := map[string][]atom{}
		sizes := map[string]int{}
		for _, q := range preds {
			n := 1 + rng.IntN(20)
			sizes[q] = n
			for i := range n {
				key := fmt.Sprintf("%s(C%d,\"x, %d\")", q, i, trial)
				p := float64(rng.IntN(5)) / 4
				g := rng.IntN(2) == 0
				per[q] = append(per[q], atom{p, g})
				if err := universe.Set(key, 1); err != nil {
					t.Fatal(err)
				}
				// The complete result lists every atom; the partial one
				// leaves out atoms with probability 0.
				if err := pred.Set(key, p); err != nil {
					t.Fatal(err)
				}
				if p > 0 {
					mapPred.Set(key, p)
				}
				if g {
					truth.Set(key, 1)
				} else if rng.IntN(2) == 0 {
					truth.Set(key, 0) // an explicit "!atom"
				}
			}
		}
		pred.Complete = true
		opts := []struct {
			name string
			pred *AtomSet
			opt  Options
		}{
			{"complete", pred, Options{Query: preds}},
			{"universe", mapPred, Options{Query: preds, Universe: universe}},
			{"sizes", mapPred, Options{Query: preds, UniverseSize: sizes}},
		}
		var all []atom
		for _, q := range preds {
			all = append(all, per[q]...)
		}
		expect := func(as []atom) Metrics {
			var ps []float64
			var pb, gs []bool
			for _, a := range as {
				ps = append(ps, a.p)
				pb = append(pb, a.p >= 0.5)
				gs = append(gs, a.gold)
			}
			m := CountBool(pb, gs).Metrics(true)
			m.Marginal = true
			m.CLL, m.AUCPR, m.AP = CLL(ps, gs), aucCalculator(ps, gs), apOracle(ps, gs)
			return m
		}
		for _, o := range opts {
			r, err := EvaluateMarginals(o.pred, truth, o.opt)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range preds {
				w := expect(per[q])
				w.Pred = q
				if !metricsNear(r.Preds[i], w) {
					t.Fatalf("trial %d %s pred %s:\n got %+v\nwant %+v", trial, o.name, q, r.Preds[i], w)
				}
			}
			if w := expect(all); !metricsNear(r.Micro, w) {
				t.Fatalf("trial %d %s micro:\n got %+v\nwant %+v", trial, o.name, r.Micro, w)
			}
		}
	}
}

func metricsNear(a, b Metrics) bool {
	return a.Pred == b.Pred && a.Counts == b.Counts && a.Atoms == b.Atoms && a.Hamming == b.Hamming &&
		a.UniverseKnown == b.UniverseKnown && a.Marginal == b.Marginal &&
		near(a.Precision, b.Precision) && near(a.Recall, b.Recall) && near(a.F1, b.F1) &&
		near(a.HammingNorm, b.HammingNorm) && near(a.CLL, b.CLL) && near(a.AUCPR, b.AUCPR) && near(a.AP, b.AP)
}

func TestReportOutput(t *testing.T) {
	pred, truth := load(t, "map.result"), load(t, "truth.db")
	r, err := EvaluateMAP(pred, truth, Options{Query: []string{"Smokes", "Cancer"}, UniverseSize: map[string]int{"Cancer": 4}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `pred    atoms  TP  FP  FN  TN    prec  recall      F1  Hamming   Ham/N
Smokes      4   1   1   2   0  0.5000  0.3333  0.4000        3       -
Cancer      4   1   1   0   2  0.5000  1.0000  0.6667        1  0.2500
micro       8   2   2   2   2  0.5000  0.5000  0.5000        4       -
macro       8   2   2   2   2  0.5000  0.6667  0.5333        4       -
`
	if buf.String() != want {
		t.Errorf("WriteText:\n%s\nwant\n%s", buf.String(), want)
	}

	buf.Reset()
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", back) != fmt.Sprintf("%+v", *r) {
		t.Errorf("JSON round trip:\n%+v\n%+v", back, *r)
	}
	js := buf.String()
	if strings.Contains(js, "cll") || !strings.Contains(js, `"hamming_norm": 0.25`) || strings.Count(js, "hamming_norm") != 1 {
		t.Errorf("JSON:\n%s", js)
	}

	r, _ = EvaluateMarginals(load(t, "marginal.result"), truth, Options{Query: []string{"Smokes"}})
	buf.Reset()
	r.WriteJSON(&buf)
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || fmt.Sprintf("%+v", back) != fmt.Sprintf("%+v", *r) {
		t.Errorf("marginal JSON round trip: %v\n%s", err, buf.String())
	}
	buf.Reset()
	r.WriteText(&buf)
	if !strings.Contains(buf.String(), "AUC-PR") || strings.Contains(buf.String(), "macro") {
		t.Errorf("marginal text:\n%s", buf.String())
	}
}
