package learn

import (
	"slices"

	"github.com/marple-mln/marple/mln"
)

// exampleDomains collects, for the types it restricts, the constants one
// example mentions: Alchemy's per-database domains. The domain of a
// restricted type is then the model's own constants of the type (those of
// the model files, Type.Declared) followed by the other constants the
// example's atoms mention in an argument of that type, in the model's domain
// order.
type exampleDomains struct {
	m        *mln.Model
	restrict []bool // per type
	seen     map[uint64]struct{}
	extra    [][]mln.ConstID // per type: mentioned constants beyond the declared ones
}

func newExampleDomains(m *mln.Model, restrict []bool) *exampleDomains {
	return &exampleDomains{m: m, restrict: restrict, seen: map[uint64]struct{}{}, extra: make([][]mln.ConstID, len(m.Types))}
}

// atom records the constants of an atom of predicate p.
func (d *exampleDomains) atom(p mln.PredID, args []mln.ConstID) {
	for j, t := range d.m.Preds[p].Args {
		if j >= len(args) || !d.restrict[t] {
			continue
		}
		d.add(t, args[j])
	}
}

// add records constant c of type t.
func (d *exampleDomains) add(t mln.TypeID, c mln.ConstID) {
	typ := d.m.Types[t]
	if k, ok := typ.Index(c); !ok || int(k) < typ.Declared {
		return
	}
	key := uint64(t)<<32 | uint64(uint32(c))
	if _, ok := d.seen[key]; ok {
		return
	}
	d.seen[key] = struct{}{}
	d.extra[t] = append(d.extra[t], c)
}

// clauses records the constants the model's clauses mention (a structure
// learner adds clauses with constants the model files did not declare).
func (d *exampleDomains) clauses() {
	for _, c := range d.m.Clauses {
		for _, l := range c.Lits {
			if l.Pred < 0 {
				continue
			}
			for j, a := range l.Args {
				if !a.IsVar() && j < len(d.m.Preds[l.Pred].Args) {
					if t := d.m.Preds[l.Pred].Args[j]; d.restrict[t] {
						d.add(t, a.Const())
					}
				}
			}
		}
	}
}

// domains returns the domains of the restricted types (a new map), leaving
// out the types keep already has.
func (d *exampleDomains) domains(keep map[mln.TypeID][]mln.ConstID) map[mln.TypeID][]mln.ConstID {
	d.clauses()
	out := make(map[mln.TypeID][]mln.ConstID, len(keep)+len(d.m.Types))
	for t, cs := range keep {
		out[t] = cs
	}
	for t, r := range d.restrict {
		if _, ok := keep[mln.TypeID(t)]; !r || ok {
			continue
		}
		typ := d.m.Types[t]
		dom := make([]mln.ConstID, 0, typ.Declared+len(d.extra[t]))
		dom = append(dom, typ.Consts[:typ.Declared]...)
		extra := d.extra[t]
		slices.SortFunc(extra, func(a, b mln.ConstID) int {
			i, _ := typ.Index(a)
			j, _ := typ.Index(b)
			return int(i) - int(j)
		})
		out[mln.TypeID(t)] = append(dom, extra...)
	}
	return out
}
