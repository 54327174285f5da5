package decision

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/bp"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/mcsat"
)

// The search works on the parts of the network: its connected components,
// action atoms included. The action atoms of one part do not change the
// marginals of another's atoms, so the expected utility is a constant plus
// a sum over the parts, each a function of its own action atoms alone, and
// the best assignment is the best assignment of each part. Each part keeps
// its own evaluator: after one action atom flips, only its part is
// evaluated again.

// DefaultMaxEvaluations is the largest number of expected-utility
// evaluations an exhaustive search of one part may need (2^k for k action
// atoms): beyond it Solve refuses with a *TooLargeError unless
// SolveOptions.MaxEvaluations allows more.
const DefaultMaxEvaluations = 1 << 20

// DefaultExactAtoms is the largest number of atoms of a part (besides its
// action atoms and the auxiliary atoms of utility formulas, which follow
// from the others) whose worlds are enumerated to compute its exact
// expected utility, whatever the engine: the same bound as MC-SAT's for its
// components.
const DefaultExactAtoms = mcsat.DefaultExactAtoms

// Progress reports a running search (SolveOptions.Progress).
type Progress struct {
	// Part is the part being searched (1-based) of Parts that have action
	// atoms, with Actions action atoms.
	Part, Parts, Actions int
	// Exhaustive is set when every assignment of the part is evaluated:
	// Done of Total. In a greedy search Total is 0 and Restart is the
	// current search (1-based) of Restarts.
	Exhaustive        bool
	Done, Total       int64
	Restart, Restarts int
	// Evaluations counts the evaluations of every part so far.
	Evaluations int
	// Best is the best expected utility of the part so far (its share of
	// the total).
	Best float64
}

// TooLargeError is the error of Solve when an exhaustive search would
// need more evaluations than SolveOptions.MaxEvaluations.
type TooLargeError struct {
	// Actions is the number of action atoms of the part, Evaluations
	// 2^Actions, Limit the limit.
	Actions     int
	Evaluations float64
	Limit       int64
	// Method names how each evaluation is computed (Result.Methods), on
	// Atoms atoms and Clauses ground clauses.
	Method         string
	Atoms, Clauses int
	// PerEvaluation is the measured time of one evaluation (0: not
	// measured).
	PerEvaluation time.Duration
}

func (e *TooLargeError) Error() string {
	s := fmt.Sprintf("decision: an exhaustive search over %d action atoms means 2^%d = %s evaluations of the expected utility, each by %s on %d atoms and %d ground clauses",
		e.Actions, e.Actions, strconv.FormatFloat(e.Evaluations, 'f', 0, 64), e.Method, e.Atoms, e.Clauses)
	if e.PerEvaluation > 0 {
		s += fmt.Sprintf(" (%s each here: about %s in all)", e.PerEvaluation.Round(time.Microsecond), roundDuration(time.Duration(float64(e.PerEvaluation)*e.Evaluations)))
	}
	return s + fmt.Sprintf("; that is more than the limit of %d evaluations", e.Limit)
}

func roundDuration(d time.Duration) string {
	if d <= 0 || d > 100*365*24*time.Hour {
		return "more than a century"
	}
	switch {
	case d > 48*time.Hour:
		return fmt.Sprintf("%.0f days", d.Hours()/24)
	case d > 2*time.Hour:
		return fmt.Sprintf("%.1f hours", d.Hours())
	}
	return d.Round(time.Second).String()
}

// part is a connected component of the network with action atoms or
// utilities.
type part struct {
	actions []int // indices into Problem.Actions, increasing
	sub     *ground.Network
	subAct  []int32   // the atom of sub of each action
	coef    []float64 // scaled utility coefficient of each atom of sub
	hard    []*hardPart
	base    []int32 // atoms of sub that are neither actions nor auxiliary
	aux     []int32 // auxiliary atoms of sub (defined by hard clauses)
}

