package lifted

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/wmc"
	"github.com/marple-mln/marple/mln"
)

// DefaultMaxWork is the work bound used when Options.MaxWork is zero: terms
// of the sums over cell counts, clause groundings evaluated and
// assignments of the local sums (a minute of CPU or less).
const DefaultMaxWork = 100_000_000

// Options are the settings of Exact and Sample.
type Options struct {
	// Query lists the query predicates: their unknown atoms get a
	// marginal. As in package ground, the query predicates and OpenWorld
	// are open world (unlisted atoms unknown); every other predicate is
	// closed world (unlisted atoms false, "?"-listed atoms unknown).
	Query     []mln.PredID
	OpenWorld []mln.PredID
	// NoMarginals computes log Z alone.
	NoMarginals bool
	// MaxWork bounds the work of the lifted computation (0:
	// DefaultMaxWork; negative: no bound). Past it the lifted computation
	// stops with a *NotLiftableError whose OutOfReach is set.
	MaxWork int64
	// MaxSpecialAtoms bounds the unknown atoms over the constants that
	// evidence on pairs or the formulas single out ("special" constants)
	// that the other constants' weights read: Exact enumerates their
	// values (0: 16), Sample draws them (0: 40).
	MaxSpecialAtoms int
	// NoFallback makes Exact fail with the lifted computation's error
	// instead of counting the ground network when the model or its
	// evidence is outside the lifted fragment.
	NoFallback bool
	// Ground are the settings of the ground fallback (package wmc; its
	// NoMarginals is taken from NoMarginals above).
	Ground wmc.Options
}

// Method names how a Result was computed.
const (
	MethodLifted   = "lifted"   // lifted weighted first-order model counting
	MethodGround   = "ground"   // exact weighted model counting of the ground network
	MethodSampling = "sampling" // lifted importance sampling
)

// AtomClass is a set of interchangeable unknown query atoms: the same
// marginal for each.
type AtomClass struct {
	Pred mln.PredID
	Args []mln.ConstID // one atom of the class
	// Count is the number of atoms in the class.
	Count int64
	// Prob is the marginal probability of each atom, and Err its standard
	// error (zero for exact methods; NaN when one importance weight
	// carries the whole estimate).
	Prob, Err float64
}

// Result is the outcome of Exact or Sample.
type Result struct {
	// LogZ is the natural log of the partition function: the sum over the
	// worlds that agree with the evidence of exp(Σ weights of the true
	// groundings), zero for worlds violating a hard clause. Every unknown
	// atom counts, those in no grounding a factor 2 each: LogZ is the
	// log-sum-exp of ground.Network.Score over the ground network's
	// worlds plus ln 2 for each unknown atom the network leaves out.
	LogZ float64
	// LogZErr is the standard error of LogZ (zero for exact methods; NaN
	// when one importance weight carries the whole estimate).
	LogZErr float64
	// ESS is, for sampling, the smallest effective sample size
	// ((Σw)²/Σw² of the importance weights) among the estimates made.
	ESS float64
	// Warnings are what a caller should tell the user about the answer:
	// the fallback to the ground count (with Reason), degenerate
	// importance weights.
	Warnings []string
	// Method is MethodLifted, MethodGround or MethodSampling; Reason says
	// why the lifted computation was not used when Method is MethodGround.
	Method string
	Reason string
	// Classes are the unknown query atoms, grouped into classes of
	// interchangeable atoms (one atom per class for MethodGround).
	Classes []AtomClass
	// Work is the work the lifted computation did (count terms and local
	// assignments).
	Work int64

	model *mln.Model
	base  *base
	index map[classKey]int // lifted: element classes -> Classes
	atoms map[string]int   // ground: atom -> Classes
	query []bool
}

// classKey identifies an atom class by the classes of its arguments: a
// class index for a non-special constant, -2-c for special constant c.
type classKey struct {
	pred mln.PredID
	a, b int32
	diag bool
}

// Prob returns the marginal of query atom pred(args) and whether it is an
// unknown query atom.
func (r *Result) Prob(pred mln.PredID, args []mln.ConstID) (float64, bool) {
	i, ok := r.class(pred, args)
	if !ok {
		return 0, false
	}
	return r.Classes[i].Prob, true
}

// Err returns the standard error of the marginal of pred(args).
func (r *Result) Err(pred mln.PredID, args []mln.ConstID) float64 {
	i, ok := r.class(pred, args)
	if !ok {
		return 0
	}
	return r.Classes[i].Err
}

