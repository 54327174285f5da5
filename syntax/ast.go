package syntax

// A Node is any node of the AST.
type Node interface {
	// Pos returns the position of the node's first character (for a
	// binary formula, of its operator; see each type).
	Pos() Pos
}

// File is a parsed .mln file: its declarations and formulas in order.
type File struct {
	Name  string
	Decls []Decl
	// Abandoned holds the undeclared predicate names that start a
	// statement with a syntax error (which may have been meant to
	// declare them): the model builder does not report them as unknown,
	// since the syntax error already says what is wrong.
	Abandoned map[string]bool
}

// Decl is a top-level statement of a .mln file: *TypeDecl, *PredDecl,
// *FuncDecl, *FormulaDecl or *Include.
type Decl interface {
	Node
	decl()
}

// Ident is a name with its position.
type Ident struct {
	NamePos Pos
	Name    string
}

// Pos returns the position of the name.
func (x *Ident) Pos() Pos { return x.NamePos }

// TypeDecl declares a type and (part of) its domain: "name = {A, B, C}",
// or an integer range "name = {1,...,10}" (IsRange set, Consts empty).
type TypeDecl struct {
	Name    Ident
	Consts  []Ident // constant names (quoted strings keep their quotes)
	IsRange bool
	Lo, Hi  int // the range, when IsRange
}

// ArgDecl is a declared argument: a type name with an optional "!"
// (Alchemy's mutual-exclusion mark: exactly one value of this argument is
// true for each binding of the others).
type ArgDecl struct {
	Type   Ident
	Unique bool
}

// PredDecl declares a predicate: "Name(type1, type2!)", with a leading "*"
// (Closed) in Tuffy's dialect for a closed-world predicate.
type PredDecl struct {
	Star   Pos // position of the leading "*", if Closed
	Closed bool
	Name   Ident
	Args   []ArgDecl
}

// FuncDecl declares a function: "rettype name(type1, type2)". Functions
// are recorded but not supported in formulas.
type FuncDecl struct {
	Ret  Ident
	Name Ident
	Args []ArgDecl
}

// FormulaDecl is a formula with an optional leading "@" (domain-size-aware
// weight), an optional leading weight and an optional trailing "." (hard). Both at once is a semantic error reported by the
// model builder.
type FormulaDecl struct {
	StartPos  Pos // start of the statement (the "@" or the weight, if any)
	Weight    float64
	HasWeight bool
	Utility   *Utility // ":u" after the weight, if any (decision networks)
	// DomainScaled is set by a leading "@" (Marple's extension): the
	// weight is per grounding of the clause's free variables, each ground
	// clause weighing the weight divided by their number of groundings in
	// the world at hand (mln.Model.DomainScale).
	DomainScaled bool
	// Fixed is set by Tuffy's leading "@" (in its dialect): the weight is
	// given, not to be learned.
	Fixed bool
	// Definite is set for LoMRF's definite clause "Head :- Body": F is
	// "Body => Head" (see Completions).
	Definite bool
	Hard     bool
	Dot      Pos // position of the trailing "." when Hard
	F        Formula
}

// Include is an "#include "file"" directive. File is filled in by loaders
// that resolve includes (mln.LoadModel); the parser leaves it nil.
type Include struct {
	IncludePos Pos
	Path       string // unquoted
	File       *File
}

func (*TypeDecl) decl()    {}
func (*PredDecl) decl()    {}
func (*FuncDecl) decl()    {}
func (*FormulaDecl) decl() {}
func (*Include) decl()     {}

// Pos returns the position of the type name.
func (d *TypeDecl) Pos() Pos { return d.Name.NamePos }

// Pos returns the position of the declaration (its "*" if Closed).
func (d *PredDecl) Pos() Pos {
	if d.Closed && d.Star.IsValid() {
		return d.Star
	}
	return d.Name.NamePos
}

// Pos returns the position of the return type.
func (d *FuncDecl) Pos() Pos { return d.Ret.NamePos }

// Pos returns the start of the statement.
func (d *FormulaDecl) Pos() Pos { return d.StartPos }

// Pos returns the position of "#include".
func (d *Include) Pos() Pos { return d.IncludePos }

// Formula is a formula node: *Atom, *Compare, *Not, *Binary, *Quant or
// *Weighted (a nested weight, weighted.go).
// Parentheses are not kept: the structure is the tree.
type Formula interface {
	Node
	formula()
}

// TermKind tells a variable from a constant or a function application.
type TermKind uint8

