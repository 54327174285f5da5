package mln

import (
	"strconv"

	"github.com/marple-mln/marple/syntax"
)

// rockitConfsOf returns the formulas of RockIt's dialect weighted by the
// evidence whose weight literal is on predicate p.
func (m *Model) rockitConfsOf(p *Predicate) []*syntax.RockItConf {
	var out []*syntax.RockItConf
	for _, c := range m.rockitConfs {
		if c.Atom.Pred == p.Name {
			out = append(out, c)
		}
	}
	return out
}

// addRockItConfs adds, for evidence atom p(args) read from a .db file in
// RockIt's dialect, the formulas that weigh it (syntax.RockItConf): each
// with the variables of its weight literal bound to args and the atom's
// value (its last argument) as a fixed weight. An atom listed true before
// adds nothing (it is one grounding in RockIt).
func (db *Database) addRockItConfs(p *Predicate, args []ConstID, a *syntax.RawAtom) error {
	m := db.Model
	if m.Dialect != syntax.RockIt || len(args) == 0 {
		return nil
	}
	if last := len(args) - 1; m.Types[p.Args[last]].Name == "float_" {
		if _, err := strconv.ParseFloat(m.ConstName(args[last]), 64); err != nil {
			var errs syntax.ErrorList
			errs.Add(a.ArgPos(last), "the last argument of %s is its float_ value: expected a number, found %s", p.Name, m.ConstName(args[last]))
			return errs
		}
	}
	if len(m.rockitConfs) == 0 || a.Value != syntax.ValTrue {
		return nil
	}
	if v, ok := db.Get(p.ID, args); ok && v == True {
		return nil
	}
	confs := m.rockitConfsOf(p)
	if len(confs) == 0 {
		return nil
	}
	names := make([]string, len(args))
	for i, c := range args {
		names[i] = m.ConstName(c)
	}
	var errs syntax.ErrorList
	for _, c := range confs {
		d, ok, err := c.Bind(names)
		if err != nil {
			errs.Add(a.ArgPos(len(args)-1), "%v", err)
			return errs
		}
		if !ok {
			continue
		}
		d.StartPos = c.Decl.StartPos
		fs, ferrs := m.newFormulas(d)
		if len(ferrs) > 0 {
			return ferrs
		}
		for _, f := range fs {
			if len(m.Clauses) > 0 {
				if _, err := m.AddFormula(f); err != nil {
					return err
				}
				continue
			}
			m.Formulas = append(m.Formulas, f)
		}
	}
	return nil
}
