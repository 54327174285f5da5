package score

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/bp"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
)

// dsaSrc has one domain-size-aware clause: f occurs in one literal, so
// each of its groundings weighs 1.3/|film|.
const dsaSrc = `film = {F1, F2, F3, F4}
person = {A, B, C}
Actor(person)
Movie(film, person)
0.4 Actor(p)
@1.3 Actor(p) v Movie(f, p)
`

const dsaDB = "Movie(F1, A)\nMovie(F2, A)\nMovie(F1, B)\nActor(A)\n"

// TestDomainScaledInference checks the marginals of the ground network
// (enumerated) against the probabilities written by hand: Actor(p) has
// log-odds 0.4 + 1.3/|film|·(films p is not in), over the model's films
// and over a restricted domain of two films (ground.Options.Domains, as
// for a database with its own constants).
func TestDomainScaledInference(t *testing.T) {
	m, err := mln.ParseModel("dsa.mln", dsaSrc)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "dsa.db", "Movie(F1, A)\nMovie(F2, A)\nMovie(F1, B)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	actor, _ := m.Pred("Actor")
	film, _ := m.Type("film")
	if c := m.Clauses[1]; !c.DomainScaled || m.DomainScale(c) != 4 {
		t.Fatalf("clause 1: DomainScaled %v, scale %v; want true, 4", c.DomainScaled, m.DomainScale(c))
	}
	for _, tc := range []struct {
		films []string
		deg   map[string]int // films each person is in, within the domain
	}{
		{[]string{"F1", "F2", "F3", "F4"}, map[string]int{"A": 2, "B": 1, "C": 0}},
		{[]string{"F1", "F2"}, map[string]int{"A": 2, "B": 1, "C": 0}},
		{[]string{"F3", "F4"}, map[string]int{"A": 0, "B": 0, "C": 0}},
	} {
		opt := ground.Options{Query: []mln.PredID{actor.ID}}
		if len(tc.films) != film.Size() {
			var cs []mln.ConstID
			for _, n := range tc.films {
				c, _ := m.Const(n)
				cs = append(cs, c)
			}
			opt.Domains = map[mln.TypeID][]mln.ConstID{film.ID: cs}
		}
		net, err := ground.Ground(context.Background(), m, db, opt)
		if err != nil {
			t.Fatal(err)
		}
		marg := brute.Marginals(net)
		n := float64(len(tc.films))
		// The discriminative gradient is Counts(y) − E[Counts]: the
		// clause's count is its satisfied groundings over |film|.
		wantExp := 0.0
		allFalse := make([]bool, net.NumAtoms())
		for a := range net.NumAtoms() {
			p := m.ConstName(net.AtomArgs[a][0])
			want := sigmoid(0.4 + 1.3/n*(n-float64(tc.deg[p])))
			if math.Abs(marg[a]-want) > 1e-9 {
				t.Errorf("films %v: P(Actor(%s)) = %.12f, want %.12f", tc.films, p, marg[a], want)
			}
			wantExp += (want*n + (1-want)*float64(tc.deg[p])) / n
		}
		q := m.Formulas[1].Params[""]
		if got := brute.ExpectedCounts(net)[q]; math.Abs(got-wantExp) > 1e-9 {
			t.Errorf("films %v: expected count %.12f, want %.12f", tc.films, got, wantExp)
		}
		wantFalse := 0.0
		for _, d := range tc.deg {
			wantFalse += float64(d) / n
		}
		if got := net.Counts(allFalse)[q]; math.Abs(got-wantFalse) > 1e-12 {
			t.Errorf("films %v: count with no actor %.12f, want %.12f", tc.films, got, wantFalse)
		}
	}
}