func (r *Result) class(pred mln.PredID, args []mln.ConstID) (int, bool) {
	if r.atoms != nil {
		i, ok := r.atoms[groundKey(pred, args)]
		return i, ok
	}
	if int(pred) >= len(r.query) || !r.query[pred] || r.base == nil {
		return 0, false
	}
	pr := r.model.Preds[pred]
	if len(args) != pr.Arity() {
		return 0, false
	}
	k := classKey{pred: pred, a: -1, b: -1}
	for i, c := range args {
		e, ok := r.base.elemKey(r.model, pr.Args[i], c)
		if !ok {
			return 0, false
		}
		if i == 0 {
			k.a = e
		} else {
			k.b = e
		}
	}
	k.diag = len(args) == 2 && args[0] == args[1]
	i, ok := r.index[k]
	return i, ok
}

// Each calls fn with every unknown query atom and its marginal, predicate
// by predicate, arguments in domain order. It stops when fn returns
// false.
func (r *Result) Each(fn func(pred mln.PredID, args []mln.ConstID, prob, err float64) bool) {
	m := r.model
	for pi, pr := range m.Preds {
		if pi >= len(r.query) || !r.query[pi] {
			continue
		}
		args := make([]mln.ConstID, pr.Arity())
		var rec func(i int) bool
		rec = func(i int) bool {
			if i == len(args) {
				if k, ok := r.class(pr.ID, args); ok {
					return fn(pr.ID, args, r.Classes[k].Prob, r.Classes[k].Err)
				}
				return true
			}
			for _, c := range m.Types[pr.Args[i]].Consts {
				args[i] = c
				if !rec(i + 1) {
					return false
				}
			}
			return true
		}
		if !rec(0) {
			return
		}
	}
}

func (b *base) elemKey(m *mln.Model, t mln.TypeID, c mln.ConstID) (int32, bool) {
	pos, ok := m.Types[t].Index(c)
	if !ok {
		return 0, false
	}
	e := b.elemClass[t][pos]
	if e < 0 {
		return -2 - int32(c), true
	}
	return e, true
}

// members returns the first k members of class ci of type t.
func (b *base) members(m *mln.Model, t mln.TypeID, ci int32, k int) []mln.ConstID {
	var out []mln.ConstID
	for pos, e := range b.elemClass[t] {
		if e == ci {
			out = append(out, m.Types[t].Consts[pos])
			if len(out) == k {
				break
			}
		}
	}
	return out
}

// setup compiles the theory and the lifted problem.
func setup(m *mln.Model, db *mln.Database, opt Options) (*problem, *base, *limits, error) {
	lim := &limits{maxOuterBits: 16, maxCells: 10, maxWork: DefaultMaxWork, maxComponent: 5000, wmcNodes: 1_000_000}
	if opt.MaxSpecialAtoms > 0 {
		lim.maxOuterBits = opt.MaxSpecialAtoms
	}
	lim.maxOuterBits = min(lim.maxOuterBits, 40)
	if opt.MaxWork != 0 {
		lim.maxWork = opt.MaxWork
	}
	if db == nil {
		db = mln.NewDatabase(m)
	}
	if m.IsHybrid() {
		return nil, nil, nil, notLiftable("the model has numeric terms (hybrid)")
	}
	th, err := compileTheory(m)
	if err != nil {
		return nil, nil, nil, err
	}
	open := make([]bool, len(m.Preds))
	for _, q := range opt.Query {
		open[q] = true
	}
	for _, q := range opt.OpenWorld {
		open[q] = true
	}
	p, b, err := newProblem(th, db, open, lim)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, b, lim, nil
}

// ErrInfeasible is wrapped by the error of a model whose hard clauses no
// world satisfies given the evidence (Z = 0): infer.ErrInfeasible.
var ErrInfeasible = infer.ErrInfeasible

// Exact computes log Z and the exact marginal of every unknown query atom
// of m (compiled) under the evidence db by lifted weighted first-order
// model counting, without grounding. When the model or its evidence is
// outside the lifted fragment (see the package documentation) it counts
// the ground network instead, unless opt.NoFallback; Result.Method and
// Result.Reason say which was used and why.
func Exact(ctx context.Context, m *mln.Model, db *mln.Database, opt Options) (*Result, error) {
	r, err := exactLifted(ctx, m, db, opt)
	var nl *NotLiftableError
	if err == nil || !errors.As(err, &nl) || opt.NoFallback {
		return r, err
	}
	return exactGround(ctx, m, db, opt, nl)
}

