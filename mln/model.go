// Package mln holds a typed Markov logic network: types and their domains,
// predicates, weighted first-order formulas and the clauses (CNF) they
// compile to, and evidence databases over the model's constants.
//
// A Model is built from parsed Alchemy files (package syntax) by Build, or
// loaded directly with Load. Evidence is read into a Database, which may add
// constants to the model's domains. Compile turns the formulas into
// first-order Clauses once the domains are final; package ground grounds
// them.
package mln

import (
	"maps"
	"slices"

	"github.com/marple-mln/marple/syntax"
)

// ConstID identifies a constant. IDs are dense and global across types: a
// constant that belongs to several types has one ID.
type ConstID int32

// TypeID identifies a type (a domain of constants).
type TypeID int32

// PredID identifies a predicate.
type PredID int32

// Type is a named domain of constants.
type Type struct {
	ID     TypeID
	Name   string
	Consts []ConstID         // the domain, in order of first appearance
	index  map[ConstID]int32 // position of each constant in Consts
	Pos    syntax.Pos        // where the type was declared or first used
	// Declared is the number of constants of the domain that come from the
	// model files (declarations and constants in formulas): Consts[:Declared].
	// The rest come from evidence; printers write only the declared ones.
	Declared int
	// Listed is where the model lists the type's constants (person = {Anna,
	// Bob} or a range); zero when no declaration does. Evidence that adds
	// a constant to a listed type is accepted with a warning.
	Listed syntax.Pos
}

// Size returns the number of constants in the type's domain.
func (t *Type) Size() int { return len(t.Consts) }

// Index returns the position of c in the type's domain.
func (t *Type) Index(c ConstID) (int32, bool) {
	i, ok := t.index[c]
	return i, ok
}

// Has reports whether c belongs to the type.
func (t *Type) Has(c ConstID) bool {
	_, ok := t.index[c]
	return ok
}

// add appends c to the domain unless it is already there.
func (t *Type) add(c ConstID) {
	if t.index == nil {
		t.index = make(map[ConstID]int32)
	}
	if _, ok := t.index[c]; ok {
		return
	}
	t.index[c] = int32(len(t.Consts))
	t.Consts = append(t.Consts, c)
}

// Predicate is a declared predicate.
type Predicate struct {
	ID   PredID
	Name string
	Args []TypeID
	// Unique marks Alchemy's "!" on an argument: for each binding of the
	// other arguments exactly one value of this argument is true (a hard
	// constraint).
	Unique []bool
	// Closed is set for a declaration with a leading "*" (Tuffy's dialect):
	// the predicate is closed-world.
	Closed bool
	Pos    syntax.Pos
}

// Arity returns the number of arguments.
func (p *Predicate) Arity() int { return len(p.Args) }

// Builtin names an internal predicate (a comparison between terms).
type Builtin uint8

// The internal predicates.
const (
	NoBuiltin Builtin = iota
	Eq                // =
	Neq               // !=
	Lt                // <
	Le                // <=
	Gt                // >
	Ge                // >=

	// Alchemy's internal integer functions, as relations between their
	// value and arguments: a literal Succ(v, x) holds when the constants
	// are integers with v = x + 1, Plus(v, x, y) when v = x + y, and so
	// on (Div is integer division, Mod the remainder; both fail on a zero
	// divisor). The first argument is the value. Formulas that use a term
	// succ(t) or t + 1 hold them negated: "P(t+1)" becomes
	// "!Plus(v, t, 1) v P(v)", so a grounding whose value is not a
	// constant of the type is satisfied (dropped), as in Alchemy.
	Succ
	Plus
	Minus
	Times
	Div
	Mod
)

// IsArith reports whether b is one of the internal integer functions.
func (b Builtin) IsArith() bool { return b >= Succ && b <= Mod }

// Arity returns the number of arguments of b's literals.
func (b Builtin) Arity() int {
	switch {
	case b == Succ:
		return 2
	case b.IsArith():
		return 3
	}
	return 2
}

