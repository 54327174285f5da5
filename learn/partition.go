package learn

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// PartitionSource is an ExampleSource over one training database whose
// examples are the constants of an example type T (for CiteSeer, one
// citation per constant of type bib), each ground on its own when asked
// for: only one example's ground network is in memory at a time.
//
// Example i is the grounding of the model with the domain of T restricted
// to the constants of Groups[i] (ground.Options.Domains) and, as Alchemy
// gives each database its own constants, the domain of every type that
// occurs in a predicate with an argument of type T restricted to the
// constants the example's own atoms (below) mention, plus the model's
// constants of the type (Type.Declared): a CiteSeer citation's positions
// are those of its tokens, not every position of the longest citation.
// The shared atoms do not widen the domains (Next lists every position);
// a type that never occurs beside T keeps the model's domain.
// SharedDomains turns this off. The evidence is made of
//
//   - every atom of the database that has one of those constants in an
//     argument of type T, and
//   - every atom of a predicate without an argument of type T (shared by
//     all examples: Next, LessThan, IsDate...),
//
// without the atoms of the Query predicates, which are the truth: an atom's
// gold value is its value in the database (unlisted: false), as in
// DatabaseSource. The loss counts the atoms of the Query predicates.
//
// The examples are independent: NewPartitionSource refuses models whose
// clauses could link two constants of T, so every ground clause involves
// the atoms of one constant of T at most, and the examples are exactly the
// independent components of the whole training set's ground network
// grouped by their constant of T (ComponentSource), ground one at a time.
// A ground clause without a variable of type T (only evidence can decide
// it) is counted in every example's EvidenceCount and ConstScore, which
// learning does not read; an atom with constants of T from two groups
// belongs to no example.
//
// The database is indexed once (constant of T -> its atoms) and the shared
// atoms are indexed for grounding once (ground.SharedEvidence); an Example
// call then costs time proportional to the example's atoms, not to the
// database.
type PartitionSource struct {
	Model *mln.Model
	// DB is the training database: evidence and the truth of the query
	// atoms. It must not change while the source is used.
	DB    *mln.Database
	Query []mln.PredID
	// Type is the example type T.
	Type mln.TypeID
	// Options are the grounding options; Options.Query is replaced by
	// Query, Options.Domains[Type] by each example's constants and
	// Options.Shared by the shared atoms.
	Options ground.Options
	// Groups holds the constants of T of each example. NewPartitionSource
	// makes one example per constant of T's domain, in domain order; the
	// caller may replace it by any grouping of those constants (a constant
	// in no group belongs to no example).
	Groups [][]mln.ConstID
	// SharedDomains, when set, keeps the model's domain for every type but
	// T: every example is ground over every constant of the training
	// database (positions past a citation's end become query atoms).
	SharedDomains bool

	restrict []bool // per type: its domain is the example's own constants
	isQuery  []bool
	slot     []int32 // constant -> index into starts, or -1 (constants of T only)
	starts   []int32 // per constant of T: its evidence atoms are refs[starts[k]:starts[k+1]]
	refs     []int32 // atom numbers
	tstarts  []int32 // per constant of T: its true query atoms are trefs[tstarts[k]:tstarts[k+1]]
	trefs    []int32
	sharedDB *mln.Database
	shared   *ground.SharedEvidence
	apred    []mln.PredID
	atruth   []mln.Truth
	aargs    []int32 // atom a's arguments are args[aargs[a]:aargs[a+1]]
	args     []mln.ConstID
}

