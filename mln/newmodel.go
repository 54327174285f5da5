package mln

import (
	"fmt"

	"github.com/marple-mln/marple/syntax"
)

// NewModel returns an empty model, to be built in code: DeclareType,
// DeclarePred and AddFormula (with ParseFormula) as a .mln file declares
// types, predicates and formulas; then Compile, as after LoadModel.
func NewModel() *Model { return &Model{} }

// DeclareType declares a type with the given constants (more may come
// from evidence), or adds the constants to a type already declared.
func (m *Model) DeclareType(name string, consts ...string) *Type {
	t := m.AddType(name, syntax.Pos{})
	for _, c := range consts {
		m.AddToType(t.ID, c)
	}
	t.Declared = len(t.Consts)
	return t
}

// DeclarePred declares predicate name over the named argument types
// (declared on the way if new), as "Friends(person, person)" in a .mln
// file does. A name already taken is an error.
func (m *Model) DeclarePred(name string, argTypes ...string) (*Predicate, error) {
	if _, ok := m.Pred(name); ok {
		return nil, fmt.Errorf("mln: predicate %s declared twice", name)
	}
	if name == "" || len(argTypes) == 0 {
		return nil, fmt.Errorf("mln: a predicate needs a name and at least one argument type")
	}
	p := &Predicate{Name: name}
	for _, a := range argTypes {
		p.Args = append(p.Args, m.AddType(a, syntax.Pos{}).ID)
	}
	return m.AddPred(p), nil
}