// InternalFunctions maps Alchemy's internal function names to their
// builtins.
var InternalFunctions = map[string]Builtin{
	"succ": Succ, "plus": Plus, "minus": Minus, "times": Times, "dividedBy": Div, "mod": Mod,
}

// Term is a variable or a constant in a clause. Non-negative values are
// constants (a ConstID); negative values are variables, -1 being variable 0
// of the clause, -2 variable 1, and so on.
type Term int32

// VarTerm returns the term for variable i of a clause.
func VarTerm(i int) Term { return Term(-1 - i) }

// ConstTerm returns the term for constant c.
func ConstTerm(c ConstID) Term { return Term(c) }

// IsVar reports whether t is a variable.
func (t Term) IsVar() bool { return t < 0 }

// Var returns the variable index of t (t must be a variable).
func (t Term) Var() int { return int(-1 - t) }

// Const returns the constant of t (t must be a constant).
func (t Term) Const() ConstID { return ConstID(t) }

// Literal is a possibly negated atom, or an internal comparison, in a clause.
type Literal struct {
	Pred    PredID  // the predicate; -1 for a builtin comparison
	Builtin Builtin // the comparison when Pred is -1
	Neg     bool
	Args    []Term
}

// Var is a variable of a clause.
type Var struct {
	Name string
	Type TypeID
}

// Clause is a first-order clause: the disjunction of its literals,
// universally quantified over its variables except those listed in Exist,
// which are existentially quantified inside the clause (the ground clause is
// the disjunction over all values of those variables).
type Clause struct {
	Lits  []Literal
	Vars  []Var
	Exist []int // indices of existentially quantified variables
	// Plus lists the variables marked "+": the clause has one weight for
	// each binding of them (Formula.Param).
	Plus    []int
	Formula int // index into Model.Formulas
	// Coef multiplies the formula's weight: 1/k when the formula's CNF has k
	// clauses, negated for a weighted conjunction kept as one clause.
	Coef float64
	Hard bool
	// DomainScaled makes the clause's weight per grounding of its free
	// variables: in a world, each ground clause weighs Coef times the
	// parameter's weight divided by DomainScale (the groundings of the
	// free variables given one literal's), so that the weight does not
	// depend on the domain sizes. Set from Formula.DomainScaled.
	DomainScaled bool
}

// Formula is a weighted first-order formula as written in a .mln file (after
// "*" expansion: each sign combination is its own Formula).
type Formula struct {
	Pos       syntax.Pos
	AST       syntax.Formula // the formula, after "*" sign expansion
	Weight    float64        // the weight written (0 when none)
	HasWeight bool           // a weight was written
	Hard      bool           // written with a trailing "."
	// DomainScaled is set by a leading "@": the formula's clauses are
	// domain-size aware (Clause.DomainScaled).
	DomainScaled bool
	// Fixed marks a weight that is given, not learned: Tuffy's "@w" and
	// the prior of Tuffy's soft evidence (its dialect). Learners refuse a
	// model with such formulas rather than learn their weights.
	Fixed bool
	// PlusVars names the "+" variables, in the order used by parameter
	// bindings.
	PlusVars []string
	Clauses  []int // indices into Model.Clauses (after Compile)
	// Params maps a binding of the "+" variables (constants in PlusVars
	// order, encoded by BindingKey) to an index into Model.Weights. A
	// formula without "+" variables has one parameter, under key "".
	Params map[string]int
	// Utility is the utility written (decision networks: each true
	// grounding adds it to a world's utility); HasUtility is set when one
	// was written.
	Utility    float64
	HasUtility bool
	// Synthetic marks a formula that Compile adds itself rather than one
	// written in a file: the hard "exactly one value" constraint of a
	// predicate argument declared with "!" (Alchemy's mutual exclusion).
	// It has no AST, HasWeight is false and Hard is true; printers skip it.
	Synthetic bool

	uniquePred PredID // for a Synthetic formula: the predicate
	uniqueArg  int    // and its "!" argument
}