// NewPartitionSource indexes db for examples over the constants of type t:
// one example per constant of t's domain (which, once db is loaded,
// includes every constant of t that occurs in it), in domain order.
//
// It refuses, with an error naming the culprit, what would make the
// examples depend on each other or leave atoms in no example: a query or
// open-world predicate without an argument of type t (its unknown atoms
// would be shared by every example), an atom listed unknown ("?") without
// an argument of type t, a clause with two variables of type t or an
// existentially quantified one (its groundings link constants of t), a
// clause that names a constant of t in an argument of type t, and an
// Options.Domains entry for t. Such models need the whole grounding
// (ComponentSource). Options.Shared must be nil.
func NewPartitionSource(m *mln.Model, db *mln.Database, query []mln.PredID, t mln.TypeID, opt ground.Options) (*PartitionSource, error) {
	if m == nil || db == nil {
		return nil, errors.New("learn: PartitionSource needs a model and a database")
	}
	if t < 0 || int(t) >= len(m.Types) {
		return nil, fmt.Errorf("learn: PartitionSource: example type %d out of range", t)
	}
	typ := m.Types[t]
	if _, ok := opt.Domains[t]; ok {
		return nil, fmt.Errorf("learn: PartitionSource: Options.Domains already restricts the example type %s", typ.Name)
	}
	if opt.Shared != nil {
		return nil, errors.New("learn: PartitionSource: Options.Shared is set")
	}
	hasT := func(p mln.PredID) bool {
		for _, at := range m.Preds[p].Args {
			if at == t {
				return true
			}
		}
		return false
	}
	s := &PartitionSource{Model: m, DB: db, Query: append([]mln.PredID(nil), query...), Type: t, Options: opt,
		isQuery: make([]bool, len(m.Preds))}
	for _, q := range query {
		if q < 0 || int(q) >= len(m.Preds) {
			return nil, fmt.Errorf("learn: PartitionSource: query predicate %d out of range", q)
		}
		if !hasT(q) {
			return nil, fmt.Errorf("learn: query predicate %s has no argument of the example type %s: its atoms would belong to no example (choose another example type, or none)",
				m.Preds[q].Name, typ.Name)
		}
		s.isQuery[q] = true
	}
	s.restrict = make([]bool, len(m.Types))
	for _, p := range m.Preds {
		if hasT(p.ID) {
			for _, at := range p.Args {
				s.restrict[at] = at != t
			}
		}
	}
	for _, p := range opt.OpenWorld {
		if p >= 0 && int(p) < len(m.Preds) && !hasT(p) {
			return nil, fmt.Errorf("learn: open-world predicate %s has no argument of the example type %s: its atoms would be shared by every example",
				m.Preds[p].Name, typ.Name)
		}
	}
	for ci, c := range m.Clauses {
		var tvars []int
		for v, cv := range c.Vars {
			if cv.Type == t {
				tvars = append(tvars, v)
			}
		}
		if len(tvars) > 1 {
			return nil, fmt.Errorf("learn: %s has %d variables of the example type %s: its groundings link examples",
				clauseWhere(m, ci), len(tvars), typ.Name)
		}
		for _, v := range c.Exist {
			if len(tvars) == 1 && v == tvars[0] {
				return nil, fmt.Errorf("learn: %s quantifies a variable of the example type %s existentially: its groundings link examples",
					clauseWhere(m, ci), typ.Name)
			}
		}
		for _, l := range c.Lits {
			if l.Pred < 0 {
				continue
			}
			for j, a := range l.Args {
				if !a.IsVar() && j < len(m.Preds[l.Pred].Args) && m.Preds[l.Pred].Args[j] == t {
					return nil, fmt.Errorf("learn: %s names the constant %s of the example type %s: examples over single constants cannot ground it",
						clauseWhere(m, ci), m.ConstName(a.Const()), typ.Name)
				}
			}
		}
	}

	// Index the atoms: the shared ones into their own database, the
	// others (evidence, and the true query atoms) by constant of t.
	s.slot = make([]int32, m.NumConsts())
	for i := range s.slot {
		s.slot[i] = -1
	}
	for k, c := range typ.Consts {
		s.slot[c] = int32(k)
	}
	s.aargs = []int32{0}
	s.sharedDB = mln.NewDatabase(m)
	var sharedPreds []mln.PredID
	var err error
	var isTruth []bool // per atom: a true query atom (else evidence)
	for p := range m.Preds {
		pid := mln.PredID(p)
		q := s.isQuery[p]
		shared := !hasT(pid)
		if shared {
			sharedPreds = append(sharedPreds, pid)
		}
		db.Atoms(pid, func(args []mln.ConstID, v mln.Truth) {
			switch {
			case err != nil:
			case shared:
				if v == mln.Unknown {
					err = fmt.Errorf("learn: atom %s is listed unknown and has no argument of the example type %s: it would be shared by every example",
						atomName(m, pid, args), typ.Name)
					return
				}
				s.sharedDB.Set(pid, args, v)
			case !q || v == mln.True:
				s.apred = append(s.apred, pid)
				s.atruth = append(s.atruth, v)
				s.args = append(s.args, args...)
				s.aargs = append(s.aargs, int32(len(s.args)))
				isTruth = append(isTruth, q)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	s.starts, s.refs = s.csr(t, func(a int) bool { return !isTruth[a] })
	s.tstarts, s.trefs = s.csr(t, func(a int) bool { return isTruth[a] })
	s.shared = ground.NewSharedEvidence(s.sharedDB, sharedPreds)
	s.Groups = make([][]mln.ConstID, len(typ.Consts))
	for k, c := range typ.Consts {
		s.Groups[k] = []mln.ConstID{c}
	}
	return s, nil
}

// csr lists, per constant of type t, the atoms that keep (in atom order)
// and have that constant in an argument of type t (an atom with two such
// constants is listed under both).
func (s *PartitionSource) csr(t mln.TypeID, keep func(a int) bool) (starts, refs []int32) {
	starts = make([]int32, len(s.Model.Types[t].Consts)+1)
	var seen []int32
	each := func(a int, fn func(k int32)) {
		args := s.args[s.aargs[a]:s.aargs[a+1]]
		seen = seen[:0]
		for j, at := range s.Model.Preds[s.apred[a]].Args {
			if at != t || j >= len(args) || args[j] < 0 || int(args[j]) >= len(s.slot) || s.slot[args[j]] < 0 {
				continue
			}
			k := s.slot[args[j]]
			if !slices.Contains(seen, k) {
				seen = append(seen, k)
				fn(k)
			}
		}
	}
	for a := range s.apred {
		if keep(a) {
			each(a, func(k int32) { starts[k+1]++ })
		}
	}
	for k := 1; k < len(starts); k++ {
		starts[k] += starts[k-1]
	}
	refs = make([]int32, starts[len(starts)-1])
	fill := slices.Clone(starts[:len(starts)-1])
	for a := range s.apred {
		if keep(a) {
			each(a, func(k int32) {
				refs[fill[k]] = int32(a)
				fill[k]++
			})
		}
	}
	return starts, refs
}

// clauseWhere names clause ci by its formula's position.
func clauseWhere(m *mln.Model, ci int) string {
	s := fmt.Sprintf("clause %d", ci)
	if f := m.Clauses[ci].Formula; f >= 0 && f < len(m.Formulas) && m.Formulas[f].Pos.IsValid() {
		s += " (" + m.Formulas[f].Pos.String() + ")"
	}
	return s
}

func atomName(m *mln.Model, p mln.PredID, args []mln.ConstID) string {
	var b strings.Builder
	b.WriteString(m.Preds[p].Name)
	b.WriteByte('(')
	for i, c := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m.ConstName(c))
	}
	b.WriteByte(')')
	return b.String()
}

// Len returns the number of examples.
func (s *PartitionSource) Len() int { return len(s.Groups) }

// Evidence returns the evidence database of example i: the shared atoms
// and the atoms of the group's constants, without the query atoms.
//
// Unless SharedDomains, the shared atoms with a constant outside the
// example's domains (Domains) are left out, as grounding ignores them.
func (s *PartitionSource) Evidence(i int) (*mln.Database, error) {
	ev := mln.NewDatabase(s.Model)
	if err := s.own(ev, i); err != nil {
		return nil, err
	}
	if s.SharedDomains {
		ev.Merge(s.sharedDB)
		return ev, nil
	}
	in := map[mln.TypeID]map[mln.ConstID]bool{}
	for t, cs := range s.Domains(i) {
		in[t] = make(map[mln.ConstID]bool, len(cs))
		for _, c := range cs {
			in[t][c] = true
		}
	}
	for p, pr := range s.Model.Preds {
		s.sharedDB.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			for j, t := range pr.Args {
				if d, ok := in[t]; ok && j < len(args) && !d[args[j]] {
					return
				}
			}
			ev.Set(mln.PredID(p), args, v)
		})
	}
	return ev, nil
}

