package lifted

import (
	"maps"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// class is a set of interchangeable non-special constants of a type: the
// same evidence on each of their local atoms (P(e) and R(e,e)).
type class struct {
	sig []mln.Truth // per local slot of the type
	n   int         // members
	rep mln.ConstID // a member
}

// typeInfo is one type's part of a problem.
type typeInfo struct {
	id       mln.TypeID
	local    []slot       // P(e) for unary P, R(e,e) for binary R over the type twice
	localIdx map[akey]int // atomKey(pattern) -> index in local
	rel      []slot       // the slots that split cells
	relIdx   map[akey]int
	classes  []*class
	specials []mln.ConstID // the type's special constants
}

// satom is an atom whose arguments are all special constants (or none).
type satom struct {
	pred  mln.PredID
	args  []mln.ConstID
	truth mln.Truth
	bit   int // index into the outer assignment when truth is Unknown
}

// problem is a theory with its evidence, in lifted form: each type's
// non-special constants in classes, the special constants apart.
type problem struct {
	th    *theory
	db    *mln.Database
	open  []bool
	over  map[akey]mln.Truth // evidence added by conditioning
	types []*typeInfo
	isSp  map[mln.ConstID]bool
	// special-only atoms, built by finish
	satoms   []satom
	sIndex   map[akey]int
	nUnknown int
	// iface lists the unknown special atoms (bits) that some cell weight
	// or pair factor reads: only they are enumerated (or sampled); the
	// others are summed out with the groundings over special constants.
	iface   []int
	isIface []bool
	probing bool         // recording the bits read (no short cuts)
	read    map[int]bool // the bits read while probing
	// deps lists, per local sum, the interface bits it reads (found by
	// probing); lcache holds the sums by those bits' values.
	deps   map[sumKey][]int
	lcache map[sumVal]float64
	maxN   int // the largest class
	fixed  int // atoms outside the interface fixed for a marginal
	probe  *probeSpec
	// shared holds the local sums and special weights of problems with
	// the same special constants and evidence (a problem and its probes).
	shared *sharedCache
	lim    *limits
}

// limits bound the work of a computation.
type limits struct {
	maxOuterBits int   // unknown atoms among special constants, enumerated
	maxCells     int   // relevant slots per type (cells are 2^slots)
	maxWork      int64 // terms of all sums
	maxComponent int   // free atoms of a local sum's component
	wmcNodes     int64 // search nodes of the count of one component
	work         int64
}

func (p *problem) defaultTruth(pred mln.PredID) mln.Truth {
	if p.open[pred] {
		return mln.Unknown
	}
	return mln.False
}

// truth returns the evidence value of an atom (conditioning included).
func (p *problem) truth(pred mln.PredID, args []mln.ConstID) mln.Truth {
	if v, ok := p.over[atomKey(pred, args)]; ok {
		return v
	}
	if v, ok := p.db.Get(pred, args); ok {
		return v
	}
	return p.defaultTruth(pred)
}

// base holds what a Result needs to map atoms to their classes.
type base struct {
	elemClass map[mln.TypeID][]int32 // per type, per domain position: class index, or -1 for a special
}

// newProblem builds the lifted problem of th under db with open the
// open-world predicates.
func newProblem(th *theory, db *mln.Database, open []bool, lim *limits) (*problem, *base, error) {
	m := th.m
	p := &problem{th: th, db: db, open: open, over: map[akey]mln.Truth{}, isSp: map[mln.ConstID]bool{}, lim: lim}
	for _, c := range th.consts {
		p.isSp[c] = true
	}
	// Non-default evidence on a pair of distinct constants makes both
	// special.
	for _, pr := range m.Preds {
		if pr.Arity() != 2 {
			continue
		}
		def := p.defaultTruth(pr.ID)
		db.Atoms(pr.ID, func(args []mln.ConstID, v mln.Truth) {
			if args[0] != args[1] && v != def {
				p.isSp[args[0]] = true
				p.isSp[args[1]] = true
			}
		})
	}
	rel := th.relevantSlots()
	b := &base{elemClass: map[mln.TypeID][]int32{}}
	for _, t := range m.Types {
		ti := &typeInfo{id: t.ID, localIdx: map[akey]int{}, relIdx: map[akey]int{}}
		for _, pr := range m.Preds {
			var pat []mln.ConstID
			switch {
			case pr.Arity() == 1 && pr.Args[0] == t.ID:
				pat = []mln.ConstID{-1}
			case pr.Arity() == 2 && pr.Args[0] == t.ID && pr.Args[1] == t.ID:
				pat = []mln.ConstID{-1, -1}
			default:
				continue
			}
			ti.localIdx[atomKey(pr.ID, pat)] = len(ti.local)
			ti.local = append(ti.local, slot{pred: pr.ID, pattern: pat})
		}
		for _, s := range rel[t.ID] {
			ti.relIdx[atomKey(s.pred, s.pattern)] = len(ti.rel)
			ti.rel = append(ti.rel, s)
		}
		if len(ti.rel) > lim.maxCells {
			return nil, nil, notLiftable("type %s has %d atoms per constant that interact between constants (at most %d)", t.Name, len(ti.rel), lim.maxCells)
		}
		// Signatures of the non-special constants.
		ns := len(ti.local)
		sig := make([]mln.Truth, ns*t.Size())
		for j, s := range ti.local {
			d := p.defaultTruth(s.pred)
			for e := range t.Size() {
				sig[e*ns+j] = d
			}
			db.Atoms(s.pred, func(args []mln.ConstID, v mln.Truth) {
				if len(args) == 2 && args[0] != args[1] {
					return
				}
				if e, ok := t.Index(args[0]); ok {
					sig[int(e)*ns+j] = v
				}
			})
		}
		ec := make([]int32, t.Size())
		byKey := map[string]int32{}
		for e, c := range t.Consts {
			if p.isSp[c] {
				ec[e] = -1
				ti.specials = append(ti.specials, c)
				continue
			}
			s := sig[e*ns : (e+1)*ns]
			k := string(truthBytes(s))
			ci, ok := byKey[k]
			if !ok {
				ci = int32(len(ti.classes))
				byKey[k] = ci
				ti.classes = append(ti.classes, &class{sig: slices.Clone(s), rep: c})
			}
			ti.classes[ci].n++
			ec[e] = ci
		}
		b.elemClass[t.ID] = ec
		p.types = append(p.types, ti)
	}
	if err := p.finish(); err != nil {
		return nil, nil, err
	}
	return p, b, nil
}

func truthBytes(s []mln.Truth) []byte {
	b := make([]byte, len(s))
	for i, v := range s {
		b[i] = byte(v)
	}
	return b
}

// finish lists the atoms over special constants and numbers the unknown
// ones.
func (p *problem) finish() error {
	m := p.th.m
	p.satoms = p.satoms[:0]
	p.sIndex = map[akey]int{}
	p.nUnknown = 0
	p.maxN = 0
	for _, ti := range p.types {
		for _, c := range ti.classes {
			p.maxN = max(p.maxN, c.n)
		}
	}
	add := func(pr mln.PredID, args []mln.ConstID) error {
		a := satom{pred: pr, args: slices.Clone(args), truth: p.truth(pr, args), bit: -1}
		if a.truth == mln.Unknown {
			a.bit = p.nUnknown
			p.nUnknown++
			if p.nUnknown > 1<<20 {
				return notLiftable("more than %d unknown atoms among the constants that evidence or formulas single out (%d special constants)", 1<<20, len(p.isSp))
			}
		}
		p.sIndex[atomKey(pr, args)] = len(p.satoms)
		p.satoms = append(p.satoms, a)
		return nil
	}
	for _, pr := range m.Preds {
		switch pr.Arity() {
		case 0:
			if err := add(pr.ID, nil); err != nil {
				return err
			}
		case 1:
			for _, c := range p.types[pr.Args[0]].specials {
				if err := add(pr.ID, []mln.ConstID{c}); err != nil {
					return err
				}
			}
		case 2:
			for _, c := range p.types[pr.Args[0]].specials {
				for _, d := range p.types[pr.Args[1]].specials {
					if err := add(pr.ID, []mln.ConstID{c, d}); err != nil {
						return err
					}
				}
			}
		}
	}
	// Which unknown special atoms do the cell weights and pair factors
	// read?
	p.probing, p.read, p.deps, p.lcache = true, map[int]bool{}, map[sumKey][]int{}, map[sumVal]float64{}
	_, err := p.weightsFor(make([]bool, p.nUnknown))
	p.probing = false
	if err != nil {
		return err
	}
	p.iface = p.iface[:0]
	p.isIface = make([]bool, p.nUnknown)
	for b := range p.nUnknown {
		if p.read[b] {
			p.iface = append(p.iface, b)
			p.isIface[b] = true
		}
	}
	p.read = nil
	if len(p.iface) > p.lim.maxOuterBits {
		return notLiftable("%d unknown atoms among the constants that evidence or formulas single out interact with the others (at most %d; %d special constants)", len(p.iface), p.lim.maxOuterBits, len(p.isSp))
	}
	return nil
}

// clone copies p for conditioning.
func (p *problem) clone() *problem {
	q := *p
	q.over = maps.Clone(p.over)
	q.isSp = maps.Clone(p.isSp)
	q.types = make([]*typeInfo, len(p.types))
	for i, ti := range p.types {
		u := *ti
		u.classes = make([]*class, len(ti.classes))
		for j, c := range ti.classes {
			d := *c
			u.classes[j] = &d
		}
		u.specials = slices.Clone(ti.specials)
		q.types[i] = &u
	}
	q.satoms = nil
	q.sIndex = nil
	q.iface = nil
	q.shared = nil
	q.deps = nil
	q.lcache = nil
	q.isIface = nil
	return &q
}

// condLocal sets local slot j of one member of class ci of type t to v:
// that member leaves the class for a class of its own.
func (p *problem) condLocal(t mln.TypeID, ci, j int, v mln.Truth) {
	ti := p.types[t]
	c := ti.classes[ci]
	c.n--
	sig := slices.Clone(c.sig)
	sig[j] = v
	ti.classes = append(ti.classes, &class{sig: sig, n: 1, rep: c.rep})
}

// makeSpecial takes one member of class ci of type t (not rep) out of its
// class and makes it special. rep must be a member.
func (p *problem) makeSpecial(t mln.TypeID, ci int, rep mln.ConstID) {
	ti := p.types[t]
	ti.classes[ci].n--
	ti.specials = append(ti.specials, rep)
	p.isSp[rep] = true
}

// sumKey names a local sum: a cell weight (t2 = -1) or a pair factor.
type sumKey struct {
	t1, c1, cell1, t2, cell2 int
}

type sumVal struct {
	k sumKey
	v uint64
}

// cached returns the local sum k under sigma, computing it with f the
// first time its interface bits take these values (and, while probing,
// recording which bits it reads).
func (p *problem) cached(k sumKey, sigma []bool, f func() (float64, error)) (float64, error) {
	if p.probing {
		before := p.read
		p.read = map[int]bool{}
		v, err := f()
		var bits []int
		for b := range p.read {
			bits = append(bits, b)
			before[b] = true
		}
		slices.Sort(bits)
		p.deps[k] = bits
		p.read = before
		return v, err
	}
	bits, ok := p.deps[k]
	if !ok || len(bits) > 64 {
		return f()
	}
	cache := p.lcache
	if p.shared != nil && k.c1 >= -1 {
		cache = p.shared.local
	}
	var key uint64
	for i, b := range bits {
		if sigma[b] {
			key |= 1 << i
		}
	}
	sv := sumVal{k, key}
	if v, ok := cache[sv]; ok {
		return v, nil
	}
	v, err := f()
	if err == nil {
		cache[sv] = v
	}
	return v, err
}

// sharedCache holds what a problem and its probes compute alike: the
// local sums that involve no probe, and the special groundings' weight
// of each outer assignment.
type sharedCache struct {
	local map[sumVal]float64
	ls    map[uint64]float64
}

func newShared() *sharedCache {
	return &sharedCache{local: map[sumVal]float64{}, ls: map[uint64]float64{}}
}
