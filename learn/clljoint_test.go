package learn

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/optimize"
)

// groupsMLN links a group's risk to its members' smoking: a Risk atom
// meets one clause per member, a Smokes atom one per group of the person,
// so the two predicates' connections differ.
const groupsMLN = `
Member(person, grp)
Smokes(person)
Risk(grp)
Smokes(x)
Risk(g)
Smokes(x) ^ Member(x, g) => Risk(g)
Risk(g) ^ Member(x, g) => Smokes(x)
`

func groupsExample(t *testing.T, m *mln.Model, evidence, truth string) *Example {
	t.Helper()
	ev, err := mln.ParseDatabase(m, "ev.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := mln.ParseDatabase(m, "truth.db", truth)
	if err != nil {
		t.Fatal(err)
	}
	sm, _ := m.Pred("Smokes")
	ri, _ := m.Pred("Risk")
	net, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: []mln.PredID{sm.ID, ri.ID}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return &Example{Net: net, Truth: net.Assignment(tr)}
}

// exactMarginals returns every atom's marginal under net's weights by
// enumeration.
func exactMarginals(net *ground.Network) []float64 {
	n := net.NumAtoms()
	p := make([]float64, n)
	mx := math.Inf(-1)
	brute.Worlds(n, func(y []bool) {
		s, _ := net.Score(y)
		mx = max(mx, s)
	})
	var Z float64
	brute.Worlds(n, func(y []bool) {
		s, _ := net.Score(y)
		q := math.Exp(s - mx)
		Z += q
		for a, v := range y {
			if v {
				p[a] += q
			}
		}
	})
	for a := range p {
		p[a] /= Z
	}
	return p
}

func exactHeldOut(m *mln.Model, ex *Example, w []float64) float64 {
	copy(m.Weights, w)
	ex.Net.SetWeights()
	cll := 0.0
	for a, p := range exactMarginals(ex.Net) {
		p = min(max(p, clipProb), 1-clipProb)
		if !ex.Truth[a] {
			p = 1 - p
		}
		cll += math.Log(p)
	}
	return cll
}

// TestTuneJointPriorExact checks TuneJointPrior against enumeration: for
// each exponent, the connections are recounted per predicate from the
// ground clauses, the weights minimising the exact −CLL of the other
// examples plus the scaled prior are found by BFGS on finite differences,
// and the held-out CLL of the left-out example is computed from its exact
// marginals; the choice must report the same held-out CLL for every
// exponent and choose the best.
func TestTuneJointPriorExact(t *testing.T) {
	m, err := mln.ParseModel("groups.mln", groupsMLN)
	if err != nil {
		t.Fatal(err)
	}
	evs := []string{
		"Member(A,G)\nMember(B,G)\nMember(C,G)\nMember(D,H)\n",
		"Member(A,H)\nMember(B,H)\nMember(C,G)\nMember(D,G)\n",
		"Member(A,G)\nMember(B,G)\nMember(C,G)\nMember(D,G)\n",
	}
	trs := []string{
		"Smokes(A)\nSmokes(B)\nRisk(G)\n",
		"Smokes(A)\nRisk(H)\nSmokes(D)\n",
		"Smokes(A)\nSmokes(C)\nRisk(G)\n",
	}
	for i := range evs {
		if _, err := mln.ParseDatabase(m, "x.db", evs[i]+trs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	var exs Examples
	for i := range evs {
		exs = append(exs, groupsExample(t, m, evs[i], trs[i]))
	}
	np := len(m.Weights)

	// Connections per parameter and predicate, over every example.
	cmax, cmin := make([]float64, np), make([]float64, np)
	for p := range cmax {
		byPred := map[mln.PredID]int{}
		for _, ex := range exs {
			net := ex.Net
			for a := 0; a < net.NumAtoms(); a++ {
				n := 0
				for c := 0; c < net.NumClauses(); c++ {
					if int(net.Param(c)) != p {
						continue
					}
					atoms := map[int32]bool{}
					for _, l := range net.Clause(c) {
						atoms[l.Atom()] = true
					}
					if len(atoms) >= 2 && atoms[int32(a)] {
						n++
					}
				}
				if n > 0 {
					byPred[net.AtomPred[a]] = max(byPred[net.AtomPred[a]], n)
				}
			}
		}
		cmax[p], cmin[p] = 1, 1
		if len(byPred) > 0 {
			cmin[p] = math.Inf(1)
			for _, n := range byPred {
				cmax[p] = max(cmax[p], float64(n))
				cmin[p] = min(cmin[p], float64(n))
			}
		}
	}
	if slices.Equal(cmax, cmin) {
		t.Fatalf("the connections do not differ: %v", cmax)
	}

	defer func(v bool) { JointPriorLeaveEachOut = v }(JointPriorLeaveEachOut)
	for _, each := range []bool{true, false} {
		JointPriorLeaveEachOut = each
		// The held-out examples: each in turn, or the largest (all have
		// the same atoms here: the first).
		ks := []int{0}
		if each {
			ks = []int{0, 1, 2}
		}
		tuneJointPriorCase(t, m, exs, ks, cmax, cmin)
	}
}

func tuneJointPriorCase(t *testing.T, m *mln.Model, exs Examples, ks []int, cmax, cmin []float64) {
	ctx := context.Background()
	const sigma = 0.5
	const prec = 1 / (sigma * sigma)
	np := len(m.Weights)
	var ch *JointPriorChoice
	clear(m.Weights)
	st, err := Discriminative(ctx, m, exs, DiscriminativeSettings{Sampler: exactSamplers, PriorStdDev: sigma,
		ScaleJointPrior: true, TuneJointPrior: true, MaxIter: 500, MinLLChange: 1e-13, Workers: 1,
		OnJointPrior: func(c *JointPriorChoice) { ch = c }})
	if err != nil {
		t.Fatal(err)
	}
	if ch == nil || st.JointPrior != ch || !slices.Equal(ch.Exponents, JointPriorExponents) || ch.Examples != len(ks) {
		t.Fatalf("choice %+v, stats %+v", ch, st)
	}
	best, bestT := math.Inf(-1), 0.0
	for i, tt := range ch.Exponents {
		scale := make([]float64, np)
		for p := range scale {
			scale[p] = math.Pow(cmax[p], 1-tt) * math.Pow(cmin[p], tt)
		}
		held := 0.0
		for _, k := range ks {
			var train Examples
			for j, ex := range exs {
				if j != k {
					train = append(train, ex)
				}
			}
			f := func(x []float64) float64 {
				v := exactObjective(m, train, x, 0)
				for p, xv := range x {
					v += prec * scale[p] * scale[p] * xv * xv / 2
				}
				return v
			}
			grad := func(g, x []float64) { fd.Gradient(g, f, x, &fd.Settings{Formula: fd.Central}) }
			res, err := optimize.Minimize(optimize.Problem{Func: f, Grad: grad},
				make([]float64, np), &optimize.Settings{GradientThreshold: 1e-8}, &optimize.BFGS{})
			if res == nil {
				t.Fatal(err)
			}
			g := make([]float64, np)
			if grad(g, res.X); slices.ContainsFunc(g, func(v float64) bool { return math.Abs(v) > 1e-5 }) {
				t.Fatalf("BFGS stopped at gradient %v: %v", g, err)
			}
			held += exactHeldOut(m, exs[k], res.X)
		}
		if math.IsInf(ch.HeldOutCLL[i], -1) {
			// Abandoned: it must lose to the choice.
			if j := slices.Index(ch.Exponents, ch.Exponent); held >= ch.HeldOutCLL[j] {
				t.Errorf("t = %g abandoned with held-out CLL %.8g by enumeration, above the choice's %.8g", tt, held, ch.HeldOutCLL[j])
			}
		} else if !near(ch.HeldOutCLL[i], held, 1e-5) {
			t.Errorf("t = %g: held-out CLL %.8g, by enumeration %.8g", tt, ch.HeldOutCLL[i], held)
		}
		if !ch.Converged[i] {
			t.Errorf("t = %g: a held-out run did not converge", tt)
		}
		if held > best+1e-9 {
			best, bestT = held, tt
		}
	}
	if ch.Exponent != bestT {
		t.Errorf("chose t = %g, enumeration prefers %g (%v)", ch.Exponent, bestT, ch.HeldOutCLL)
	}
	t.Logf("held-out CLL %v, chose t = %g; connections max %v, min %v", ch.HeldOutCLL, ch.Exponent, cmax, cmin)
}

// TestHeldOutCLLMCSAT checks the held-out CLL from MC-SAT's marginals
// against the exact marginals on the groups model at random weights.
func TestHeldOutCLLMCSAT(t *testing.T) {
	ctx := context.Background()
	m, err := mln.ParseModel("groups.mln", groupsMLN)
	if err != nil {
		t.Fatal(err)
	}
	ev, tr := "Member(A,G)\nMember(B,G)\nMember(C,G)\nMember(D,H)\n", "Smokes(A)\nSmokes(B)\nRisk(G)\n"
	if _, err := mln.ParseDatabase(m, "x.db", ev+tr); err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	ex := groupsExample(t, m, ev, tr)
	pb, err := newCLLProblem(ctx, m, Examples{ex}, MCSATSamplers(10, mcsat.Options{}), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range [][]float64{{0.3, -0.5, 1, 0.7}, {-1, 0.2, 0.5, 1.5}, {0, 0, 0, 0}} {
		got, err := pb.heldOutCLL(ctx, pb.exs[0], w, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := exactHeldOut(m, ex, w)
		if math.Abs(got-want) > 0.02*float64(ex.Net.NumAtoms()) {
			t.Errorf("weights %v: MC-SAT held-out CLL %.4f, exact %.4f", w, got, want)
		}
	}
}

// TestStepNoiseAndUnconverged checks the step's noise and the list of
// unconverged parameters on hand-set standard errors.
func TestStepNoiseAndUnconverged(t *testing.T) {
	e := &cllExample{params: []int32{0, 2, 3}, se2: []float64{4, 1, 0}}
	pb := &cllProblem{exs: []*cllExample{e}, np: 4}
	if got, want := pb.stepNoise([]float64{1, 5, 3, 7}), math.Sqrt(1*4+3*3*1); !near(got, want, 1e-12) {
		t.Errorf("step noise %g, want %g", got, want)
	}
	// Ratios: p0 10/2 = 5, p1 no error (+Inf), p2 1.5/1, p3 no error, tiny.
	got := pb.unconverged([]float64{10, 0.5, 1.5, 1e-9}, 3)
	if !slices.Equal(got, []int{1, 0}) {
		t.Errorf("unconverged %v, want [1 0]", got)
	}
}

// TestParamName checks the names of the parameters of a "+" formula.
func TestParamName(t *testing.T) {
	m, err := mln.ParseModel("x.mln", "Has(doc, word)\nTopic(doc)\nHas(d, +w) => Topic(d)\nTopic(d)\n")
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "x.db", "Has(D1, Learning)\nHas(D1, Logic)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	topic, _ := m.Pred("Topic")
	if _, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []mln.PredID{topic.ID}, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for p := range m.Weights {
		names = append(names, ParamName(m, p))
	}
	all := strings.Join(names, "\n")
	if !strings.Contains(all, "[w = Learning]") || !strings.Contains(all, "[w = Logic]") || !strings.Contains(all, "Topic(d)") {
		t.Errorf("names:\n%s", all)
	}
}

// TestTuneJointPriorNothingToChoose checks that a model whose joint
// weights have one connection count for all their predicates (smokers:
// each clause's atoms meet it equally often) makes no choice and does not
// call OnJointPrior.
func TestTuneJointPriorNothingToChoose(t *testing.T) {
	m, err := mln.ParseModel("smokers.mln", smokersMLN)
	if err != nil {
		t.Fatal(err)
	}
	evA, trA := "Friends(A,B)\nFriends(B,A)\n", "Smokes(A)\nCancer(A)\n"
	evB, trB := "Friends(C,D)\n", "Smokes(D)\n"
	for _, s := range []string{evA, trA, evB, trB} {
		if _, err := mln.ParseDatabase(m, "x.db", s); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	exs := Examples{smokersExample(t, m, evA, trA), smokersExample(t, m, evB, trB)}
	called := false
	st, err := Discriminative(context.Background(), m, exs, DiscriminativeSettings{Sampler: exactSamplers, ScaleJointPrior: true,
		TuneJointPrior: true, MaxIter: 50, Workers: 1, OnJointPrior: func(*JointPriorChoice) { called = true }})
	if err != nil {
		t.Fatal(err)
	}
	if called || st.JointPrior != nil {
		t.Fatalf("a choice was made: %+v", st.JointPrior)
	}
}
