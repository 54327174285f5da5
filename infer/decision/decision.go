// Package decision does maximum-expected-utility inference in Markov logic
// decision networks (Nath and Domingos 2009): an MLN whose formulas may
// carry utilities ("w:u formula", ":u formula") and some of whose
// predicates are actions, atoms the decision maker sets. The expected
// utility of an assignment a of the action atoms is
//
//	EU(a) = Σ_f u_f Σ_{groundings g of f} P(g true | evidence, a)
//
// over the assignments a that are feasible (some world satisfies every
// hard clause given the evidence and a; decided exactly by DPLL, see
// Feasible), and Solve searches for the assignment of largest EU. It works
// on the connected components of the ground network (its parts), whose
// expected utilities add up: every assignment of a part with few action
// atoms (SolveOptions.MaxExact), greedy single flips with restarts
// otherwise. A part's EU is exact, by enumerating its worlds or by
// variable elimination, when the part is small or thin enough; otherwise
// it comes from the marginals of an infer.Marginal engine, the action
// atoms clamped by linear terms (infer.Options.Bias); with belief
// propagation (bp.Engine) each part keeps one expanding-frontier BP
// (bp.Frontier) and propagates only the change of the flipped action
// atoms. Utilities that could add up beyond the float64 range are scaled
// (Problem.Scale).
//
// A utility formula that is a single literal uses the marginals of its
// atoms directly. Any other utility formula f with free variables x gets an
// auxiliary predicate U(x) and the hard formula U(x) <=> f, which leaves the
// distribution unchanged and makes P(f(x) true) the marginal of U(x).
//
// Options.Meaning selects Alchemy 2.0's meaning of a decision network
// instead (AlchemyMeaning): the atoms of the utility formulas that are
// single literals are the actions, searched by Alchemy's single flips in
// turn (see AlchemyMeaning).
package decision

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// Clamp is the magnitude of the linear term that fixes an action atom to
// its value during marginal inference: the other value has relative
// weight e^-Clamp (about 1e-26).
const Clamp = 60.0

// DefaultMaxExact is the largest number of action atoms whose assignments
// Solve enumerates.
const DefaultMaxExact = 12

// DefaultRestarts is the number of greedy searches Solve runs beyond
// DefaultMaxExact action atoms (the first from "no action", the others from
// random assignments).
const DefaultRestarts = 4

// Problem is a ground decision problem: the network with the action atoms
// among its atoms, and the utility as a linear function of the atoms'
// marginals.
type Problem struct {
	// Net is the ground network.
	Net *ground.Network
	// Actions are the atoms of Net the search sets: the unknown atoms of
	// the action predicates (under AlchemyMeaning, of the single-literal
	// utility formulas), in network order (Order gives the order in which
	// they are listed).
	Actions []int32
	// Coef[a] is the utility gained per unit of probability that atom a
	// of Net is true, and Const the utility that does not depend on the
	// unknown atoms (groundings decided by the evidence).
	Coef  []float64
	Const float64
	// Scale is set when the utilities could add up beyond the float64
	// range: Coef and Const hold them times 2^-Scale, so that every sum of
	// them is finite (0 for utilities of ordinary size).
	Scale int

	isAction []int  // per atom: index into Actions, or -1
	isAux    []bool // per atom: of the auxiliary predicate of a utility formula
	feas     *feasibility

	// Meaning is the meaning the problem was built with (Options.Meaning).
	Meaning Meaning
	order   []int // Order; nil: network order
}

// Options of NewProblem.
type Options struct {
	// Ground options: Query and OpenWorld are added to the open-world
	// predicates (see NewProblem), ClosedWorld removes predicates from
	// them; MaxBytes, Workers and Progress are passed on.
	Ground ground.Options
	// Meaning says which atoms are the actions and how Solve searches
	// (default MarpleMeaning).
	Meaning Meaning
}