// TestDomainScaledLifted checks lifted BP on the model's domains against
// the hand-written marginal, with two free variables in different
// literals: the scale is the larger of |film| and |person|.
func TestDomainScaledLifted(t *testing.T) {
	m, err := mln.ParseModel("dsa2.mln", "film = {F1, F2, F3, F4}\nperson = {A, B, C}\nActor(person)\nGood(film)\n0.4 Actor(p)\n@1.3 Actor(p) v Good(f)\n")
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "dsa2.db", "Good(F1)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	if s := m.DomainScale(m.Clauses[1]); s != 4 {
		t.Fatalf("scale %v, want 4", s)
	}
	actor, _ := m.Pred("Actor")
	mm, _, err := bp.LiftModel(context.Background(), m, db, []mln.PredID{actor.ID}, bp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Const("A")
	want := sigmoid(0.4 + 1.3/4*3)
	if got := mm.Prob(actor.ID, []mln.ConstID{a}); math.Abs(got-want) > 1e-6 {
		t.Errorf("lifted P(Actor(A)) = %.9f, want %.9f", got, want)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []mln.PredID{actor.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if got := brute.Marginals(net)[0]; math.Abs(got-want) > 1e-9 {
		t.Errorf("ground P(Actor(A)) = %.12f, want %.12f", got, want)
	}
}

// TestDomainScaledPLL checks the pseudo-log-likelihood and its gradient,
// from clause counts (structure search, learn -g) and from the ground
// network, against the objective written by hand and its finite
// differences: every Actor and Movie atom given all the others, each
// predicate weighing 1.
func TestDomainScaledPLL(t *testing.T) {
	m, err := mln.ParseModel("dsa.mln", dsaSrc)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "dsa.db", dsaDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	persons := []string{"A", "B", "C"}
	films := []string{"F1", "F2", "F3", "F4"}
	actor := map[string]bool{"A": true}
	movie := map[[2]string]bool{{"F1", "A"}: true, {"F2", "A"}: true, {"F1", "B"}: true}
	// score of a world: w0·#Actor + w1/|film|·#(Actor(p) v Movie(f,p)).
	score := func(w []float64, act map[string]bool, mov map[[2]string]bool) float64 {
		s := 0.0
		for _, p := range persons {
			if act[p] {
				s += w[0]
			}
			for _, f := range films {
				if act[p] || mov[[2]string{f, p}] {
					s += w[1] / float64(len(films))
				}
			}
		}
		return s
	}
	logCond := func(s, sFlip float64) float64 { return s - math.Log(math.Exp(s)+math.Exp(sFlip)) }
	pll := func(w []float64) float64 {
		base := score(w, actor, movie)
		var la, lm float64
		for _, p := range persons {
			a2 := map[string]bool{}
			for k, v := range actor {
				a2[k] = v
			}
			a2[p] = !a2[p]
			la += logCond(base, score(w, a2, movie))
			for _, f := range films {
				m2 := map[[2]string]bool{}
				for k, v := range movie {
					m2[k] = v
				}
				k := [2]string{f, p}
				m2[k] = !m2[k]
				lm += logCond(base, score(w, actor, m2))
			}
		}
		return la/float64(len(persons)) + lm/float64(len(persons)*len(films))
	}
	w := []float64{0.4, 1.3}
	want := pll(w)
	var wantGrad [2]float64
	for i := range w {
		const h = 1e-6
		wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
		wp[i] += h
		wm[i] -= h
		wantGrad[i] = (pll(wp) - pll(wm)) / (2 * h)
	}
	check := func(name string, p *WPLL) {
		t.Helper()
		grad := make([]float64, p.NumParams())
		got := p.Eval(w, grad)
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: WPLL %.12f, want %.12f", name, got, want)
		}
		for i := range wantGrad {
			if math.Abs(grad[i]-wantGrad[i]) > 1e-6 {
				t.Errorf("%s: gradient[%d] %.9f, want %.9f", name, i, grad[i], wantGrad[i])
			}
		}
	}
	for _, own := range []bool{false, true} {
		d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{OwnDomains: own})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := d.ModelRows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		check("counts", rows[0])
		// The scorer (structure search) weighs the clause as its own
		// parameter, scaled the same way.
		sc, err := d.NewScorer(m.Clauses)
		if err != nil {
			t.Fatal(err)
		}
		check("scorer", sc.base[0])
	}
	// From the ground network (learn.Generative): every atom unknown.
	var preds []mln.PredID
	for _, p := range m.Preds {
		preds = append(preds, p.ID)
	}
	net, err := ground.Ground(context.Background(), m, mln.NewDatabase(m), ground.Options{Query: preds})
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]bool, net.NumAtoms())
	for a := range truth {
		v, _ := db.Get(net.AtomPred[a], net.AtomArgs[a])
		truth[a] = v == mln.True
	}
	gp, err := NewWPLL(net, truth, nil, PLLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("ground", gp)
}

// plantedWorld writes a database of persons over nFilms films: person i is
// in a planted fraction of the films (0, 1/4, ... 1) and is an actor with
// probability σ(w0 + w1·(fraction of films p is not in)), the conditional
// of the domain-size-aware model with weights w0 and w1. Every film and
// person is mentioned, so the database's own domains are exactly its
// constants.
func plantedWorld(r *rand.Rand, prefix string, persons, nFilms int, w0, w1 float64) string {
	var b strings.Builder
	for i := range persons {
		p := fmt.Sprintf("%sP%d", prefix, i)
		in := r.IntN(5) * nFilms / 4
		for f := range nFilms {
			if f < in {
				fmt.Fprintf(&b, "Movie(%sF%d, %s)\n", prefix, f, p)
			} else {
				fmt.Fprintf(&b, "!Movie(%sF%d, %s)\n", prefix, f, p)
			}
		}
		notIn := float64(nFilms-in) / float64(nFilms)
		if r.Float64() < sigmoid(w0+w1*notIn) {
			fmt.Fprintf(&b, "Actor(%s)\n", p)
		} else {
			fmt.Fprintf(&b, "!Actor(%s)\n", p)
		}
	}
	return b.String()
}