// exactLifted is Exact without the fallback.
func exactLifted(ctx context.Context, m *mln.Model, db *mln.Database, opt Options) (*Result, error) {
	p, b, lim, err := setup(m, db, opt)
	if err != nil {
		return nil, err
	}
	lf := newLfact(p.maxN)
	p.shared = newShared()
	var recs []outerRec
	lz, err := p.logZRec(ctx, lf, &recs)
	if err != nil {
		return nil, err
	}
	if math.IsInf(lz, -1) {
		return nil, fmt.Errorf("lifted: %w", ErrInfeasible)
	}
	r := &Result{LogZ: lz, Method: MethodLifted, model: m, base: b, index: map[classKey]int{}, query: make([]bool, len(m.Preds))}
	for _, q := range opt.Query {
		r.query[q] = true
	}
	if !opt.NoMarginals {
		for _, q := range p.queryClasses(b, opt.Query) {
			var lt, pr float64
			switch {
			case q.probe != nil:
				// P = Z_T / (Z_T + Z_F), both sums made of the same
				// terms: no difference of large log Z values.
				var c *problem
				if c, err = q.probe(); err == nil {
					var lf2 float64
					if lt, lf2, err = c.probeLogZ(ctx, lf); err == nil {
						pr = 1 / (1 + math.Exp(lf2-lt))
					}
				}
			case q.sIdx >= 0:
				pr, err = p.specialMarginal(ctx, q.sIdx, recs)
			default:
				var c *problem
				if c, err = q.build(mln.True); err == nil {
					if lt, err = c.logZ(ctx, lf); err == nil {
						pr = math.Exp(lt - lz)
					}
				}
			}
			if err != nil {
				return nil, err
			}
			r.index[q.key] = len(r.Classes)
			r.Classes = append(r.Classes, AtomClass{Pred: q.key.pred, Args: q.args, Count: q.count, Prob: min(max(pr, 0), 1)})
		}
	}
	r.Work = lim.work
	return r, nil
}

// logZ sums the weights over the outer assignments (the unknown atoms over
// special constants) of the special groundings times the count sum.
func (p *problem) logZ(ctx context.Context, lf lfact) (float64, error) {
	return p.logZRec(ctx, lf, nil)
}

// outerRec is one outer assignment's log weights: the special groundings'
// and the count sum's.
type outerRec struct {
	a         uint64
	ls, inner float64
}

// logZRec is logZ, appending each outer assignment of non-zero weight to
// rec when rec is not nil.
func (p *problem) logZRec(ctx context.Context, lf lfact, rec *[]outerRec) (float64, error) {
	cache := map[string]float64{}
	acc := newLSE()
	sigma := make([]bool, p.nUnknown)
	for a := uint64(0); a < 1<<len(p.iface); a++ {
		if a&63 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if err := p.lim.add(1); err != nil {
			return 0, err
		}
		for i, b := range p.iface {
			sigma[b] = a>>i&1 == 1
		}
		ls, in, err := p.outer(sigma, lf, cache)
		if err != nil {
			return 0, err
		}
		acc.add(ls + in)
		if rec != nil && !math.IsInf(ls+in, -1) {
			*rec = append(*rec, outerRec{a, ls, in})
		}
	}
	return acc.log(), nil
}

// outer is the log weight of one outer assignment: that of the special
// groundings and that of the count sum.
func (p *problem) outer(sigma []bool, lf lfact, cache map[string]float64) (float64, float64, error) {
	ls, err := p.specialWeight(sigma)
	if err != nil || math.IsInf(ls, -1) {
		return ls, 0, err
	}
	w, err := p.weightsFor(sigma)
	if err != nil {
		return 0, 0, err
	}
	key := w.key(p)
	in, ok := cache[key]
	if !ok {
		in, err = p.countSum(w, lf)
		if err != nil {
			return 0, 0, err
		}
		cache[key] = in
	}
	return ls, in, nil
}