// own adds the atoms of example i's constants to ev.
func (s *PartitionSource) own(ev *mln.Database, i int) error {
	if i < 0 || i >= len(s.Groups) {
		return fmt.Errorf("learn: example %d out of range", i)
	}
	add := func(a int32) {
		ev.Set(s.apred[a], s.args[s.aargs[a]:s.aargs[a+1]], s.atruth[a])
	}
	for _, c := range s.Groups[i] {
		if c < 0 || int(c) >= len(s.slot) || s.slot[c] < 0 {
			return fmt.Errorf("learn: example %d: %d is not a constant of type %s", i, c, s.Model.Types[s.Type].Name)
		}
		k := s.slot[c]
		for _, a := range s.refs[s.starts[k]:s.starts[k+1]] {
			add(a)
		}
	}
	return nil
}

// Example grounds example i.
func (s *PartitionSource) Example(ctx context.Context, i int) (*Example, error) {
	ev := mln.NewDatabase(s.Model)
	if err := s.own(ev, i); err != nil {
		return nil, err
	}
	opt := s.Options
	opt.Query = s.Query
	opt.Shared = s.shared
	opt.Domains = s.Domains(i)
	net, err := ground.Ground(ctx, s.Model, ev, opt)
	if err != nil {
		return nil, fmt.Errorf("example %s: %w", s.name(i), err)
	}
	n := net.NumAtoms()
	// The truth: only query atoms can be listed true (a listed atom of
	// another predicate is evidence, or unknown), so this is
	// net.Assignment(s.DB) without a look-up per atom.
	ex := &Example{Net: net, Truth: make([]bool, n), Query: make([]bool, n), Name: s.name(i)}
	for _, c := range s.Groups[i] {
		k := s.slot[c]
		for _, a := range s.trefs[s.tstarts[k]:s.tstarts[k+1]] {
			if id, ok := net.AtomID(s.apred[a], s.args[s.aargs[a]:s.aargs[a+1]]); ok {
				ex.Truth[id] = true
			}
		}
	}
	for a := 0; a < n; a++ {
		p := net.AtomPred[a]
		ex.Query[a] = p >= 0 && int(p) < len(s.isQuery) && s.isQuery[p]
	}
	return ex, nil
}