// TestDomainScaledTransfer plants the domain-size-aware model on a small
// domain (8 films) and a large one (64 films), learns the clause's weight
// by pseudo-likelihood on the small one with and without domain scaling,
// and predicts Actor on the large one: the scaled weight is the planted
// one and predicts as well as the planted model there, while the unscaled
// weight, fit to 8 films, counts each of 64 films and predicts far worse.
func TestDomainScaledTransfer(t *testing.T) {
	const w0, w1 = -2.0, 3.0
	m, err := mln.ParseModel("planted.mln", "Actor(person)\nMovie(film, person)\n")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	small, err := mln.ParseDatabase(m, "small.db", plantedWorld(r, "S", 600, 8, w0, w1))
	if err != nil {
		t.Fatal(err)
	}
	large, err := mln.ParseDatabase(m, "large.db", plantedWorld(r, "L", 600, 64, w0, w1))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	actor, _ := m.Pred("Actor")
	movie, _ := m.Pred("Movie")
	film, _ := m.Type("film")
	person, _ := m.Type("person")
	unit := &mln.Clause{Coef: 1, Formula: -1, Vars: []mln.Var{{Name: "p", Type: person.ID}},
		Lits: []mln.Literal{{Pred: actor.ID, Args: []mln.Term{mln.VarTerm(0)}}}}
	clause := func(scaled bool) *mln.Clause {
		return &mln.Clause{Coef: 1, Formula: -1, DomainScaled: scaled,
			Vars: []mln.Var{{Name: "p", Type: person.ID}, {Name: "f", Type: film.ID}},
			Lits: []mln.Literal{
				{Pred: actor.ID, Args: []mln.Term{mln.VarTerm(0)}},
				{Pred: movie.ID, Args: []mln.Term{mln.VarTerm(1), mln.VarTerm(0)}},
			}}
	}
	opt := CountOptions{OwnDomains: true}
	train, err := NewPLLData(m, []*mln.Database{small}, []mln.PredID{actor.ID}, opt)
	if err != nil {
		t.Fatal(err)
	}
	test, err := NewPLLData(m, []*mln.Database{large}, []mln.PredID{actor.ID}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if n := train.domainSize(0, film.ID); n != 8 {
		t.Fatalf("small database: %d films, want 8", n)
	}
	if n := test.domainSize(0, film.ID); n != 64 {
		t.Fatalf("large database: %d films, want 64", n)
	}
	var args [][]mln.ConstID
	var gold []bool
	large.Atoms(actor.ID, func(a []mln.ConstID, v mln.Truth) {
		args = append(args, a)
		gold = append(gold, v == mln.True)
	})
	cll := func(c *mln.Clause, w []float64) float64 {
		lo, err := test.LogOdds(context.Background(), []*mln.Clause{unit, c}, w, 0, actor.ID, args)
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for i, x := range lo {
			if !gold[i] {
				x = -x
			}
			s += logSigmoid(x)
		}
		return s / float64(len(lo))
	}
	planted := cll(clause(true), []float64{w0, w1})
	got := map[bool][]float64{}
	for _, scaled := range []bool{true, false} {
		sc, err := train.NewScorer([]*mln.Clause{unit, clause(scaled)})
		if err != nil {
			t.Fatal(err)
		}
		fit, err := sc.Fit(context.Background(), TightFit(nil))
		if err != nil {
			t.Fatal(err)
		}
		got[scaled] = fit.Weights
		t.Logf("scaled %v: weights %.3f, large-domain CLL %.4f (planted %.4f)", scaled, fit.Weights, cll(clause(scaled), fit.Weights), planted)
	}
	if w := got[true]; math.Abs(w[0]-w0) > 0.5 || math.Abs(w[1]-w1) > 0.6 {
		t.Errorf("scaled weights %.3f, planted [%v %v]", w, w0, w1)
	}
	scaled, plain := cll(clause(true), got[true]), cll(clause(false), got[false])
	if scaled < planted-0.02 {
		t.Errorf("large domain: CLL with the scaled weights %.4f, planted model %.4f", scaled, planted)
	}
	if plain > scaled-0.2 {
		t.Errorf("large domain: CLL with unscaled weights %.4f, scaled %.4f: want the scaled ones far better", plain, scaled)
	}
}

// sigmoid is 1/(1+e^-x).
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