// NewProblem grounds the decision problem of model m (compiled, with
// utilities) under evidence db with the action predicates actions.
//
// The action predicates are open world: their atoms not listed in the
// evidence are the action atoms (a listed atom is a decision already
// made). Like Alchemy, every predicate of which the evidence lists no atom
// is open world too (unless declared closed world, as Tuffy's "*Pred" and
// the auxiliary predicates of functions are), as are opt.Ground.Query and
// OpenWorld, unless named in opt.Ground.ClosedWorld; the others are closed
// world.
//
// Under AlchemyMeaning actions must be empty: the actions are the unknown
// atoms of the groundings of the utility formulas that are single literals
// of open-world predicates (see AlchemyMeaning), and Problem.Order lists
// them in Alchemy's order.
//
// NewProblem adds the auxiliary predicates and hard formulas of non-literal
// utility formulas to m.
func NewProblem(ctx context.Context, m *mln.Model, db *mln.Database, actions []mln.PredID, opt Options) (*Problem, error) {
	switch {
	case opt.Meaning != MarpleMeaning && opt.Meaning != AlchemyMeaning:
		return nil, fmt.Errorf("decision: unknown meaning %d", int(opt.Meaning))
	case opt.Meaning == AlchemyMeaning && len(actions) > 0:
		return nil, errors.New("decision: under Alchemy's meaning the actions are the atoms of the utility formulas that are single literals, not named predicates")
	case opt.Meaning == MarpleMeaning && len(actions) == 0:
		return nil, errors.New("decision: no action predicates")
	}
	var util []int // utility formulas
	for fi, f := range m.Formulas {
		if f.HasUtility && f.Utility != 0 {
			util = append(util, fi)
		}
	}
	if len(util) == 0 {
		return nil, errors.New("decision: no formula has a utility (write \"w:u formula\" or \":u formula\")")
	}
	isAction := make([]bool, len(m.Preds))
	for _, p := range actions {
		isAction[p] = true
	}
	closed := make([]bool, len(m.Preds))
	for _, p := range opt.Ground.ClosedWorld {
		if isAction[p] {
			return nil, fmt.Errorf("decision: action predicate %s is named closed world", m.Preds[p].Name)
		}
		closed[p] = true
	}
	open := make([]bool, len(m.Preds))
	for _, p := range append(slices.Clone(opt.Ground.Query), opt.Ground.OpenWorld...) {
		open[p] = true
	}
	for p := range m.Preds {
		if !closed[p] && !isAction[p] && !m.Preds[p].Closed && db.Count(mln.PredID(p)) == 0 {
			open[p] = true
		}
	}
	var al *alchemyActions
	if opt.Meaning == AlchemyMeaning {
		var err error
		if al, err = findAlchemyActions(ctx, m, util, open); err != nil {
			return nil, err
		}
		actions = al.preds
		for _, p := range actions {
			isAction[p] = true
		}
	}

	// Literal utility formulas are read from atoms; the others get an
	// auxiliary predicate.
	type litUtil struct {
		c *mln.Clause
		u float64
	}
	var lits []litUtil
	type auxUtil struct {
		p mln.PredID
		u float64
	}
	var auxes []auxUtil
	for _, fi := range util {
		f := m.Formulas[fi]
		if c := literalClause(m, f); c != nil {
			lits = append(lits, litUtil{c, f.Utility})
			continue
		}
		p, err := addAux(m, fi)
		if err != nil {
			return nil, err
		}
		auxes = append(auxes, auxUtil{p, f.Utility})
	}

	// The auxiliary predicates are query predicates (every atom is in the
	// network).
	for len(open) < len(m.Preds) {
		open, isAction = append(open, false), append(isAction, false)
	}
	gopt := opt.Ground
	gopt.Query = slices.Clone(actions)
	for _, a := range auxes {
		gopt.Query = append(gopt.Query, a.p)
	}
	gopt.OpenWorld = nil
	for p := range m.Preds {
		if open[p] && !isAction[p] {
			gopt.OpenWorld = append(gopt.OpenWorld, mln.PredID(p))
		}
	}
	gopt.ClosedWorld = nil
	net, err := ground.Ground(ctx, m, db, gopt)
	if err != nil {
		return nil, err
	}
	pr := &Problem{Net: net, Coef: make([]float64, net.NumAtoms()), isAction: make([]int, net.NumAtoms()), isAux: make([]bool, net.NumAtoms()), Meaning: opt.Meaning}
	isAux := make([]bool, len(m.Preds))
	for _, x := range auxes {
		isAux[x.p] = true
	}
	// The largest the utilities can add up to: Σ |u_f| × groundings of f.
	bound := new(big.Float)
	for _, l := range lits {
		bound.Add(bound, new(big.Float).Mul(big.NewFloat(math.Abs(l.u)), big.NewFloat(groundings(m, l.c.Vars))))
	}
	for _, x := range auxes {
		vars := make([]mln.Var, len(m.Preds[x.p].Args))
		for i, t := range m.Preds[x.p].Args {
			vars[i] = mln.Var{Type: t}
		}
		bound.Add(bound, new(big.Float).Mul(big.NewFloat(math.Abs(x.u)), big.NewFloat(groundings(m, vars))))
	}
	if e := bound.MantExp(nil); e > maxUtilityExp {
		pr.Scale = e - maxUtilityExp
	}
	index := make(map[string]int32, net.NumAtoms())
	for a := range net.NumAtoms() {
		key := atomKey(net.AtomPred[a], net.AtomArgs[a])
		index[key] = int32(a)
		pr.isAction[a] = -1
		pr.isAux[a] = isAux[net.AtomPred[a]]
		if isAction[net.AtomPred[a]] && (al == nil || al.isKey[key]) {
			pr.isAction[a] = len(pr.Actions)
			pr.Actions = append(pr.Actions, int32(a))
		}
	}
	if len(pr.Actions) == 0 {
		return nil, errors.New("decision: the evidence sets every atom of the action predicates: nothing to decide")
	}
	if al != nil {
		for _, k := range al.keys {
			if a, ok := index[k]; ok && pr.isAction[a] >= 0 {
				pr.order = append(pr.order, pr.isAction[a])
			}
		}
	}
	// add adds u·P(p(args) true), or u·P(false) when neg.
	add := func(p mln.PredID, args []mln.ConstID, neg bool, u float64) {
		u = math.Ldexp(u, -pr.Scale)
		prob := -1.0 // unknown: the atom's marginal
		a, inNet := index[atomKey(p, args)]
		v, listed := db.Get(p, args)
		switch {
		case listed && v == mln.True:
			prob = 1
		case listed && v == mln.False:
			prob = 0
		case inNet:
		case listed || open[p] || isAction[p]:
			prob = 0.5 // unknown, in no clause: independent and uniform
		default:
			prob = 0 // closed world
		}
		if neg {
			pr.Const += u
			u = -u
		}
		if prob >= 0 {
			pr.Const += u * prob
		} else {
			pr.Coef[a] += u
		}
	}
	for _, l := range lits {
		lit := l.c.Lits[0]
		args := make([]mln.ConstID, len(lit.Args))
		err := forBindings(ctx, m, l.c.Vars, func(vals []mln.ConstID) {
			for i, t := range lit.Args {
				if t.IsVar() {
					args[i] = vals[t.Var()]
				} else {
					args[i] = t.Const()
				}
			}
			add(lit.Pred, args, lit.Neg, l.u)
		})
		if err != nil {
			return nil, err
		}
	}
	for _, x := range auxes {
		types := m.Preds[x.p].Args
		vars := make([]mln.Var, len(types))
		for i, t := range types {
			vars[i] = mln.Var{Type: t}
		}
		err := forBindings(ctx, m, vars, func(vals []mln.ConstID) { add(x.p, vals, false, x.u) })
		if err != nil {
			return nil, err
		}
	}
	// Hard clauses rule out assignments (feasible.go).
	if err := pr.initFeasibility(); err != nil {
		return nil, err
	}
	return pr, nil
}

