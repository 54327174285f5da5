package invent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// Domain is one set of symbols of the top-level problem: the constants of a
// type, or the predicates of one argument signature.
type Domain struct {
	// Name is the type's name, or the signature ("pred(person,person)").
	Name string
	// Pred is set for a set of predicate symbols.
	Pred bool
	// Type is the constants' type (for a constant domain).
	Type mln.TypeID
	// Members are the symbols: ConstIDs or PredIDs, as int32, sorted by
	// name, so that the order the constants were read in does not matter.
	// A symbol's index in Members is its local ID.
	Members []int32
}

// Group holds the training atoms of the predicates of one signature.
type Group struct {
	// Preds is the domain of the group's predicate symbols; Args the domain
	// of each argument.
	Preds int
	Args  []int
	// Rate is the Laplace-smoothed rate of true atoms, (T+1)/(N+2): the
	// prior rate π that sparse combinations are smoothed toward.
	Rate float64
	// Atoms holds, per atom, arity+1 local IDs: the predicate's, then each
	// argument's, the atoms sorted by these IDs. Truth holds its value.
	Atoms []int32
	Truth []bool
}

// Arity is the number of arguments of the group's predicates.
func (g *Group) Arity() int { return len(g.Args) }

// Len is the number of atoms.
func (g *Group) Len() int { return len(g.Truth) }

// Data is the training data of MRC in dense integer IDs.
type Data struct {
	Model   *mln.Model
	Domains []Domain
	Groups  []Group

	predGroup  []int32   // PredID -> group, -1 for predicates without arguments
	predLocal  []int32   // PredID -> local ID in its domain
	typeDomain []int32   // TypeID -> domain, -1 if unused
	constLocal [][]int32 // TypeID -> the type's index of a constant -> local ID
}

// MaxAtoms bounds the number of ground atoms FromDatabases enumerates under
// the closed-world assumption.
var MaxAtoms = 50_000_000

