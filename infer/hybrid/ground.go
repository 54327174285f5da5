// Package hybrid does inference and weight learning in hybrid Markov logic
// networks (Wang and Domingos, AAAI 2008): models whose formulas may carry
// numeric terms, polynomials over real-valued atoms (mln.Feature).
//
// Ground makes a Problem from a model and its evidence: the Boolean atoms
// that are not evidence, the real-valued atoms without a value in the
// evidence (the continuous variables), and the ground features. MAP runs
// hybrid MaxWalkSAT (MaxWalkSAT's flips of Boolean atoms, with the
// continuous variables optimised by L-BFGS after each flip); Sample runs
// hybrid MC-SAT (slice sampling: each iteration draws a level for every
// ground feature below its current value and moves the Boolean atoms and,
// by stepping-out and shrinkage, the continuous variables within the set of
// states above all levels); Learn fits the weights to a database by
// gradient ascent on the conditional log-likelihood of the query atoms,
// with expectations from Sample.
//
// Hard formulas (a trailing '.') are constraints, not heavy weights: the
// model's distribution is zero on the states that violate one of their
// groundings. MAP repairs violated hard groundings before anything else
// and reports (ErrHard) when its best state still violates one; Sample
// starts from a state that satisfies them all and never leaves that set;
// Learn keeps them fixed. A formula with a numeric term cannot be hard
// (the parser refuses it).
package hybrid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// MaxGroundFeatures bounds the ground features of a Problem.
const MaxGroundFeatures = 5_000_000

// HardWeight is the number Problem.Weights and Learn hold for hard
// formulas. The engines do not use it: hard formulas are constraints.
const HardWeight = 20.0

// ErrHard is wrapped by the errors of MAP and Sample when they find no
// state satisfying every ground hard formula.
var ErrHard = errors.New("hybrid: no state satisfying the hard formulas was found")

// Atom is a ground atom of a Problem.
type Atom struct {
	Pred mln.PredID
	Args []mln.ConstID
}

// Problem is a ground hybrid model.
type Problem struct {
	Model    *mln.Model
	Features []*mln.Feature // the first-order features (templates)
	// Weights holds one weight per template (hard ones at HardWeight,
	// which the engines ignore: hard formulas are constraints).
	Weights []float64

	// HardFalse counts the groundings of hard formulas that the evidence
	// alone falsifies: no state satisfies them, and the engines leave them
	// out (the evidence contradicts the model).
	HardFalse int

	Bools []Atom // the Boolean variables
	Reals []Atom // the continuous variables

	ground  []gfeat
	boolOcc [][]int32 // ground features of each Boolean variable
	realOcc [][]int32 // ground features of each continuous variable

	hard  []int32   // the ground hard formulas
	gvars [][]int32 // the Boolean variables of each ground feature's cond

	boolIndex map[string]int32
	realIndex map[string]int32

	// wexp is the power of two the Weights have been divided by (see
	// scaled); 0 for the Problem Ground returns.
	wexp int
	// maxConst is the largest magnitude of a number in the ground terms
	// (at least 1): the scale beyond which a continuous variable's MAP
	// value is taken to have run off to infinity.
	maxConst float64
}

// gfeat is a ground feature: weight Weights[tmpl] times cond times term,
// or, when hard, the constraint that cond holds.
type gfeat struct {
	tmpl int32
	hard bool
	cond *bexpr // nil: true
	term *nexpr // nil: 1
}

// bexpr is a ground Boolean expression over Boolean variables.
type bexpr struct {
	op   byte // 'v' variable, '!' not, '&' and, '|' or, '=' iff
	v    int32
	kids []*bexpr
}

// nexpr is a ground numeric expression over continuous variables.
type nexpr struct {
	op   byte // 'c' constant, 'x' variable, '+', '-', '*', 'n' negation, '^' power
	val  float64
	v    int32
	exp  int
	x, y *nexpr
}

// Options configures grounding.
type Options struct {
	// Query lists the open-world Boolean predicates: their atoms not in the
	// evidence are variables. The other Boolean predicates are closed
	// world (unlisted atoms are false). Real-valued atoms without a value
	// in the evidence are always variables.
	Query []mln.PredID
}