// maxUtilityExp bounds the utilities' sum: Problem.Scale brings it below
// 2^maxUtilityExp, leaving room for the rounding of sums of products with
// probabilities.
const maxUtilityExp = 1000

// groundings returns the number of bindings of vars.
func groundings(m *mln.Model, vars []mln.Var) float64 {
	n := 1.0
	for _, v := range vars {
		n *= float64(len(m.Types[v.Type].Consts))
	}
	return n
}

// literalClause returns the clause of f when f is a single literal of a
// predicate (no existential variable), and nil otherwise.
func literalClause(m *mln.Model, f *mln.Formula) *mln.Clause {
	if len(f.Clauses) != 1 {
		return nil
	}
	c := m.Clauses[f.Clauses[0]]
	if len(c.Lits) != 1 || len(c.Exist) > 0 || c.Lits[0].Pred < 0 {
		return nil
	}
	switch a := f.AST.(type) {
	case *syntax.Atom:
	case *syntax.Not:
		if _, ok := a.X.(*syntax.Atom); !ok {
			return nil
		}
	default:
		return nil
	}
	return c
}

// addAux declares the auxiliary predicate of utility formula fi and adds
// the hard formula "U(x) <=> f".
func addAux(m *mln.Model, fi int) (mln.PredID, error) {
	f := m.Formulas[fi]
	free := syntax.FreeVars(f.AST)
	if len(free) == 0 {
		return 0, syntax.Errorf(f.Pos, "decision: a utility formula without free variables is not supported unless it is a single literal")
	}
	// A variable has the type of the predicate arguments it fills (the
	// model checked that they agree), else of its clause variable.
	atomType := map[string]mln.TypeID{}
	syntax.Walk(f.AST, func(g syntax.Formula) bool {
		if a, ok := g.(*syntax.Atom); ok {
			if p, ok := m.Pred(a.Pred); ok && len(p.Args) == len(a.Args) {
				for i, t := range a.Args {
					if t.Kind == syntax.VarTerm {
						atomType[t.Name] = p.Args[i]
					}
				}
			}
		}
		return true
	})
	propagateCompareTypes(f.AST, atomType)
	types := make([]mln.TypeID, len(free))
	for i, name := range free {
		types[i] = -1
		if t, ok := atomType[name]; ok {
			types[i] = t
			continue
		}
		for _, ci := range f.Clauses {
			c := m.Clauses[ci]
			for vi, v := range c.Vars {
				if v.Name == name && !slices.Contains(c.Exist, vi) {
					types[i] = v.Type
				}
			}
		}
		if types[i] < 0 {
			return 0, syntax.Errorf(f.Pos, "decision: cannot find the type of variable %s of the utility formula", name)
		}
	}
	name := fmt.Sprintf("Utility%d_", fi)
	for {
		if _, taken := m.Pred(name); !taken {
			break
		}
		name += "_"
	}
	p := m.AddPred(&mln.Predicate{Name: name, Args: types, Pos: f.Pos})
	text := name + "(" + strings.Join(free, ",") + ") <=> (" + syntax.FormulaString(noPlus(f.AST)) + ")."
	g, err := m.ParseFormula(text)
	if err != nil {
		return 0, fmt.Errorf("decision: utility formula at %s: %w", f.Pos, err)
	}
	g.Pos = f.Pos
	if _, err := m.AddFormula(g); err != nil {
		return 0, fmt.Errorf("decision: utility formula at %s: %w", f.Pos, err)
	}
	return p.ID, nil
}