// parts splits the network into its parts: the connected components with
// action atoms or utilities (those without action atoms contribute a
// constant, evaluated once).
func (p *Problem) parts() []*part {
	comps := p.Net.Components()
	var out []*part
	partOfAction := make([]int, len(p.Actions))
	for _, c := range comps {
		has := false
		for _, a := range c.Atoms {
			if p.isAction[a] >= 0 || p.Coef[a] != 0 {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		var sub *ground.Network
		if len(c.Atoms) == p.Net.NumAtoms() && len(c.Clauses) == p.Net.NumClauses() {
			sub = p.Net // one part: no copy
		} else {
			sub = p.Net.Sub(c)
		}
		pt := &part{sub: sub, coef: make([]float64, len(c.Atoms))}
		for i, a := range c.Atoms {
			pt.coef[i] = p.Coef[a]
			switch {
			case p.isAction[a] >= 0:
				partOfAction[p.isAction[a]] = len(out)
				pt.actions = append(pt.actions, p.isAction[a])
				pt.subAct = append(pt.subAct, int32(i))
			case p.isAux[a]:
				pt.aux = append(pt.aux, int32(i))
			default:
				pt.base = append(pt.base, int32(i))
			}
		}
		out = append(out, pt)
	}
	for _, hp := range p.feas.parts {
		pt := out[partOfAction[hp.actions[0]]]
		pt.hard = append(pt.hard, hp)
	}
	return out
}

// partEval computes the (scaled) expected utility of a part for values of
// its action atoms.
type partEval interface {
	eval(vals []bool) (float64, error)
	method() string
}

// newPartEval returns the evaluator of pt: enumeration of the part's
// worlds when they are few (exactAtoms) or variable elimination when its
// factors stay within exactWidth atoms, whichever is cheaper, else a BP frontier when the
// engine is belief propagation, the engine on the part otherwise.
func (p *Problem) newPartEval(ctx context.Context, pt *part, engine infer.Marginal, seed int64, exactAtoms, exactWidth int) (partEval, error) {
	var ve *veEval
	if exactWidth > 0 {
		ve = newVEEval(ctx, pt, exactWidth)
	}
	if exactAtoms >= 0 && len(pt.base) <= min(exactAtoms, 30) {
		// Enumeration visits 2^k worlds, a few clauses each; elimination
		// fills its tables: the cheaper.
		if ve == nil || math.Ldexp(4, len(pt.base)) <= ve.cost {
			return newEnumEval(ctx, pt), nil
		}
	}
	if ve != nil {
		return ve, nil
	}
	if e, ok := engines.Unwrap(engine).(bp.Engine); ok {
		o := e.Options
		o.Workers = 1
		bias := make([]float64, pt.sub.NumAtoms())
		for _, a := range pt.subAct {
			bias[a] = -Clamp
		}
		o.Options = infer.Options{Bias: bias, Seed: seed}
		f, err := bp.Start(ctx, pt.sub, o)
		if err != nil {
			return nil, err
		}
		return &frontierEval{ctx: ctx, pt: pt, front: f, state: make([]bool, len(pt.actions))}, nil
	}
	return &engineEval{ctx: ctx, pt: pt, engine: engine, seed: seed}, nil
}

// utility is the part's scaled expected utility for marginals marg of
// its atoms.
func (pt *part) utility(marg []float64, vals []bool) float64 {
	u := 0.0
	for i, c := range pt.coef {
		if c != 0 {
			u += c * marg[i]
		}
	}
	for i, a := range pt.subAct {
		if c := pt.coef[a]; c != 0 {
			u -= c * marg[a]
			if vals[i] {
				u += c
			}
		}
	}
	return u
}

// frontierEval keeps one BP frontier over the part and propagates only
// the change of the flipped action atoms.
type frontierEval struct {
	ctx         context.Context
	pt          *part
	front       *bp.Frontier
	state       []bool
	unconverged int
	atoms       []int32
	vals        []float64
}

func (f *frontierEval) method() string { return "belief propagation" }

func (f *frontierEval) eval(vals []bool) (float64, error) {
	f.atoms, f.vals = f.atoms[:0], f.vals[:0]
	for i, v := range vals {
		if f.state[i] != v {
			f.atoms = append(f.atoms, f.pt.subAct[i])
			f.vals = append(f.vals, clamp(v))
			f.state[i] = v
		}
	}
	if len(f.atoms) > 0 {
		if err := f.front.SetBias(f.ctx, f.atoms, f.vals); err != nil {
			return 0, err
		}
	}
	if !f.front.Stats.Converged {
		f.unconverged++
	}
	return f.pt.utility(f.front.Marginals(), vals), nil
}

// engineEval runs the marginal engine on the part.
type engineEval struct {
	ctx    context.Context
	pt     *part
	engine infer.Marginal
	seed   int64
}

func (e *engineEval) method() string { return e.engine.Name() }

func (e *engineEval) eval(vals []bool) (float64, error) {
	bias := make([]float64, e.pt.sub.NumAtoms())
	for i, a := range e.pt.subAct {
		bias[a] = clamp(vals[i])
	}
	marg, err := e.engine.Marginals(e.ctx, e.pt.sub, infer.Options{Bias: bias, Seed: e.seed})
	if err != nil {
		return 0, err
	}
	return e.pt.utility(marg, vals), nil
}

// enumEval computes the part's exact expected utility by enumerating the
// worlds of its base atoms in Gray-code order (one atom flips from one
// world to the next, and only its clauses are looked at again), with the
// action atoms at their values and each auxiliary atom at the value its
// hard definition forces.
type enumEval struct {
	ctx     context.Context
	pt      *part
	sub     *ground.Network
	y       []bool
	isAux   []bool
	auxOf   [][]int32 // per atom: the auxiliary atoms sharing a clause with it
	weights []float64 // +Inf for hard clauses
	nt      []int32   // per clause: its true literals
}

func newEnumEval(ctx context.Context, pt *part) *enumEval {
	sub := pt.sub
	e := &enumEval{ctx: ctx, pt: pt, sub: sub, y: make([]bool, sub.NumAtoms()), isAux: make([]bool, sub.NumAtoms()),
		auxOf: make([][]int32, sub.NumAtoms()), nt: make([]int32, sub.NumClauses())}
	for _, a := range pt.aux {
		e.isAux[a] = true
	}
	for _, u := range pt.aux {
		for _, c := range sub.Occurrences(u) {
			for _, l := range sub.Clause(int(c)) {
				if b := l.Atom(); !e.isAux[b] && !slices.Contains(e.auxOf[b], u) {
					e.auxOf[b] = append(e.auxOf[b], u)
				}
			}
		}
	}
	for c := range sub.NumClauses() {
		w := sub.Weight(c)
		if sub.IsHard(c) {
			w = math.Inf(1)
		}
		e.weights = append(e.weights, w)
	}
	return e
}

func (e *enumEval) method() string { return "exact enumeration" }

// state holds the running sums of a world: the weight of its satisfied
// soft clauses, its violated hard clauses and its utility.
type enumState struct {
	s    float64
	viol int
	u    float64
}

// set gives atom a the value v, updating the clause counts and st.
func (e *enumEval) set(a int32, v bool, st *enumState) {
	if e.y[a] == v {
		return
	}
	e.y[a] = v
	if v {
		st.u += e.pt.coef[a]
	} else {
		st.u -= e.pt.coef[a]
	}
	for _, c := range e.sub.Occurrences(a) {
		before := e.nt[c] > 0
		for _, l := range e.sub.Clause(int(c)) {
			if l.Atom() != a {
				continue
			}
			if l.True(e.y) { // turned true
				e.nt[c]++
			} else {
				e.nt[c]--
			}
		}
		if after := e.nt[c] > 0; after != before {
			w := e.weights[c]
			switch {
			case math.IsInf(w, 1) && after:
				st.viol--
			case math.IsInf(w, 1):
				st.viol++
			case after:
				st.s += w
			default:
				st.s -= w
			}
		}
	}
}

// derive gives auxiliary atom u the value its hard definition allows.
func (e *enumEval) derive(u int32, st *enumState) {
	e.set(u, false, st)
	for _, c := range e.sub.Occurrences(u) {
		if e.nt[c] == 0 && math.IsInf(e.weights[c], 1) {
			e.set(u, true, st)
			return
		}
	}
}

func (e *enumEval) eval(vals []bool) (float64, error) {
	pt, sub := e.pt, e.sub
	y := e.y
	clear(y)
	for i, a := range pt.subAct {
		y[a] = vals[i]
	}
	st := enumState{}
	for a, c := range pt.coef {
		if y[a] {
			st.u += c
		}
	}
	for c := range sub.NumClauses() {
		n := int32(0)
		for _, l := range sub.Clause(c) {
			if l.True(y) {
				n++
			}
		}
		e.nt[c] = n
		switch w := e.weights[c]; {
		case n == 0 && math.IsInf(w, 1):
			st.viol++
		case n > 0 && !math.IsInf(w, 1):
			st.s += w
		}
	}
	for _, u := range pt.aux {
		e.derive(u, &st)
	}
	nb := len(pt.base)
	mx, z, acc := math.Inf(-1), 0.0, 0.0
	for w := 0; w < 1<<nb; w++ {
		if w > 0 {
			i := bits.TrailingZeros(uint(w)) // the atom that flips from Gray code w-1 to w
			b := pt.base[i]
			e.set(b, !y[b], &st)
			for _, u := range e.auxOf[b] {
				e.derive(u, &st)
			}
			if w&4095 == 0 {
				if err := e.ctx.Err(); err != nil {
					return 0, err
				}
			}
		}
		if st.viol > 0 {
			continue
		}
		if st.s > mx {
			r := math.Exp(mx - st.s)
			z, acc, mx = z*r, acc*r, st.s
		}
		q := math.Exp(st.s - mx)
		z += q
		acc += q * st.u
	}
	if z == 0 {
		return math.Inf(-1), nil
	}
	return acc / z, nil
}

// SolveOptions are the settings of Solve.
type SolveOptions struct {
	// Engine computes the marginals (required; see AutoEngine).
	Engine infer.Marginal
	// MaxExact is the largest number of action atoms of a part whose
	// assignments are all evaluated (default DefaultMaxExact; negative:
	// never); a part with more is searched by greedy flips.
	MaxExact int
	// MaxEvaluations bounds the evaluations of the exhaustive search of
	// one part (default DefaultMaxEvaluations): Solve refuses a larger one
	// with a *TooLargeError.
	MaxEvaluations int64
	// ExactAtoms is the largest number of atoms of a part (besides its
	// action atoms and the auxiliary atoms of utility formulas) whose
	// worlds are enumerated for its exact expected utility instead of
	// asking Engine (default DefaultExactAtoms; negative: never).
	ExactAtoms int
	// ExactWidth is the largest factor, in atoms, that variable
	// elimination may build for the exact expected utility of a part that
	// is not enumerated, instead of asking Engine (default
	// DefaultExactWidth; negative: never).
	ExactWidth int
	// Restarts is the number of greedy searches of a part with more than
	// MaxExact action atoms (default DefaultRestarts).
	Restarts int
	// Seed seeds the engine (every evaluation uses the same seed, so that
	// sampled utilities of nearby assignments are compared on the same
	// random numbers) and the restarts.
	Seed int64
	// Progress, when not nil, is called every 16 evaluations and at the
	// end of each part's search, from the goroutine that called Solve.
	Progress func(Progress)
}

// Result is the decision Solve found.
type Result struct {
	// Actions holds the value of each action atom (Problem.Actions).
	Actions []bool
	// Utility is its expected utility: ±Inf when it lies beyond the
	// float64 range (see Scale and Text).
	Utility float64
	// Scaled is the expected utility times 2^-Scale (Problem.Scale): it is
	// finite.
	Scaled float64
	Scale  int
	// Exact is set when every assignment of every part was evaluated.
	Exact bool
	// Parts counts the independent parts with action atoms, ExactParts
	// those searched exhaustively, GreedyActions the action atoms of the
	// others.
	Parts, ExactParts, GreedyActions int
	// Restarts is the number of greedy searches of each greedy part.
	Restarts int
	// Evaluations counts the expected utilities of parts computed.
	Evaluations int
	// Methods names how the parts' expected utilities were computed:
	// "exact enumeration", "variable elimination" (both exact), "belief
	// propagation" (a frontier per part) or the engine's name, each once.
	Methods []string
	// Unconverged counts the evaluations after which the BP frontier had
	// not converged (within its iteration limit): their utilities are
	// approximate beyond BP's own approximation.
	Unconverged int
	// Meaning is the problem's meaning; under AlchemyMeaning the search is
	// Alchemy's (Exact is false), which evaluated Flips assignments.
	Meaning Meaning
	Flips   int
}

// Text returns the expected utility in decimal, exact even when it lies
// beyond the float64 range.
func (r *Result) Text() string {
	if r.Scale == 0 || math.IsInf(r.Scaled, 0) {
		return strconv.FormatFloat(r.Utility, 'g', -1, 64)
	}
	f := new(big.Float).SetFloat64(r.Scaled)
	f.SetMantExp(f, r.Scale)
	return f.Text('g', -1)
}

// Solve searches for the assignment of the action atoms of largest
// expected utility, part by part (the parts are the network's connected
// components): every assignment of a part of at most MaxExact action atoms
// (in Gray-code order, one flip apart), greedy search otherwise: from "no
// action" (or, when that is infeasible, from a feasible assignment found
// by DPLL) and then from random assignments, flip the action atom that
// raises the expected utility most until none does. Ties go to the
// assignment met first. Infeasible assignments (Feasible) are skipped;
// when every assignment is infeasible, Solve fails with an error wrapping
// ErrInfeasible. An exhaustive search of more than MaxEvaluations
// assignments is refused with a *TooLargeError before it starts. Solve
// stops with the context's error when it is cancelled.
func (p *Problem) Solve(ctx context.Context, opt SolveOptions) (*Result, error) {
	if opt.Engine == nil {
		return nil, errors.New("decision: no marginal engine")
	}
	if opt.MaxExact == 0 {
		opt.MaxExact = DefaultMaxExact
	}
	if opt.Restarts <= 0 {
		opt.Restarts = DefaultRestarts
	}
	if opt.MaxEvaluations <= 0 {
		opt.MaxEvaluations = DefaultMaxEvaluations
	}
	if opt.ExactAtoms == 0 {
		opt.ExactAtoms = DefaultExactAtoms
	}
	if opt.ExactWidth == 0 {
		opt.ExactWidth = DefaultExactWidth
	}
	feasible, err := p.feasibleActions()
	if err != nil {
		return nil, err
	}
	parts := p.parts()
	evals := make([]partEval, len(parts))
	for i, pt := range parts {
		if evals[i], err = p.newPartEval(ctx, pt, opt.Engine, opt.Seed, opt.ExactAtoms, opt.ExactWidth); err != nil {
			return nil, err
		}
	}
	if p.Meaning == AlchemyMeaning {
		return p.solveAlchemy(ctx, opt, parts, evals, feasible)
	}
	// Refuse an exhaustive search that cannot finish, before any.
	for i, pt := range parts {
		n := len(pt.actions)
		if n > opt.MaxExact || n < 1 || n < 63 && int64(1)<<n <= opt.MaxEvaluations {
			continue
		}
		e := &TooLargeError{Actions: n, Evaluations: math.Ldexp(1, n), Limit: opt.MaxEvaluations,
			Method: evals[i].method(), Atoms: pt.sub.NumAtoms(), Clauses: pt.sub.NumClauses()}
		e.PerEvaluation = timeEvaluations(ctx, evals[i], n)
		return nil, e
	}
	s := &searcher{ctx: ctx, p: p, opt: opt, cur: make([]bool, len(p.Actions)), feasible: feasible}
	res := &Result{Actions: make([]bool, len(p.Actions)), Exact: true, Scale: p.Scale, Restarts: opt.Restarts}
	total := p.Const
	withActions := 0
	for _, pt := range parts {
		if len(pt.actions) > 0 {
			withActions++
		}
	}
	res.Parts = withActions
	k := 0
	for i, pt := range parts {
		if m := evals[i].method(); !slices.Contains(res.Methods, m) {
			res.Methods = append(res.Methods, m)
		}
		var u float64
		if len(pt.actions) == 0 {
			s.n++
			if u, err = evals[i].eval(nil); err != nil {
				return nil, err
			}
		} else {
			k++
			s.prog = Progress{Part: k, Parts: withActions, Actions: len(pt.actions)}
			if len(pt.actions) <= opt.MaxExact {
				u, err = s.exhaustive(pt, evals[i])
				res.ExactParts++
			} else {
				u, err = s.greedy(pt, evals[i], uint64(i))
				res.Exact = false
				res.GreedyActions += len(pt.actions)
			}
			if err != nil {
				return nil, err
			}
			for j, a := range pt.actions {
				res.Actions[a] = s.best[j]
			}
		}
		if math.IsInf(u, -1) {
			return nil, ErrInfeasible // not reached: feasibleActions found one
		}
		total += u
		if f, ok := evals[i].(*frontierEval); ok {
			res.Unconverged += f.unconverged
		}
	}
	res.Evaluations = s.n
	res.Scaled = total
	res.Utility = math.Ldexp(total, p.Scale)
	return res, nil
}

// timeEvaluations measures one evaluation of a part with n action atoms
// (the median of up to 5 within a tenth of a second).
func timeEvaluations(ctx context.Context, ev partEval, n int) time.Duration {
	vals := make([]bool, n)
	var ds []time.Duration
	start := time.Now()
	for i := 0; i < 5 && time.Since(start) < 100*time.Millisecond; i++ {
		vals[i%n] = !vals[i%n]
		t0 := time.Now()
		if _, err := ev.eval(vals); err != nil || ctx.Err() != nil {
			break
		}
		ds = append(ds, time.Since(t0))
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// searcher holds the state of Solve's search.
type searcher struct {
	ctx      context.Context
	p        *Problem
	opt      SolveOptions
	cur      []bool // every action atom; a part's search sets its own
	feasible []bool
	n        int
	prog     Progress
	best     []bool // the best values of the current part's actions
}

// evalAt evaluates the part at the values of its actions in cur.
func (s *searcher) evalAt(pt *part, ev partEval, vals []bool) (float64, error) {
	for j, a := range pt.actions {
		vals[j] = s.cur[a]
	}
	if ok, err := s.p.feasibleIn(pt.hard, s.cur); err != nil || !ok {
		return math.Inf(-1), err
	}
	s.n++
	if s.n&63 == 0 {
		if err := s.ctx.Err(); err != nil {
			return 0, err
		}
	}
	return ev.eval(vals)
}

func (s *searcher) report(best float64) {
	if s.opt.Progress == nil {
		return
	}
	s.prog.Evaluations, s.prog.Best = s.n, math.Ldexp(best, s.p.Scale)
	s.opt.Progress(s.prog)
}

// exhaustive evaluates every assignment of the part's action atoms.
func (s *searcher) exhaustive(pt *part, ev partEval) (float64, error) {
	n := len(pt.actions)
	vals := make([]bool, n)
	for _, a := range pt.actions {
		s.cur[a] = false
	}
	s.prog.Exhaustive, s.prog.Total = true, int64(1)<<n
	best := math.Inf(-1)
	s.best = make([]bool, n)
	consider := func(u float64) {
		if u > best {
			best = u
			for j, a := range pt.actions {
				s.best[j] = s.cur[a]
			}
		}
	}
	u, err := s.evalAt(pt, ev, vals)
	if err != nil {
		return 0, err
	}
	consider(u)
	for k := int64(1); k < int64(1)<<n; k++ {
		i := 0 // the bit that changes from Gray code k-1 to k
		for (k>>i)&1 == 0 {
			i++
		}
		a := pt.actions[i]
		s.cur[a] = !s.cur[a]
		if u, err = s.evalAt(pt, ev, vals); err != nil {
			return 0, err
		}
		consider(u)
		if k&15 == 0 {
			s.prog.Done = k + 1
			s.report(best)
		}
	}
	s.prog.Done = s.prog.Total
	s.report(best)
	for j, a := range pt.actions {
		s.cur[a] = s.best[j]
	}
	return best, nil
}

// greedy runs the greedy searches of the part.
func (s *searcher) greedy(pt *part, ev partEval, salt uint64) (float64, error) {
	n := len(pt.actions)
	vals := make([]bool, n)
	r := rand.New(rand.NewPCG(uint64(s.opt.Seed), 0x6d6575+salt))
	best := math.Inf(-1)
	s.best = make([]bool, n)
	s.prog.Exhaustive, s.prog.Restarts = false, s.opt.Restarts
	consider := func(u float64) {
		if u > best {
			best = u
			for j, a := range pt.actions {
				s.best[j] = s.cur[a]
			}
		}
	}
	last := s.n
	for restart := range s.opt.Restarts {
		s.prog.Restart = restart + 1
		for _, a := range pt.actions {
			s.cur[a] = restart > 0 && r.IntN(2) == 1
		}
		if restart == 0 {
			if ok, err := s.p.feasibleIn(pt.hard, s.cur); err != nil {
				return 0, err
			} else if !ok {
				for _, a := range pt.actions {
					s.cur[a] = s.feasible[a]
				}
			}
		}
		u, err := s.evalAt(pt, ev, vals)
		if err != nil {
			return 0, err
		}
		consider(u)
		for {
			bestI, bestU := -1, u
			for i, a := range pt.actions {
				s.cur[a] = !s.cur[a]
				v, err := s.evalAt(pt, ev, vals)
				s.cur[a] = !s.cur[a]
				if err != nil {
					return 0, err
				}
				if better(v, bestU) {
					bestI, bestU = i, v
				}
				if s.n-last >= 16 {
					last = s.n
					s.report(best)
				}
			}
			if bestI < 0 {
				break
			}
			a := pt.actions[bestI]
			s.cur[a] = !s.cur[a]
			u = bestU
			consider(u)
		}
	}
	s.report(best)
	for j, a := range pt.actions {
		s.cur[a] = s.best[j]
	}
	return best, nil
}

// solveAlchemy is Solve under AlchemyMeaning: Alchemy's search over every
// action atom (searcher.alchemy).
func (p *Problem) solveAlchemy(ctx context.Context, opt SolveOptions, parts []*part, evals []partEval, feasible []bool) (*Result, error) {
	s := &searcher{ctx: ctx, p: p, opt: opt, cur: make([]bool, len(p.Actions)), feasible: feasible}
	res := &Result{Scale: p.Scale, Meaning: AlchemyMeaning, Parts: 0}
	for i, pt := range parts {
		if len(pt.actions) > 0 {
			res.Parts++
			res.GreedyActions += len(pt.actions)
		}
		if m := evals[i].method(); !slices.Contains(res.Methods, m) {
			res.Methods = append(res.Methods, m)
		}
	}
	u, err := s.alchemy(parts, evals, res)
	if err != nil {
		return nil, err
	}
	if math.IsInf(u, -1) {
		return nil, ErrInfeasible // not reached: the search keeps feasible assignments
	}
	res.Actions = slices.Clone(s.cur)
	for i := range parts {
		if f, ok := evals[i].(*frontierEval); ok {
			res.Unconverged += f.unconverged
		}
	}
	res.Evaluations = s.n
	res.Scaled = u
	res.Utility = math.Ldexp(u, p.Scale)
	return res, nil
}