// The kinds of terms.
const (
	VarTerm   TermKind = iota // a variable (starts with a lower-case letter)
	ConstTerm                 // a constant: upper-case identifier, number or "string"
	FuncTerm                  // a function application f(t1, ..., tn)
)

// Term is an argument of an atom or comparison.
type Term struct {
	TermPos Pos
	Kind    TermKind
	Name    string // variable, constant or function name
	Plus    bool   // "+x": one weight per value of the variable
	Args    []Term // arguments of a FuncTerm
}

// Pos returns the position of the term ("+" included).
func (t *Term) Pos() Pos { return t.TermPos }

// Atom is a predicate applied to terms. Star marks Alchemy's "*" prefix
// (expand into both signs).
type Atom struct {
	AtomPos Pos // position of the "*" if Star, else of the name
	Star    bool
	Pred    string
	PredPos Pos
	Args    []Term
}

// CmpOp is a comparison operator.
type CmpOp uint8

// The comparison operators.
const (
	CmpEq CmpOp = iota // =
	CmpNe              // !=
	CmpLt              // <
	CmpLe              // <=
	CmpGt              // >
	CmpGe              // >=
)

var cmpNames = [...]string{"=", "!=", "<", "<=", ">", ">="}

// String returns the operator as written.
func (op CmpOp) String() string {
	if int(op) < len(cmpNames) {
		return cmpNames[op]
	}
	return "?"
}

// Compare is a comparison between two terms (an internal predicate).
type Compare struct {
	Op    CmpOp
	OpPos Pos
	X, Y  Term
}

// Not is a negation "!X".
type Not struct {
	NotPos Pos
	X      Formula
}

// BinOp is a binary connective.
type BinOp uint8

// The binary connectives, loosest first.
const (
	OpIff     BinOp = iota // <=>
	OpImplies              // =>
	OpOr                   // v or |
	OpAnd                  // ^
)

var binNames = [...]string{"<=>", "=>", "v", "^"}

// String returns the connective as Alchemy writes it.
func (op BinOp) String() string {
	if int(op) < len(binNames) {
		return binNames[op]
	}
	return "?"
}

// Binary is "X op Y". "^", "v" and "<=>" associate to the left, "=>" to
// the right.
type Binary struct {
	Op    BinOp
	OpPos Pos
	X, Y  Formula
}

// Quant is "EXIST vars F" or "FORALL vars F"; the scope extends as far
// right as possible.
type Quant struct {
	QuantPos Pos
	Exist    bool
	Vars     []Ident
	Body     Formula
}

func (*Atom) formula()    {}
func (*Compare) formula() {}
func (*Not) formula()     {}
func (*Binary) formula()  {}
func (*Quant) formula()   {}

// Pos returns the position of the atom.
func (f *Atom) Pos() Pos { return f.AtomPos }

// Pos returns the position of the left term.
func (f *Compare) Pos() Pos { return f.X.TermPos }

// Pos returns the position of the "!".
func (f *Not) Pos() Pos { return f.NotPos }

// Pos returns the position of the left operand.
func (f *Binary) Pos() Pos { return f.X.Pos() }

// Pos returns the position of the quantifier keyword.
func (f *Quant) Pos() Pos { return f.QuantPos }

// Value is the truth value of a ground atom in a .db file.
type Value uint8

// The values of ground atoms.
const (
	ValTrue    Value = iota // P(A)
	ValFalse                // !P(A)
	ValUnknown              // ?P(A)
)

// GroundAtom is one line of a .db file.
type GroundAtom struct {
	AtomPos Pos // start of the line's atom (its "!" or "?" if any)
	Value   Value
	Pred    Ident
	Args    []Ident // constants (quoted strings keep their quotes)
	// Real is the value of a real-valued atom ("Dist(A, B) 3.2"), when
	// HasReal.
	Real    float64
	HasReal bool
}

// Pos returns the position of the atom.
func (a *GroundAtom) Pos() Pos { return a.AtomPos }

// DBFile is a parsed .db file.
type DBFile struct {
	Name  string
	Atoms []*GroundAtom
}

// Walk calls fn for f and every sub-formula of f, parents first; if fn
// returns false, the children of that node are skipped.
// It keeps its own stack, so a formula of any depth is safe to walk.
func Walk(f Formula, fn func(Formula) bool) {
	stack := []Formula{f}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f == nil || !fn(f) {
			continue
		}
		switch f := f.(type) {
		case *Not:
			stack = append(stack, f.X)
		case *Binary:
			stack = append(stack, f.Y, f.X)
		case *Quant:
			stack = append(stack, f.Body)
		case *Weighted:
			stack = append(stack, f.X)
		}
	}
}