// probeLogZ is log Z with the probe's atom true and false.
func (p *problem) probeLogZ(ctx context.Context, lf lfact) (float64, float64, error) {
	type three struct{ all, t, f float64 }
	cache := map[string]three{}
	accT, accF := newLSE(), newLSE()
	sigma := make([]bool, p.nUnknown)
	for a := uint64(0); a < 1<<len(p.iface); a++ {
		if a&63 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, 0, err
			}
		}
		if err := p.lim.add(1); err != nil {
			return 0, 0, err
		}
		for i, b := range p.iface {
			sigma[b] = a>>i&1 == 1
		}
		ls, ok := 0.0, false
		if p.shared != nil {
			ls, ok = p.shared.ls[a]
		}
		if !ok {
			var err error
			if ls, err = p.specialWeight(sigma); err != nil {
				return 0, 0, err
			}
			if p.shared != nil {
				p.shared.ls[a] = ls
			}
		}
		if math.IsInf(ls, -1) {
			continue
		}
		w, err := p.weightsFor(sigma)
		if err != nil {
			return 0, 0, err
		}
		key := w.key(p)
		v, ok := cache[key]
		if !ok {
			v.all, v.t, v.f, err = p.countSumProbe(w, lf)
			if err != nil {
				return 0, 0, err
			}
			cache[key] = v
		}
		accT.add(ls + v.t)
		accF.add(ls + v.f)
	}
	return accT.log(), accF.log(), nil
}

// specialMarginal is the marginal of the unknown atom satoms[idx], from
// the outer assignments of the unconditioned sum: an atom the count sums
// read is one of the enumerated bits; another only changes the special
// groundings' sum. Both sums are taken relative to the same largest term,
// so that no digit is lost to the size of log Z.
func (p *problem) specialMarginal(ctx context.Context, idx int, recs []outerRec) (float64, error) {
	m := math.Inf(-1)
	for _, r := range recs {
		m = max(m, r.ls+r.inner)
	}
	all := 0.0
	for _, r := range recs {
		all += math.Exp(r.ls + r.inner - m)
	}
	bit := p.satoms[idx].bit
	sub := 0.0
	if p.isIface[bit] {
		i := slices.Index(p.iface, bit)
		for _, r := range recs {
			if r.a>>i&1 == 1 {
				sub += math.Exp(r.ls + r.inner - m)
			}
		}
		return sub / all, nil
	}
	p.satoms[idx].truth = mln.True
	p.fixed = 1
	defer func() {
		p.satoms[idx].truth = mln.Unknown
		p.fixed = 0
	}()
	sigma := make([]bool, p.nUnknown)
	for k, r := range recs {
		if k&63 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		for i, b := range p.iface {
			sigma[b] = r.a>>i&1 == 1
		}
		ls, err := p.specialWeight(sigma)
		if err != nil {
			return 0, err
		}
		sub += math.Exp(ls + r.inner - m)
	}
	return sub / all, nil
}

// queryClass is a class of interchangeable query atoms with the problem
// conditioned on one of them being true (and, for sampling, false).
type queryClass struct {
	key   classKey
	args  []mln.ConstID
	count int64
	// sIdx is, for an atom over special constants, its index in
	// problem.satoms (-1 otherwise).
	sIdx int
	// probe, when not nil, returns the problem with one constant of the
	// class held out as a probe (an atom of that constant alone).
	probe func() (*problem, error)
	// build returns the problem conditioned on an atom of the class
	// having value v.
	build func(v mln.Truth) (*problem, error)
}