// noPlus returns f without its "+" marks (the auxiliary formula is hard).
func noPlus(f syntax.Formula) syntax.Formula {
	switch f := f.(type) {
	case *syntax.Atom:
		a := *f
		a.Args = slices.Clone(f.Args)
		for i := range a.Args {
			a.Args[i].Plus = false
		}
		return &a
	case *syntax.Not:
		return &syntax.Not{NotPos: f.NotPos, X: noPlus(f.X)}
	case *syntax.Binary:
		return &syntax.Binary{Op: f.Op, OpPos: f.OpPos, X: noPlus(f.X), Y: noPlus(f.Y)}
	case *syntax.Quant:
		q := *f
		q.Body = noPlus(f.Body)
		return &q
	}
	return f
}

// forBindings calls fn with every binding of vars over their types'
// domains.
func forBindings(ctx context.Context, m *mln.Model, vars []mln.Var, fn func([]mln.ConstID)) error {
	vals := make([]mln.ConstID, len(vars))
	n := 0
	var rec func(i int) error
	rec = func(i int) error {
		if i == len(vars) {
			if n++; n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			fn(vals)
			return nil
		}
		for _, c := range m.Types[vars[i].Type].Consts {
			vals[i] = c
			if err := rec(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return rec(0)
}

func atomKey(p mln.PredID, args []mln.ConstID) string {
	return fmt.Sprint(p) + ":" + mln.BindingKey(args)
}

// Utility returns the expected utility given the marginals of the
// network's atoms (the action atoms' entries are taken from actions); ±Inf
// when it lies beyond the float64 range (Scale).
func (p *Problem) Utility(marginals []float64, actions []bool) float64 {
	u := p.Const
	for a, c := range p.Coef {
		if c == 0 {
			continue
		}
		q := marginals[a]
		if i := p.isAction[a]; i >= 0 {
			q = 0
			if actions[i] {
				q = 1
			}
		}
		u += c * q
	}
	return math.Ldexp(u, p.Scale)
}

// bias returns the linear terms that clamp the action atoms to actions.
func (p *Problem) bias(actions []bool) []float64 {
	b := make([]float64, p.Net.NumAtoms())
	for i, a := range p.Actions {
		b[a] = clamp(actions[i])
	}
	return b
}

func clamp(v bool) float64 {
	if v {
		return Clamp
	}
	return -Clamp
}

// ExpectedUtility returns the expected utility of the assignment actions
// of the action atoms, with the marginals of engine (seeded by seed); -Inf
// when the assignment is infeasible (no world satisfies the hard clauses
// with it, see Feasible), without asking the engine.
func (p *Problem) ExpectedUtility(ctx context.Context, engine infer.Marginal, actions []bool, seed int64) (float64, error) {
	if len(actions) != len(p.Actions) {
		return 0, fmt.Errorf("decision: %d action values for %d action atoms", len(actions), len(p.Actions))
	}
	if ok, err := p.Feasible(actions); err != nil || !ok {
		return math.Inf(-1), err
	}
	marg, err := engine.Marginals(ctx, p.Net, infer.Options{Bias: p.bias(actions), Seed: seed})
	if err != nil {
		return 0, err
	}
	return p.Utility(marg, actions), nil
}

// AutoEngine returns the marginal engine for the problem: belief
// propagation when the network has no hard clause, MC-SAT otherwise, built
// by package engines with s. Loopy BP handles determinism poorly: the hard
// definition U(x) <=> f(x) of a non-literal utility formula makes short
// cycles of hard clauses through which BP counts an atom's own evidence
// again and again, and it can settle on marginals near 0 or 1. Whatever
// the engine, it is only asked about feasible assignments (Feasible), so
// MC-SAT always has worlds satisfying the hard clauses and the clamped
// actions to sample.
func (p *Problem) AutoEngine(s engines.Settings) (infer.Marginal, error) {
	name := "bp"
	for c := range p.Net.NumClauses() {
		if p.Net.IsHard(c) {
			name = "mcsat"
			break
		}
	}
	return engines.NewMarginal(name, s)
}

// better reports whether utility v improves on u by more than rounding.
func better(v, u float64) bool {
	if math.IsInf(u, -1) {
		return v > u
	}
	return v > u+1e-12*math.Max(1, math.Abs(u))
}

// propagateCompareTypes gives a variable compared with a typed variable
// that variable's type.
func propagateCompareTypes(f syntax.Formula, types map[string]mln.TypeID) {
	for changed := true; changed; {
		changed = false
		syntax.Walk(f, func(g syntax.Formula) bool {
			c, ok := g.(*syntax.Compare)
			if !ok || c.X.Kind != syntax.VarTerm || c.Y.Kind != syntax.VarTerm {
				return true
			}
			tx, okx := types[c.X.Name]
			ty, oky := types[c.Y.Name]
			switch {
			case okx && !oky:
				types[c.Y.Name], changed = tx, true
			case oky && !okx:
				types[c.X.Name], changed = ty, true
			}
			return true
		})
	}
}