// Function is a declared function ("rettype name(argtypes)"). Functions are
// recorded but cannot be used in formulas.
type Function struct {
	Name string
	Args []TypeID
	Ret  TypeID
	Pos  syntax.Pos
}

// Model is a typed Markov logic network.
type Model struct {
	Types    []*Type
	Preds    []*Predicate
	Formulas []*Formula
	Clauses  []*Clause // compiled from Formulas by Compile
	// Weights holds one weight per parameter (a formula, or a formula and a
	// binding of its "+" variables).
	Weights []float64
	// ParamFormula and ParamBinding give, for each parameter, its formula
	// and the binding of the formula's "+" variables.
	ParamFormula []int
	ParamBinding [][]ConstID
	// Funcs holds the declared functions (not supported in formulas).
	Funcs []*Function
	// Dialect is the language the model's files were read in (LoadConfig):
	// it decides how its .db files are read and which predicates are open
	// world by default (OpenByDefault).
	Dialect syntax.Dialect
	// ProbConstraints are the probability constraints "P(F) = p" of a
	// model of pracmln's dialect (dialect_pracmln.go).
	ProbConstraints []*ProbConstraint

	constNames []string
	constIndex map[string]ConstID
	typeIndex  map[string]TypeID
	predIndex  map[string]PredID

	hybrid *hybridInfo // formulas with numeric terms (hybrid.go)

	rockitConfs []*syntax.RockItConf // RockIt's formulas weighted by the evidence (dialect_rockit.go)

	// abandoned holds, during Build, the predicate names that start a
	// statement with a syntax error (syntax.File.Abandoned).
	abandoned map[string]bool
}

// NumConsts returns the number of constants.
func (m *Model) NumConsts() int { return len(m.constNames) }

// ConstName returns the name of constant c as written in the files.
func (m *Model) ConstName(c ConstID) string { return m.constNames[c] }

// Const looks a constant up by name.
func (m *Model) Const(name string) (ConstID, bool) {
	c, ok := m.constIndex[name]
	return c, ok
}

// Type looks a type up by name.
func (m *Model) Type(name string) (*Type, bool) {
	t, ok := m.typeIndex[name]
	if !ok {
		return nil, false
	}
	return m.Types[t], true
}

// Pred looks a predicate up by name.
func (m *Model) Pred(name string) (*Predicate, bool) {
	p, ok := m.predIndex[name]
	if !ok {
		return nil, false
	}
	return m.Preds[p], true
}

// AddConst interns a constant name (without adding it to any type) and
// returns its ID.
func (m *Model) AddConst(name string) ConstID {
	if m.constIndex == nil {
		m.constIndex = make(map[string]ConstID)
	}
	if c, ok := m.constIndex[name]; ok {
		return c
	}
	c := ConstID(len(m.constNames))
	m.constNames = append(m.constNames, name)
	m.constIndex[name] = c
	return c
}

// AddToType interns a constant and adds it to type t's domain.
func (m *Model) AddToType(t TypeID, name string) ConstID {
	c := m.AddConst(name)
	m.Types[t].add(c)
	return c
}

// AddType declares a new, empty type and returns it; if a type of that
// name exists it is returned.
func (m *Model) AddType(name string, pos syntax.Pos) *Type {
	if m.typeIndex == nil {
		m.typeIndex = make(map[string]TypeID)
	}
	if t, ok := m.typeIndex[name]; ok {
		return m.Types[t]
	}
	t := &Type{ID: TypeID(len(m.Types)), Name: name, Pos: pos}
	m.typeIndex[name] = t.ID
	m.Types = append(m.Types, t)
	return t
}

// AddPred declares a predicate. It panics if the name is taken: callers
// check with Pred first and report a positioned error.
func (m *Model) AddPred(p *Predicate) *Predicate {
	if m.predIndex == nil {
		m.predIndex = make(map[string]PredID)
	}
	if _, ok := m.predIndex[p.Name]; ok {
		panic("mln: predicate " + p.Name + " declared twice")
	}
	p.ID = PredID(len(m.Preds))
	if p.Unique == nil {
		p.Unique = make([]bool, len(p.Args))
	}
	m.predIndex[p.Name] = p.ID
	m.Preds = append(m.Preds, p)
	return p
}