// queryClasses lists the classes of unknown query atoms of p.
func (p *problem) queryClasses(b *base, query []mln.PredID) []queryClass {
	m := p.th.m
	var out []queryClass
	q := slices.Clone(query)
	slices.Sort(q)
	q = slices.Compact(q)
	cond := func(key classKey, args []mln.ConstID, count int64, f func(c *problem, v mln.Truth)) {
		sIdx := -1
		if key.a < -1 && (key.b < -1 || key.b == -1 && len(args) < 2) || len(args) == 0 {
			sIdx = p.sIndex[atomKey(key.pred, args)]
		}
		out = append(out, queryClass{key: key, args: args, count: count, sIdx: sIdx, build: func(v mln.Truth) (*problem, error) {
			c := p.clone()
			f(c, v)
			return c, c.finish()
		}})
	}
	spKey := func(c mln.ConstID) int32 { return -2 - int32(c) }
	for _, pid := range q {
		pr := m.Preds[pid]
		switch pr.Arity() {
		case 0:
			if p.truth(pid, nil) == mln.Unknown {
				cond(classKey{pred: pid, a: -1, b: -1}, nil, 1, func(c *problem, v mln.Truth) { c.over[atomKey(pid, nil)] = v })
			}
		case 1:
			t := pr.Args[0]
			ti := p.types[t]
			j := ti.localIdx[atomKey(pid, []mln.ConstID{-1})]
			for ci, cl := range ti.classes {
				if cl.n > 0 && cl.sig[j] == mln.Unknown {
					cond(classKey{pred: pid, a: int32(ci), b: -1}, []mln.ConstID{cl.rep}, int64(cl.n), func(c *problem, v mln.Truth) { c.condLocal(t, ci, j, v) })
					out[len(out)-1].probe = p.proberLocal(t, ci, j)
				}
			}
			for _, s := range ti.specials {
				args := []mln.ConstID{s}
				if p.truth(pid, args) == mln.Unknown {
					cond(classKey{pred: pid, a: spKey(s), b: -1}, args, 1, func(c *problem, v mln.Truth) { c.over[atomKey(pid, args)] = v })
				}
			}
		case 2:
			t1, t2 := pr.Args[0], pr.Args[1]
			ta, tb := p.types[t1], p.types[t2]
			if t1 == t2 {
				j := ta.localIdx[atomKey(pid, []mln.ConstID{-1, -1})]
				for ci, cl := range ta.classes {
					if cl.n > 0 && cl.sig[j] == mln.Unknown {
						cond(classKey{pred: pid, a: int32(ci), b: int32(ci), diag: true}, []mln.ConstID{cl.rep, cl.rep}, int64(cl.n), func(c *problem, v mln.Truth) { c.condLocal(t1, ci, j, v) })
						out[len(out)-1].probe = p.proberLocal(t1, ci, j)
					}
				}
				for _, s := range ta.specials {
					args := []mln.ConstID{s, s}
					if p.truth(pid, args) == mln.Unknown {
						cond(classKey{pred: pid, a: spKey(s), b: spKey(s), diag: true}, args, 1, func(c *problem, v mln.Truth) { c.over[atomKey(pid, args)] = v })
					}
				}
			}
			// Pairs of distinct constants.
			if p.open[pid] {
				for c1, k1 := range ta.classes {
					if k1.n == 0 {
						continue
					}
					for c2, k2 := range tb.classes {
						if k2.n == 0 {
							continue
						}
						var x, y mln.ConstID
						count := int64(k1.n) * int64(k2.n)
						if t1 == t2 && c1 == c2 {
							if k1.n < 2 {
								continue
							}
							mm := b.members(m, t1, int32(c1), 2)
							x, y = mm[0], mm[1]
							count = int64(k1.n) * int64(k1.n-1)
						} else {
							x = b.members(m, t1, int32(c1), 1)[0]
							y = b.members(m, t2, int32(c2), 1)[0]
						}
						args := []mln.ConstID{x, y}
						cond(classKey{pred: pid, a: int32(c1), b: int32(c2)}, args, count, func(c *problem, v mln.Truth) {
							c.makeSpecial(t1, c1, x)
							c.makeSpecial(t2, c2, y)
							c.over[atomKey(pid, args)] = v
						})
						out[len(out)-1].probe = p.proberPair(t1, c1, t2, c2, pid)
					}
					for _, s := range tb.specials {
						x := b.members(m, t1, int32(c1), 1)[0]
						args := []mln.ConstID{x, s}
						cond(classKey{pred: pid, a: int32(c1), b: spKey(s)}, args, int64(k1.n), func(c *problem, v mln.Truth) {
							c.makeSpecial(t1, c1, x)
							c.over[atomKey(pid, args)] = v
						})
						out[len(out)-1].probe = p.proberSpecial(t1, c1, pid, []mln.ConstID{e1, s})
					}
				}
				for _, s := range ta.specials {
					for c2, k2 := range tb.classes {
						if k2.n == 0 {
							continue
						}
						y := b.members(m, t2, int32(c2), 1)[0]
						args := []mln.ConstID{s, y}
						cond(classKey{pred: pid, a: spKey(s), b: int32(c2)}, args, int64(k2.n), func(c *problem, v mln.Truth) {
							c.makeSpecial(t2, c2, y)
							c.over[atomKey(pid, args)] = v
						})
						out[len(out)-1].probe = p.proberSpecial(t2, c2, pid, []mln.ConstID{s, e1})
					}
				}
			}
			for _, s := range ta.specials {
				for _, u := range tb.specials {
					if s == u {
						continue
					}
					args := []mln.ConstID{s, u}
					if p.truth(pid, args) == mln.Unknown {
						cond(classKey{pred: pid, a: spKey(s), b: spKey(u)}, args, 1, func(c *problem, v mln.Truth) { c.over[atomKey(pid, args)] = v })
					}
				}
			}
		}
	}
	return out
}