// Ground grounds the model's features against the evidence, stopping with
// ctx's error when ctx is cancelled.
func Ground(ctx context.Context, m *mln.Model, db *mln.Database, opt Options) (*Problem, error) {
	fs, err := m.Features()
	if err != nil {
		return nil, err
	}
	p := &Problem{Model: m, Features: fs, boolIndex: map[string]int32{}, realIndex: map[string]int32{}, maxConst: 1}
	for _, f := range fs {
		w := f.Weight
		if f.Hard {
			w = HardWeight
		}
		p.Weights = append(p.Weights, w)
	}
	g := &grounder{p: p, m: m, db: db, query: map[mln.PredID]bool{}}
	for _, q := range opt.Query {
		if m.IsReal(q) {
			continue
		}
		g.query[q] = true
	}
	for i, f := range fs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := g.feature(int32(i), f); err != nil {
			return nil, err
		}
	}
	p.boolOcc = make([][]int32, len(p.Bools))
	p.realOcc = make([][]int32, len(p.Reals))
	p.gvars = make([][]int32, len(p.ground))
	for i := range p.ground {
		gf := &p.ground[i]
		if gf.hard {
			p.hard = append(p.hard, int32(i))
		}
		p.gvars[i] = gf.cond.vars(nil)
		for _, v := range p.gvars[i] {
			p.boolOcc[v] = append(p.boolOcc[v], int32(i))
		}
		for _, v := range gf.term.vars(nil) {
			p.realOcc[v] = append(p.realOcc[v], int32(i))
		}
	}
	return p, nil
}

// NumGround returns the number of ground features.
func (p *Problem) NumGround() int { return len(p.ground) }

// BoolIndex returns the variable of Boolean atom pred(args), if it is one.
func (p *Problem) BoolIndex(pred mln.PredID, args []mln.ConstID) (int, bool) {
	i, ok := p.boolIndex[key(pred, args)]
	return int(i), ok
}

// RealIndex returns the variable of real-valued atom pred(args), if it is
// one.
func (p *Problem) RealIndex(pred mln.PredID, args []mln.ConstID) (int, bool) {
	i, ok := p.realIndex[key(pred, args)]
	return int(i), ok
}

func key(pred mln.PredID, args []mln.ConstID) string {
	return mln.BindingKey(append([]mln.ConstID{mln.ConstID(pred)}, args...))
}

type grounder struct {
	p     *Problem
	m     *mln.Model
	db    *mln.Database
	query map[mln.PredID]bool
	bind  []mln.ConstID
}