// FromDatabases builds the training data from evidence databases over m.
// With closed set, every ground atom of every predicate (over the types'
// current domains) is a training atom, false unless listed true; atoms
// listed unknown are left out. Otherwise only the listed true and false
// atoms are (the rest are unknown, as the held-out atoms of a fold).
// Predicates without arguments are left out.
//
// The Data does not depend on the order the model's constants were read
// in or the databases list their atoms in: symbols are numbered in the
// order of their names, groups and domains appear in the order of their
// first predicate's name, and each group's atoms are sorted. (Where two
// databases give the same atom different values the later one wins, so
// the order of dbs matters only then.)
func FromDatabases(m *mln.Model, dbs []*mln.Database, closed bool) (*Data, error) {
	d := &Data{Model: m}
	d.typeDomain = make([]int32, len(m.Types))
	for i := range d.typeDomain {
		d.typeDomain[i] = -1
	}
	d.constLocal = make([][]int32, len(m.Types))
	d.predGroup = make([]int32, len(m.Preds))
	d.predLocal = make([]int32, len(m.Preds))
	sigGroup := map[string]int{}
	preds := slices.Clone(m.Preds)
	slices.SortStableFunc(preds, func(a, b *mln.Predicate) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range preds {
		d.predGroup[p.ID] = -1
		if len(p.Args) == 0 {
			continue
		}
		names := make([]string, len(p.Args))
		for i, t := range p.Args {
			names[i] = m.Types[t].Name
		}
		sig := strings.Join(names, ",")
		g, ok := sigGroup[sig]
		if !ok {
			g = len(d.Groups)
			sigGroup[sig] = g
			d.Domains = append(d.Domains, Domain{Name: "pred(" + sig + ")", Pred: true, Type: -1})
			grp := Group{Preds: len(d.Domains) - 1}
			for _, t := range p.Args {
				if d.typeDomain[t] < 0 {
					ty := m.Types[t]
					d.typeDomain[t] = int32(len(d.Domains))
					mem := make([]int32, len(ty.Consts))
					for i, c := range ty.Consts {
						mem[i] = int32(c)
					}
					slices.SortFunc(mem, func(a, b int32) int {
						return strings.Compare(m.ConstName(mln.ConstID(a)), m.ConstName(mln.ConstID(b)))
					})
					cl := make([]int32, len(ty.Consts))
					for li, c := range mem {
						ti, _ := ty.Index(mln.ConstID(c))
						cl[ti] = int32(li)
					}
					d.constLocal[t] = cl
					d.Domains = append(d.Domains, Domain{Name: ty.Name, Type: t, Members: mem})
				}
				grp.Args = append(grp.Args, int(d.typeDomain[t]))
			}
			d.Groups = append(d.Groups, grp)
		}
		pd := &d.Domains[d.Groups[g].Preds]
		d.predGroup[p.ID] = int32(g)
		d.predLocal[p.ID] = int32(len(pd.Members))
		pd.Members = append(pd.Members, int32(p.ID))
	}
	if closed {
		total := 0
		for _, p := range m.Preds {
			if len(p.Args) == 0 {
				continue
			}
			n := 1
			for _, t := range p.Args {
				n *= m.Types[t].Size()
				if n > MaxAtoms {
					break
				}
			}
			total += n
			if total > MaxAtoms {
				return nil, fmt.Errorf("invent: more than %d ground atoms under the closed world", MaxAtoms)
			}
		}
	}
	local := make([]int32, 0, 8)
	args := make([]mln.ConstID, 0, 8)
	for _, p := range preds {
		g := d.predGroup[p.ID]
		if g < 0 {
			continue
		}
		grp := &d.Groups[g]
		if closed {
			// Enumerate every grounding in odometer order.
			sizes := make([]int, len(p.Args))
			empty := false
			for i, t := range p.Args {
				sizes[i] = m.Types[t].Size()
				empty = empty || sizes[i] == 0
			}
			if empty {
				continue
			}
			idx := make([]int, len(p.Args))
			for {
				args = args[:0]
				local = append(local[:0], d.predLocal[p.ID])
				for i, t := range p.Args {
					args = append(args, mln.ConstID(d.Domains[d.typeDomain[t]].Members[idx[i]]))
					local = append(local, int32(idx[i]))
				}
				v := mln.False
				for _, db := range dbs {
					if tv, ok := db.Get(p.ID, args); ok {
						v = tv
					}
				}
				if v != mln.Unknown {
					grp.Atoms = append(grp.Atoms, local...)
					grp.Truth = append(grp.Truth, v == mln.True)
				}
				i := len(idx) - 1
				for ; i >= 0; i-- {
					idx[i]++
					if idx[i] < sizes[i] {
						break
					}
					idx[i] = 0
				}
				if i < 0 {
					break
				}
			}
			continue
		}
		seen := map[string]int{}
		for _, db := range dbs {
			var err error
			db.Atoms(p.ID, func(as []mln.ConstID, v mln.Truth) {
				if err != nil {
					return
				}
				local = append(local[:0], d.predLocal[p.ID])
				for i, c := range as {
					li, ok := d.constIndex(p.Args[i], c)
					if !ok {
						err = fmt.Errorf("invent: constant %s is not of type %s", m.ConstName(c), m.Types[p.Args[i]].Name)
						return
					}
					local = append(local, li)
				}
				key := mln.BindingKey(as)
				if j, ok := seen[key]; ok { // a later database wins
					if v == mln.Unknown {
						grp.Truth[j] = false
						grp.Atoms[j*(len(as)+1)] = -1
					} else {
						grp.Truth[j] = v == mln.True
					}
					return
				}
				if v == mln.Unknown {
					return
				}
				seen[key] = grp.Len()
				grp.Atoms = append(grp.Atoms, local...)
				grp.Truth = append(grp.Truth, v == mln.True)
			})
			if err != nil {
				return nil, err
			}
		}
		grp.compact()
	}
	for i := range d.Groups {
		d.Groups[i].sortAtoms()
	}
	for i := range d.Groups {
		g := &d.Groups[i]
		t := 0
		for _, v := range g.Truth {
			if v {
				t++
			}
		}
		g.Rate = (float64(t) + 1) / (float64(g.Len()) + 2)
	}
	return d, nil
}

// compact drops atoms marked deleted (predicate ID -1).
func (g *Group) compact() {
	w := g.Arity() + 1
	n := 0
	for i := 0; i < g.Len(); i++ {
		if g.Atoms[i*w] < 0 {
			continue
		}
		copy(g.Atoms[n*w:(n+1)*w], g.Atoms[i*w:(i+1)*w])
		g.Truth[n] = g.Truth[i]
		n++
	}
	g.Atoms = g.Atoms[:n*w]
	g.Truth = g.Truth[:n]
}

// sortAtoms sorts the group's atoms by their local IDs.
func (g *Group) sortAtoms() {
	w := g.Arity() + 1
	idx := make([]int, g.Len())
	for i := range idx {
		idx[i] = i
	}
	sorted := slices.IsSortedFunc(idx, func(a, b int) int {
		return slices.Compare(g.Atoms[a*w:(a+1)*w], g.Atoms[b*w:(b+1)*w])
	})
	if sorted {
		return
	}
	slices.SortFunc(idx, func(a, b int) int {
		return slices.Compare(g.Atoms[a*w:(a+1)*w], g.Atoms[b*w:(b+1)*w])
	})
	atoms := make([]int32, 0, len(g.Atoms))
	truth := make([]bool, 0, len(g.Truth))
	for _, a := range idx {
		atoms = append(atoms, g.Atoms[a*w:(a+1)*w]...)
		truth = append(truth, g.Truth[a])
	}
	g.Atoms, g.Truth = atoms, truth
}

// constIndex returns the local ID of constant c of type t, or ok false when
// c is not in t's domain as it was when d was built.
func (d *Data) constIndex(t mln.TypeID, c mln.ConstID) (int32, bool) {
	ti, ok := d.Model.Types[t].Index(c)
	if !ok || int(t) >= len(d.constLocal) || int(ti) >= len(d.constLocal[t]) {
		return 0, false
	}
	return d.constLocal[t][ti], true
}

// locate returns the group of predicate p and the local IDs of p(args), or
// ok false when p has no group or a constant is not in its type's domain.
func (d *Data) locate(p mln.PredID, args []mln.ConstID, buf []int32) (g int, local []int32, ok bool) {
	if int(p) >= len(d.predGroup) || d.predGroup[p] < 0 {
		return 0, nil, false
	}
	g = int(d.predGroup[p])
	local = append(buf[:0], d.predLocal[p])
	pr := d.Model.Preds[p]
	if len(args) != len(pr.Args) {
		return 0, nil, false
	}
	for i, c := range args {
		li, ok := d.constIndex(pr.Args[i], c)
		if !ok {
			return 0, nil, false
		}
		local = append(local, li)
	}
	return g, local, true
}

// SymbolName returns the name of local symbol i of domain dom.
func (d *Data) SymbolName(dom int, i int32) string {
	s := d.Domains[dom].Members[i]
	if d.Domains[dom].Pred {
		return d.Model.Preds[s].Name
	}
	return d.Model.ConstName(mln.ConstID(s))
}