// BindingKey encodes a tuple of constants as a map key.
func BindingKey(cs []ConstID) string {
	b := make([]byte, 4*len(cs))
	for i, c := range cs {
		b[4*i] = byte(c)
		b[4*i+1] = byte(c >> 8)
		b[4*i+2] = byte(c >> 16)
		b[4*i+3] = byte(c >> 24)
	}
	return string(b)
}

// Param returns the parameter index of formula f for a binding of its "+"
// variables (nil or empty for a formula without them), allocating a new
// parameter with the formula's written weight the first time a binding is
// seen.
func (m *Model) Param(f int, binding []ConstID) int {
	fm := m.Formulas[f]
	if fm.Params == nil {
		fm.Params = make(map[string]int)
	}
	key := BindingKey(binding)
	if p, ok := fm.Params[key]; ok {
		return p
	}
	p := len(m.Weights)
	m.Weights = append(m.Weights, fm.Weight)
	m.ParamFormula = append(m.ParamFormula, f)
	m.ParamBinding = append(m.ParamBinding, append([]ConstID(nil), binding...))
	fm.Params[key] = p
	return p
}

// BindArgs matches the terms of a literal against the arguments of a
// ground atom under the binding bind (each variable's constant, or -1 when
// unbound): a constant must equal its argument and a bound variable its
// value; an unbound variable is bound to its argument and its index written
// to set[n]. It returns the number of variables it bound, which the caller
// unbinds (also when ok is false), and whether the atom matches.
func BindArgs(terms []Term, args, bind []ConstID, set []int) (n int, ok bool) {
	for j, t := range terms {
		x := args[j]
		if !t.IsVar() {
			if t.Const() != x {
				return n, false
			}
			continue
		}
		v := t.Var()
		switch b := bind[v]; {
		case b < 0:
			bind[v] = x
			set[n] = v
			n++
		case b != x:
			return n, false
		}
	}
	return n, true
}

// WithoutEvidence returns a copy of m whose domains hold only the
// constants the model itself names: those of its declarations and
// formulas, and those of the bindings of its "+" parameters (the
// per-constant weights a learner found). It is the model as WriteModel
// writes it and LoadModel reads it back, without the round trip: learn on
// training databases, then call WithoutEvidence and LoadDatabase with the
// test evidence, and the test domains do not include the training
// constants. The copy shares nothing that grounding or loading changes;
// m is left as it is.
func (m *Model) WithoutEvidence() *Model {
	c := *m
	c.constNames = slices.Clone(m.constNames)
	c.constIndex = maps.Clone(m.constIndex)
	c.typeIndex = maps.Clone(m.typeIndex)
	c.Weights = slices.Clone(m.Weights)
	c.ParamFormula = slices.Clone(m.ParamFormula)
	c.ParamBinding = slices.Clone(m.ParamBinding)
	c.Formulas = make([]*Formula, len(m.Formulas))
	for i, f := range m.Formulas {
		g := *f
		g.Params = maps.Clone(f.Params)
		c.Formulas[i] = &g
	}
	// The constants of the parameters' bindings, each kept in the types
	// whose domain held it.
	bound := map[ConstID]bool{}
	for _, b := range m.ParamBinding {
		for _, k := range b {
			bound[k] = true
		}
	}
	c.Types = make([]*Type, len(m.Types))
	for i, t := range m.Types {
		u := &Type{ID: t.ID, Name: t.Name, Pos: t.Pos, Listed: t.Listed}
		for j, k := range t.Consts {
			if j < t.Declared || bound[k] {
				u.add(k)
			}
		}
		u.Declared = len(u.Consts)
		c.Types[i] = u
	}
	return &c
}