// Domains returns the domains example i is ground over: Options.Domains,
// the group's constants for T and, unless SharedDomains, the example's own
// constants for the types that occur beside T (see PartitionSource). The
// types it leaves out have the model's domain. i must be in range.
func (s *PartitionSource) Domains(i int) map[mln.TypeID][]mln.ConstID {
	var doms map[mln.TypeID][]mln.ConstID
	if s.SharedDomains {
		doms = make(map[mln.TypeID][]mln.ConstID, len(s.Options.Domains)+1)
		maps.Copy(doms, s.Options.Domains)
	} else {
		d := newExampleDomains(s.Model, s.restrict)
		for _, c := range s.Groups[i] {
			k := s.slot[c]
			if k < 0 {
				continue
			}
			for _, a := range s.refs[s.starts[k]:s.starts[k+1]] {
				d.atom(s.apred[a], s.args[s.aargs[a]:s.aargs[a+1]])
			}
			for _, a := range s.trefs[s.tstarts[k]:s.tstarts[k+1]] {
				d.atom(s.apred[a], s.args[s.aargs[a]:s.aargs[a+1]])
			}
		}
		doms = d.domains(s.Options.Domains)
	}
	doms[s.Type] = s.Groups[i]
	return doms
}

// name names example i by its constants.
func (s *PartitionSource) name(i int) string {
	var names []string
	for _, c := range s.Groups[i] {
		if c >= 0 && int(c) < s.Model.NumConsts() {
			names = append(names, s.Model.ConstName(c))
		}
	}
	return strings.Join(names, ",")
}