func (g *grounder) feature(t int32, f *mln.Feature) error {
	n := 1.0
	for _, v := range f.Free {
		n *= float64(len(g.m.Types[f.Vars[v].Type].Consts))
	}
	if n+float64(len(g.p.ground)) > MaxGroundFeatures {
		return fmt.Errorf("%s: the formula has %.0f groundings, more than the hybrid engine's bound of %d ground features", f.Pos, n, MaxGroundFeatures)
	}
	g.bind = make([]mln.ConstID, len(f.Vars))
	if len(f.PlusConsts) != len(f.Plus) {
		return fmt.Errorf("%s: the '+' variables of the formula are not bound (use Model.Features)", f.Pos)
	}
	for i, v := range f.Plus {
		g.bind[v] = f.PlusConsts[i]
	}
	var rec func(i int) error
	rec = func(i int) error {
		if i == len(f.Free) {
			return g.groundOne(t, f)
		}
		v := f.Free[i]
		for _, c := range g.m.Types[f.Vars[v].Type].Consts {
			g.bind[v] = c
			if err := rec(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return rec(0)
}

func (g *grounder) groundOne(t int32, f *mln.Feature) error {
	gf := gfeat{tmpl: t, hard: f.Hard}
	if f.Hard && (f.Term != nil || f.Cond == nil) {
		return fmt.Errorf("%s: a hard formula cannot have a numeric term", f.Pos)
	}
	if f.Cond != nil {
		c, val, err := g.cond(f, f.Cond)
		if err != nil {
			return err
		}
		if c == nil && !val {
			if f.Hard {
				g.p.HardFalse++
			}
			return nil // the feature is 0 in every world
		}
		if c == nil && f.Hard {
			return nil // a hard grounding the evidence satisfies
		}
		gf.cond = c
	}
	if f.Term != nil {
		var err error
		if gf.term, err = g.term(f, f.Term); err != nil {
			return err
		}
		if gf.term.op == 'c' && gf.cond == nil {
			return nil // a constant: no effect on the distribution
		}
	} else if gf.cond == nil {
		return nil
	}
	g.p.ground = append(g.p.ground, gf)
	return nil
}

func (g *grounder) args(ts []mln.Term) []mln.ConstID {
	out := make([]mln.ConstID, len(ts))
	for i, t := range ts {
		if t.IsVar() {
			out[i] = g.bind[t.Var()]
		} else {
			out[i] = t.Const()
		}
	}
	return out
}

// cond grounds a Cond: a variable expression, or (nil, value) when the
// evidence decides it.
func (g *grounder) cond(f *mln.Feature, c *mln.Cond) (*bexpr, bool, error) {
	switch c.Kind {
	case mln.CondLit:
		l := c.Lit
		args := g.args(l.Args)
		if l.Pred < 0 {
			if l.Builtin.IsArith() || len(args) != 2 {
				return nil, false, fmt.Errorf("%s: the hybrid engine does not support internal functions", f.Pos)
			}
			return nil, g.m.EvalBuiltin(l.Builtin, args[0], args[1]) != l.Neg, nil
		}
		if v, ok := g.db.Get(l.Pred, args); ok && v != mln.Unknown {
			return nil, (v == mln.True) != l.Neg, nil
		} else if !ok && !g.query[l.Pred] {
			return nil, l.Neg, nil
		}
		k := key(l.Pred, args)
		i, ok := g.p.boolIndex[k]
		if !ok {
			i = int32(len(g.p.Bools))
			g.p.boolIndex[k] = i
			g.p.Bools = append(g.p.Bools, Atom{Pred: l.Pred, Args: args})
		}
		e := &bexpr{op: 'v', v: i}
		if l.Neg {
			e = &bexpr{op: '!', kids: []*bexpr{e}}
		}
		return e, false, nil
	case mln.CondNot:
		e, v, err := g.cond(f, c.Kids[0])
		if err != nil || e == nil {
			return nil, !v, err
		}
		return &bexpr{op: '!', kids: []*bexpr{e}}, false, nil
	case mln.CondExist, mln.CondForall:
		// Expand over the domains of the quantified variables.
		and := c.Kind == mln.CondForall
		var kids []*bexpr
		var rec func(i int) (bool, error)
		rec = func(i int) (bool, error) {
			if i == len(c.Vars) {
				e, v, err := g.cond(f, c.Kids[0])
				if err != nil {
					return false, err
				}
				if e == nil {
					return v != and, nil // decided: true for EXIST, false for FORALL
				}
				kids = append(kids, e)
				return false, nil
			}
			for _, cst := range g.m.Types[f.Vars[c.Vars[i]].Type].Consts {
				g.bind[c.Vars[i]] = cst
				if done, err := rec(i + 1); done || err != nil {
					return done, err
				}
			}
			return false, nil
		}
		done, err := rec(0)
		if err != nil {
			return nil, false, err
		}
		if done {
			return nil, !and, nil
		}
		return junction(and, kids)
	case mln.CondAnd, mln.CondOr:
		and := c.Kind == mln.CondAnd
		var kids []*bexpr
		for _, k := range c.Kids {
			e, v, err := g.cond(f, k)
			if err != nil {
				return nil, false, err
			}
			if e == nil {
				if v != and {
					return nil, v, nil
				}
				continue
			}
			kids = append(kids, e)
		}
		return junction(and, kids)
	case mln.CondIff:
		x, xv, err := g.cond(f, c.Kids[0])
		if err != nil {
			return nil, false, err
		}
		for _, k := range c.Kids[1:] {
			y, yv, err := g.cond(f, k)
			if err != nil {
				return nil, false, err
			}
			switch {
			case x == nil && y == nil:
				xv = xv == yv
			case x == nil:
				x = y
				if !xv {
					x = &bexpr{op: '!', kids: []*bexpr{y}}
				}
			case y == nil:
				if !yv {
					x = &bexpr{op: '!', kids: []*bexpr{x}}
				}
			default:
				x = &bexpr{op: '=', kids: []*bexpr{x, y}}
			}
		}
		return x, xv, nil
	}
	return nil, false, fmt.Errorf("%s: unsupported formula node", f.Pos)
}

func junction(and bool, kids []*bexpr) (*bexpr, bool, error) {
	switch len(kids) {
	case 0:
		return nil, and, nil
	case 1:
		return kids[0], false, nil
	}
	op := byte('|')
	if and {
		op = '&'
	}
	return &bexpr{op: op, kids: kids}, false, nil
}

// term grounds a numeric term, folding constants. A folded constant
// beyond float64's range (the evidence's values raised to a power, say) is
// an error at the formula's position naming the evidence atoms of the
// grounding's term.
func (g *grounder) term(f *mln.Feature, t *mln.NumTerm) (*nexpr, error) {
	konst := func(v float64) (*nexpr, error) {
		if !finite(v) {
			var ev []string
			g.evidenceAtoms(f.Term, &ev)
			return nil, fmt.Errorf("%s: the numeric term overflows float64 (a value beyond ±1.8e308) in the grounding with %s", f.Pos, strings.Join(ev, ", "))
		}
		g.p.maxConst = max(g.p.maxConst, math.Abs(v))
		return &nexpr{op: 'c', val: v}, nil
	}
	switch t.Kind {
	case mln.NumConst:
		return konst(t.Value)
	case mln.NumAtom:
		args := g.args(t.Args)
		if v, ok := g.db.Real(t.Pred, args); ok {
			return konst(v)
		}
		k := key(t.Pred, args)
		i, ok := g.p.realIndex[k]
		if !ok {
			i = int32(len(g.p.Reals))
			g.p.realIndex[k] = i
			g.p.Reals = append(g.p.Reals, Atom{Pred: t.Pred, Args: args})
		}
		return &nexpr{op: 'x', v: i}, nil
	case mln.NumNeg:
		x, err := g.term(f, t.X)
		if err != nil {
			return nil, err
		}
		if x.op == 'c' {
			return konst(-x.val)
		}
		return &nexpr{op: 'n', x: x}, nil
	case mln.NumPow:
		x, err := g.term(f, t.X)
		if err != nil {
			return nil, err
		}
		if x.op == 'c' {
			return konst(math.Pow(x.val, float64(t.Exp)))
		}
		return &nexpr{op: '^', x: x, exp: t.Exp}, nil
	}
	x, err := g.term(f, t.X)
	if err != nil {
		return nil, err
	}
	y, err := g.term(f, t.Y)
	if err != nil {
		return nil, err
	}
	op := map[mln.NumKind]byte{mln.NumAdd: '+', mln.NumSub: '-', mln.NumMul: '*'}[t.Kind]
	e := &nexpr{op: op, x: x, y: y}
	if x.op == 'c' && y.op == 'c' {
		return konst(e.eval(nil))
	}
	return e, nil
}

// evidenceAtoms appends the real-valued atoms of t that the evidence gives
// values, with their values, in the current binding.
func (g *grounder) evidenceAtoms(t *mln.NumTerm, out *[]string) {
	if t == nil {
		return
	}
	if t.Kind == mln.NumAtom {
		args := g.args(t.Args)
		if v, ok := g.db.Real(t.Pred, args); ok {
			s := fmt.Sprintf("%s = %g", g.m.AtomString(t.Pred, args), v)
			if !slices.Contains(*out, s) {
				*out = append(*out, s)
			}
		}
		return
	}
	g.evidenceAtoms(t.X, out)
	g.evidenceAtoms(t.Y, out)
}

// vars appends the variables of e (each once).
func (e *bexpr) vars(out []int32) []int32 {
	if e == nil {
		return out
	}
	if e.op == 'v' {
		if !slices.Contains(out, e.v) {
			out = append(out, e.v)
		}
		return out
	}
	for _, k := range e.kids {
		out = k.vars(out)
	}
	return out
}

func (e *bexpr) eval(b []bool) bool {
	switch e.op {
	case 'v':
		return b[e.v]
	case '!':
		return !e.kids[0].eval(b)
	case '&':
		for _, k := range e.kids {
			if !k.eval(b) {
				return false
			}
		}
		return true
	case '|':
		for _, k := range e.kids {
			if k.eval(b) {
				return true
			}
		}
		return false
	}
	return e.kids[0].eval(b) == e.kids[1].eval(b)
}

func (e *nexpr) vars(out []int32) []int32 {
	if e == nil {
		return out
	}
	if e.op == 'x' {
		if !slices.Contains(out, e.v) {
			out = append(out, e.v)
		}
		return out
	}
	return e.y.vars(e.x.vars(out))
}

func (e *nexpr) eval(x []float64) float64 {
	switch e.op {
	case 'c':
		return e.val
	case 'x':
		return x[e.v]
	case '+':
		return e.x.eval(x) + e.y.eval(x)
	case '-':
		return e.x.eval(x) - e.y.eval(x)
	case '*':
		return e.x.eval(x) * e.y.eval(x)
	case 'n':
		return -e.x.eval(x)
	}
	return math.Pow(e.x.eval(x), float64(e.exp))
}

// grad adds up times the gradient of e at x to g.
func (e *nexpr) grad(x []float64, up float64, g []float64) {
	switch e.op {
	case 'x':
		g[e.v] += up
	case '+':
		e.x.grad(x, up, g)
		e.y.grad(x, up, g)
	case '-':
		e.x.grad(x, up, g)
		e.y.grad(x, -up, g)
	case '*':
		e.x.grad(x, up*e.y.eval(x), g)
		e.y.grad(x, up*e.x.eval(x), g)
	case 'n':
		e.x.grad(x, -up, g)
	case '^':
		if e.exp > 0 {
			e.x.grad(x, up*float64(e.exp)*math.Pow(e.x.eval(x), float64(e.exp-1)), g)
		}
	}
}

// value returns the feature value of ground feature i (indicator times
// term) in state (b, x).
func (p *Problem) value(i int32, b []bool, x []float64) float64 {
	gf := &p.ground[i]
	if gf.cond != nil && !gf.cond.eval(b) {
		return 0
	}
	if gf.term == nil {
		return 1
	}
	return gf.term.safeEval(x)
}

// logWeight returns the sum of the weighted values of the soft features in
// state (b, x).
func (p *Problem) logWeight(b []bool, x []float64) float64 {
	return p.sumWeighted(nil, true, b, x)
}

// LogWeight returns the log of the unnormalised probability of state
// (b, x): the sum of the weighted values of the soft features, or -Inf when
// the state violates a ground hard formula.
func (p *Problem) LogWeight(b []bool, x []float64) float64 {
	if p.HardViolated(b) > 0 {
		return math.Inf(-1)
	}
	return p.logWeight(b, x)
}

// SoftLogWeight returns the sum of the weighted values of the soft
// features in state (b, x), whether or not it satisfies the hard formulas.
func (p *Problem) SoftLogWeight(b []bool, x []float64) float64 { return p.logWeight(b, x) }

// NumHard returns the number of ground hard formulas (those the evidence
// does not decide).
func (p *Problem) NumHard() int { return len(p.hard) }

// HardViolated returns the number of ground hard formulas that the
// Boolean values b violate (not counting HardFalse).
func (p *Problem) HardViolated(b []bool) int {
	n := 0
	for _, i := range p.hard {
		if !p.ground[i].cond.eval(b) {
			n++
		}
	}
	return n
}

// Counts returns, for each template, the sum of the values of its ground
// features in state (b, x).
func (p *Problem) Counts(b []bool, x []float64) []float64 {
	n := make([]float64, len(p.Features))
	for i := range p.ground {
		n[p.ground[i].tmpl] += p.value(int32(i), b, x)
	}
	return n
}

// ErrImproper is wrapped by the errors of MAP and Sample when a continuous
// variable's density is flat: no soft feature with a non-zero weight
// constrains it (in the model, or given the Boolean values of a state), so
// the distribution cannot be normalised.
var ErrImproper = errors.New("hybrid: improper density")

// constrained reports whether continuous variable v is in a soft feature
// with a non-zero weight, whose Boolean part b makes true (b nil: can make
// true).
func (p *Problem) constrained(v int32, b []bool) bool {
	for _, f := range p.realOcc[v] {
		gf := &p.ground[f]
		if p.Weights[gf.tmpl] != 0 && (b == nil || gf.cond == nil || gf.cond.eval(b)) {
			return true
		}
	}
	return false
}

// checkProper returns an error wrapping ErrImproper for the first
// continuous variable that no soft feature with a non-zero weight
// constrains (given the Boolean values b, or in any state when b is nil).
func (p *Problem) checkProper(b []bool) error {
	for v := range p.Reals {
		if !p.constrained(int32(v), b) {
			return p.improper(int32(v), b)
		}
	}
	return nil
}

// improper returns the error of checkProper for variable v.
func (p *Problem) improper(v int32, b []bool) error {
	a := p.Reals[v]
	var zero, off []string
	for _, f := range p.realOcc[v] {
		gf := &p.ground[f]
		pos := p.Features[gf.tmpl].Pos.String()
		switch {
		case p.Weights[gf.tmpl] == 0:
			if !slices.Contains(zero, pos) {
				zero = append(zero, pos)
			}
		case !slices.Contains(off, pos):
			off = append(off, pos)
		}
	}
	msg := fmt.Sprintf("hybrid: the density of %s is improper (flat, it cannot be normalised)", p.Model.AtomString(a.Pred, a.Args))
	if b != nil && len(off) > 0 {
		msg += fmt.Sprintf(" in a state where the formulas at %s are false: no formula with a non-zero weight then constrains it", strings.Join(off, ", "))
	} else {
		msg += ": no formula with a non-zero weight constrains it"
		if len(zero) > 0 {
			msg += fmt.Sprintf(" (weight 0 at %s)", strings.Join(zero, ", "))
		}
	}
	return &improperError{msg: msg}
}

type improperError struct{ msg string }

func (e *improperError) Error() string { return e.msg }
func (e *improperError) Unwrap() error { return ErrImproper }
