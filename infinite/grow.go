package infinite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/lazy"
	"github.com/marple-mln/marple/infer/wmc"
	"github.com/marple-mln/marple/mln"
)

// Graph generates the true atoms of a binary evidence predicate over a
// growing type at each size: a bounded-degree structure such as a
// friendship ring.
type Graph struct {
	Pred string
	// Kind is "ring" (i is related to i+1, ..., i+K modulo the size) or
	// "chain" (the same without wrapping around).
	Kind string
	K    int
	// Sym adds the reverse of every pair.
	Sym bool
}

// String writes the graph as ParseGraphs reads it.
func (g Graph) String() string {
	s := fmt.Sprintf("%s=%s:%d", g.Pred, g.Kind, g.K)
	if g.Sym {
		s += ":sym"
	}
	return s
}

// ParseGraphs reads a comma-separated list of graphs, each
// "Pred=ring:K", "Pred=chain:K", optionally followed by ":sym".
func ParseGraphs(spec string) ([]Graph, error) {
	var gs []Graph
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		pred, rest, ok := strings.Cut(item, "=")
		parts := strings.Split(rest, ":")
		if !ok || pred == "" || len(parts) < 2 || len(parts) > 3 || (parts[0] != "ring" && parts[0] != "chain") {
			return nil, fmt.Errorf("graph %q: want Pred=ring:K or Pred=chain:K, optionally :sym", item)
		}
		k, err := strconv.Atoi(parts[1])
		if err != nil || k < 1 {
			return nil, fmt.Errorf("graph %q: K must be a positive integer", item)
		}
		g := Graph{Pred: pred, Kind: parts[0], K: k}
		if len(parts) == 3 {
			if parts[2] != "sym" {
				return nil, fmt.Errorf("graph %q: unknown option %q (want sym)", item, parts[2])
			}
			g.Sym = true
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// Boundary conditions of the growing-domain inference: free (no evidence
// outside the window) or every random atom outside the window true, or
// false.
const (
	BoundaryAuto  = "auto"
	BoundaryFree  = "free"
	BoundaryTrue  = "true"
	BoundaryFalse = "false"
	BoundaryBoth  = "both"
)

// DefaultExactNodes is the search-node bound of the exact attempt that
// marple grow makes on each instance before its sampler (wmc's MaxNodes).
const DefaultExactNodes = 200_000

// DefaultSizes are the domain sizes Grow tries when none are given.
var DefaultSizes = []int{10, 20, 40, 80, 160}

// minSizes is the number of sizes Grow runs at least (when given as many)
// before it stops on convergence.
const minSizes = 3

// DefaultTolerance is the change between the last two sizes below which
// Grow takes a sequence as converged.
const DefaultTolerance = 0.01

// GrowOptions configure Grow.
type GrowOptions struct {
	// Load returns the model afresh (uncompiled), for each instance.
	Load func() (*mln.Model, error)
	// Query names the random predicates; empty: every predicate no graph
	// generates.
	Query []string
	// Graphs generate the evidence predicates.
	Graphs []Graph
	// Fixed names types whose domains do not grow (listed types are fixed
	// already).
	Fixed []string
	// Sizes are the numbers of constants of each growing type inside the
	// window, increasing (nil: DefaultSizes).
	Sizes []int
	// Boundary is one of the Boundary constants; auto (the zero value
	// too) is free when the uniqueness condition holds and both
	// otherwise.
	Boundary string
	// Border is the number of constants at each end of a growing type
	// whose atoms a true or false boundary fixes (0: 1).
	Border int
	// Tolerance is the convergence tolerance (0: DefaultTolerance).
	Tolerance float64
	// Engine computes the marginals of each instance; Lazy, when set
	// instead, runs on each instance's first-order model and evidence,
	// grounding only the clauses it makes active (lazy MC-SAT).
	Engine infer.Marginal
	Lazy   LazyMarginal
	// Exact, when set, is tried first on each instance (with Engine or
	// Lazy): an exact engine (wmc) that fails with an error wrapping
	// wmc.ErrOutOfReach is not tried again at larger sizes, and the
	// instance goes to Engine or Lazy, which the run's line says.
	Exact infer.Marginal
	// Diagnostics, when not nil, returns (and forgets) what the engine
	// reported about its last run, shown beside that run's marginals, and
	// whether the report flags the run as unreliable (chains that did not
	// mix, BP not converged or not confirmed).
	Diagnostics func() (report string, unreliable bool)
	Seed        int64
	// MaxBytes bounds each grounding (ground.Options.MaxBytes).
	MaxBytes int64
	// Log, when not nil, receives a line per instance as it is done.
	Log io.Writer
}

// LazyMarginal is a lazy marginal engine (engines.Lazy of lazy-mcsat).
type LazyMarginal interface {
	Name() string
	Run(ctx context.Context, pr lazy.Problem, seed int64) (*lazy.Result, error)
}

// Point is the result at one size under one boundary condition.
type Point struct {
	Size    int // constants of each growing type in the window
	Atoms   int
	Clauses int
	// Mean is, per random predicate, the mean marginal of its atoms in the
	// central half of the window (every argument of a growing type at
	// least a quarter of the window's width from either end): far enough
	// from the boundary for its effect to fade where the measure is
	// unique, wide enough to average sampling noise out.
	Mean   []float64
	Center []float64 // per random predicate: the marginal of the atom at the window's centre (NaN if none)
	Engine string    // the engine's diagnostics
	// Unreliable is set when the diagnostics flag the engine's run.
	Unreliable bool
	// Exact is set when the marginals are exact (Options.Exact).
	Exact bool
	// Method names the engine whose marginals these are, with "after
	// <exact engine> out of reach" when the exact engine was tried first.
	Method   string
	Boundary string
}

// Estimate is the limit of one sequence.
type Estimate struct {
	Value float64
	// Method is "aitken" (extrapolated from the last three sizes, their
	// changes shrinking geometrically) or "last" (the largest size).
	Method string
	// Converged is set when the last change is within the tolerance.
	Converged bool
	Delta     float64 // the last change (NaN with one size)
}

// GrowResult is the result of Grow.
type GrowResult struct {
	// Analysis is the check of the instance at the first size.
	Analysis   *Report
	Preds      []string
	Boundaries []string
	// Points[b] is the sequence under Boundaries[b].
	Points [][]Point
	// Border is the number of constants at each end that a true or false
	// boundary fixes.
	Border int
	// Limits[b][p] is the limit of predicate p's mean under Boundaries[b].
	Limits [][]Estimate
	// Verdict is VerdictLimit, VerdictPhaseTransition or
	// VerdictNotConverged, and Limit the limit per predicate when the
	// verdict is VerdictLimit.
	Verdict string
	Limit   []float64
	// Note explains the verdict.
	Note string
	// Unreliable lists the runs ("size 32, boundary true") whose engine
	// diagnostics flag them: the sequences, and the verdict, rest on
	// marginals that are not to be trusted.
	Unreliable []string
}

// The verdicts of Grow.
const (
	VerdictLimit           = "limit"
	VerdictPhaseTransition = "phase transition"
	VerdictNotConverged    = "not converged"
)

// RefusedError is Grow's refusal of a model without a limit to compute:
// one that is not locally finite.
type RefusedError struct {
	Reason string
}

func (e *RefusedError) Error() string { return "no limit to compute: " + e.Reason }

// instance is a model grown to one size.
type instance struct {
	m       *mln.Model
	db      *mln.Database
	query   []mln.PredID
	growing map[mln.TypeID]bool
	lo, hi  int // the window: constants lo..hi-1 of each growing type
	n       int // constants of each growing type
}

// build grows the model to size n with a border of b constants at each
// end fixed to the boundary (none when free).
func build(opt *GrowOptions, n, b int, boundary string) (*instance, error) {
	m, err := opt.Load()
	if err != nil {
		return nil, err
	}
	fixed := make(map[mln.TypeID]bool)
	for _, name := range opt.Fixed {
		t, ok := m.Type(name)
		if !ok {
			return nil, fmt.Errorf("unknown type %q", name)
		}
		fixed[t.ID] = true
	}
	if boundary == BoundaryFree {
		b = 0
	}
	in := &instance{m: m, growing: make(map[mln.TypeID]bool), lo: b, hi: b + n, n: n + 2*b}
	for _, t := range m.Types {
		if t.Listed.IsValid() || fixed[t.ID] {
			continue
		}
		if t.Size() > 0 {
			return nil, fmt.Errorf("%s: type %s has constants in the model (%s, ...); a growing type takes its constants from the sizes (0, 1, ...): list it to keep it fixed",
				t.Pos, t.Name, m.ConstName(t.Consts[0]))
		}
		in.growing[t.ID] = true
		for i := range in.n {
			m.AddToType(t.ID, strconv.Itoa(i))
		}
	}
	if len(in.growing) == 0 {
		return nil, errors.New("no type grows: every type is listed or fixed")
	}
	in.db = mln.NewDatabase(m)
	generated := make(map[mln.PredID]bool)
	for _, g := range opt.Graphs {
		p, ok := m.Pred(g.Pred)
		if !ok {
			return nil, fmt.Errorf("graph %s: unknown predicate %q", g, g.Pred)
		}
		if p.Arity() != 2 || p.Args[0] != p.Args[1] || !in.growing[p.Args[0]] {
			return nil, fmt.Errorf("graph %s: %s must have two arguments of the same growing type", g, g.Pred)
		}
		t := m.Types[p.Args[0]]
		generated[p.ID] = true
		for i := range in.n {
			for j := 1; j <= g.K; j++ {
				k := i + j
				if k >= in.n {
					if g.Kind == "chain" {
						break
					}
					k %= in.n
				}
				if k == i {
					continue
				}
				in.db.Set(p.ID, []mln.ConstID{t.Consts[i], t.Consts[k]}, mln.True)
				if g.Sym {
					in.db.Set(p.ID, []mln.ConstID{t.Consts[k], t.Consts[i]}, mln.True)
				}
			}
		}
	}
	if len(opt.Query) == 0 {
		for _, p := range m.Preds {
			if !generated[p.ID] {
				in.query = append(in.query, p.ID)
			}
		}
	} else {
		for _, name := range opt.Query {
			p, ok := m.Pred(name)
			if !ok {
				return nil, fmt.Errorf("unknown predicate %q", name)
			}
			if generated[p.ID] {
				return nil, fmt.Errorf("%s is generated by a graph: it cannot be random too", name)
			}
			in.query = append(in.query, p.ID)
		}
	}
	if boundary == BoundaryTrue || boundary == BoundaryFalse {
		v := mln.False
		if boundary == BoundaryTrue {
			v = mln.True
		}
		for _, p := range in.query {
			in.each(p, func(args []mln.ConstID, inside bool) {
				if !inside {
					in.db.Set(p, slices.Clone(args), v)
				}
			})
		}
	}
	if err := m.Compile(); err != nil {
		return nil, err
	}
	return in, nil
}

// each calls fn with every atom of predicate p and whether it lies in the
// window (every argument of a growing type inside it).
func (in *instance) each(p mln.PredID, fn func(args []mln.ConstID, inside bool)) {
	in.eachIn(p, in.lo, in.hi, fn)
}

// inner returns the central half of the window: the constants a quarter
// of its width (rounded down) away from either end.
func (in *instance) inner() (lo, hi int) {
	q := (in.hi - in.lo) / 4
	return in.lo + q, in.hi - q
}

// eachIn calls fn with every atom of predicate p and whether every
// argument of a growing type lies among the constants lo..hi-1.
func (in *instance) eachIn(p mln.PredID, lo, hi int, fn func(args []mln.ConstID, inside bool)) {
	pr := in.m.Preds[p]
	args := make([]mln.ConstID, pr.Arity())
	var rec func(j int, inside bool)
	rec = func(j int, inside bool) {
		if j == len(args) {
			fn(args, inside)
			return
		}
		t := in.m.Types[pr.Args[j]]
		for i, c := range t.Consts {
			args[j] = c
			rec(j+1, inside && (!in.growing[t.ID] || (i >= lo && i < hi)))
		}
	}
	rec(0, true)
}

// center returns the atom of p at the window's centre: the middle
// constant of each growing type, the first of each fixed one.
func (in *instance) center(p mln.PredID) ([]mln.ConstID, bool) {
	pr := in.m.Preds[p]
	args := make([]mln.ConstID, pr.Arity())
	for j, tid := range pr.Args {
		t := in.m.Types[tid]
		if t.Size() == 0 {
			return nil, false
		}
		if in.growing[tid] {
			args[j] = t.Consts[(in.lo+in.hi)/2]
		} else {
			args[j] = t.Consts[0]
		}
	}
	return args, true
}

// solve grounds the instance and computes its marginals.
func (in *instance) solve(ctx context.Context, opt *GrowOptions, size int, boundary string, exactOut *bool) (Point, *ground.Network, error) {
	pt := Point{Size: size, Boundary: boundary}
	var net *ground.Network
	var probs []float64
	var err error
	fellBack := ""
	if opt.Exact != nil && !*exactOut {
		net, err = ground.Ground(ctx, in.m, in.db, ground.Options{Query: in.query, MaxBytes: opt.MaxBytes})
		if err != nil {
			return pt, nil, err
		}
		probs, err = opt.Exact.Marginals(ctx, net, infer.Options{Seed: opt.Seed})
		switch {
		case err == nil:
			pt.Exact, pt.Method = true, opt.Exact.Name()
			pt.Atoms, pt.Clauses = net.NumAtoms(), net.NumClauses()
		case errors.Is(err, wmc.ErrOutOfReach):
			*exactOut = true
			fellBack = fmt.Sprintf("%s out of reach (%v); ", opt.Exact.Name(), err)
			if opt.Diagnostics != nil {
				opt.Diagnostics() // forget the failed run's report
			}
		default:
			return pt, nil, err
		}
	}
	switch {
	case pt.Exact:
	case opt.Lazy != nil:
		res, err := opt.Lazy.Run(ctx, lazy.Problem{Model: in.m, DB: in.db, Query: in.query, MaxBytes: opt.MaxBytes}, opt.Seed)
		if err != nil {
			return pt, nil, err
		}
		net, probs = res.Net, res.Marginals
		pt.Method = opt.Lazy.Name()
		pt.Atoms, pt.Clauses = net.NumAtoms(), res.Clauses
		pt.Engine = fmt.Sprintf("%s: %d atoms expanded, %d ground clauses built (one chain: no R-hat)", opt.Lazy.Name(), res.Expanded, res.Clauses)
	default:
		if net == nil {
			net, err = ground.Ground(ctx, in.m, in.db, ground.Options{Query: in.query, MaxBytes: opt.MaxBytes})
			if err != nil {
				return pt, nil, err
			}
		}
		probs, err = opt.Engine.Marginals(ctx, net, infer.Options{Seed: opt.Seed})
		if err != nil {
			return pt, nil, err
		}
		pt.Method = opt.Engine.Name()
		pt.Atoms, pt.Clauses = net.NumAtoms(), net.NumClauses()
	}
	if fellBack != "" {
		pt.Method += " after " + opt.Exact.Name() + " out of reach"
	}
	if opt.Diagnostics != nil {
		if d, bad := opt.Diagnostics(); d != "" {
			pt.Engine, pt.Unreliable = d, bad
		}
	}
	pt.Engine = fellBack + pt.Engine
	for _, p := range in.query {
		sum, cnt := 0.0, 0
		lo, hi := in.inner()
		in.eachIn(p, lo, hi, func(args []mln.ConstID, inside bool) {
			if !inside {
				return
			}
			if a, ok := net.AtomID(p, args); ok {
				sum += probs[a]
				cnt++
			}
		})
		mean := math.NaN()
		if cnt > 0 {
			mean = sum / float64(cnt)
		}
		pt.Mean = append(pt.Mean, mean)
		c := math.NaN()
		if args, ok := in.center(p); ok {
			if a, ok := net.AtomID(p, args); ok {
				c = probs[a]
			}
		}
		pt.Center = append(pt.Center, c)
	}
	return pt, net, nil
}

// Grow infers the marginals of the random predicates on instances of
// increasing size and estimates their limit. It refuses (a *RefusedError)
// a model that is not locally finite. When the uniqueness condition does
// not hold it runs both boundary conditions, all true and all false
// outside the window, and reports a phase transition when their limits
// differ.
func Grow(ctx context.Context, opt GrowOptions) (*GrowResult, error) {
	if (opt.Engine == nil) == (opt.Lazy == nil) {
		return nil, errors.New("infinite: give one of Engine and Lazy")
	}
	sizes := opt.Sizes
	if len(sizes) == 0 {
		sizes = DefaultSizes
	}
	for i, n := range sizes {
		if n < 1 || (i > 0 && n <= sizes[i-1]) {
			return nil, fmt.Errorf("sizes must be positive and increasing, got %v", sizes)
		}
	}
	border := opt.Border
	if border <= 0 {
		border = 1
	}
	tol := opt.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	// Check the model on the first instance.
	first, err := build(&opt, sizes[0], border, BoundaryFree)
	if err != nil {
		return nil, err
	}
	var fixedIDs []mln.TypeID
	for _, t := range first.m.Types {
		if !first.growing[t.ID] {
			fixedIDs = append(fixedIDs, t.ID)
		}
	}
	rep := Analyze(first.m, first.db, Options{Query: first.query, Fixed: fixedIDs})
	res := &GrowResult{Analysis: rep, Border: border}
	for _, p := range first.query {
		res.Preds = append(res.Preds, first.m.Preds[p].Name)
	}
	if !rep.LocallyFinite {
		var why []string
		for i := range rep.Sites {
			s := &rep.Sites[i]
			if !s.Bounded() {
				why = append(why, fmt.Sprintf("%s: atom %s of %s lies in unboundedly many ground clauses (%s over a growing domain); %s",
					s.Pos, s.Atom, s.Text, strings.Join(s.Unbounded, ", "), s.Remedy))
			}
		}
		return res, &RefusedError{Reason: "the model is not locally finite, so it defines no distribution as the domains grow:\n  " + strings.Join(why, "\n  ")}
	}
	switch opt.Boundary {
	case "", BoundaryAuto:
		if rep.Unique() {
			res.Boundaries = []string{BoundaryFree}
		} else {
			res.Boundaries = []string{BoundaryTrue, BoundaryFalse}
		}
	case BoundaryBoth:
		res.Boundaries = []string{BoundaryTrue, BoundaryFalse}
	case BoundaryFree, BoundaryTrue, BoundaryFalse:
		res.Boundaries = []string{opt.Boundary}
	default:
		return nil, fmt.Errorf("unknown boundary %q (want auto, free, true, false or both)", opt.Boundary)
	}
	res.Points = make([][]Point, len(res.Boundaries))
	exactOut := false // the exact engine was out of reach at a smaller size
	for _, n := range sizes {
		for bi, bc := range res.Boundaries {
			in, err := build(&opt, n, border, bc)
			if err != nil {
				return nil, err
			}
			pt, _, err := in.solve(ctx, &opt, n, bc, &exactOut)
			if err != nil {
				return nil, fmt.Errorf("size %d, boundary %s: %w", n, bc, err)
			}
			res.Points[bi] = append(res.Points[bi], pt)
			if pt.Unreliable {
				res.Unreliable = append(res.Unreliable, fmt.Sprintf("size %d, boundary %s", n, bc))
			}
			if opt.Log != nil {
				fmt.Fprintf(opt.Log, "size %d, boundary %s: %d atoms, %d clauses; inner marginals %s (%s)\n",
					n, bc, pt.Atoms, pt.Clauses, formatVec(res.Preds, pt.Mean), pt.Method)
			}
		}
		res.estimate(tol)
		if len(res.Points[0]) >= minSizes && res.converged() {
			break
		}
	}
	res.decide(tol)
	return res, nil
}

func formatVec(names []string, v []float64) string {
	var parts []string
	for i, x := range v {
		parts = append(parts, fmt.Sprintf("%s %.4f", names[i], x))
	}
	return strings.Join(parts, ", ")
}

// estimate computes the limit of every sequence.
func (r *GrowResult) estimate(tol float64) {
	r.Limits = make([][]Estimate, len(r.Boundaries))
	for b := range r.Boundaries {
		for p := range r.Preds {
			var seq []float64
			for _, pt := range r.Points[b] {
				seq = append(seq, pt.Mean[p])
			}
			r.Limits[b] = append(r.Limits[b], Extrapolate(seq, tol))
		}
	}
}

// converged reports whether every sequence has converged.
func (r *GrowResult) converged() bool {
	for b := range r.Limits {
		for _, e := range r.Limits[b] {
			if !e.Converged {
				return false
			}
		}
	}
	return true
}

// Extrapolate estimates the limit of a sequence of marginals at doubling
// sizes: with three values or more whose last two changes have the same
// sign and shrink, Aitken's Δ² extrapolation (exact for a geometric
// sequence, as c/n is at doubling sizes); otherwise the last value. It
// has converged when the last change is at most tol and the estimate lies
// within tol of the last value.
func Extrapolate(seq []float64, tol float64) Estimate {
	n := len(seq)
	e := Estimate{Value: math.NaN(), Method: "last", Delta: math.NaN()}
	if n == 0 {
		return e
	}
	e.Value = seq[n-1]
	if n < 2 || math.IsNaN(seq[n-1]) {
		return e
	}
	d2 := seq[n-1] - seq[n-2]
	e.Delta = d2
	if n >= 3 {
		d1 := seq[n-2] - seq[n-3]
		if d1*d2 > 0 && math.Abs(d2) < math.Abs(d1) {
			v := seq[n-1] - d2*d2/(d2-d1)
			if v >= 0 && v <= 1 {
				e.Value, e.Method = v, "aitken"
			}
		}
	}
	e.Converged = math.Abs(d2) <= tol && math.Abs(e.Value-seq[n-1]) <= tol
	return e
}

// decide sets the verdict from the limits.
func (r *GrowResult) decide(tol float64) {
	if !r.converged() {
		r.Verdict = VerdictNotConverged
		last := r.Points[0][len(r.Points[0])-1].Size
		r.Note = fmt.Sprintf("the marginals still change by more than %g at size %d: give larger -sizes", tol, last)
		if len(r.Boundaries) == 2 {
			if d, p := r.gap(); d > 2*tol {
				r.Note += fmt.Sprintf("; the boundary conditions still differ by %.3g on %s", d, r.Preds[p])
			}
		}
		return
	}
	if len(r.Boundaries) == 1 {
		r.Verdict = VerdictLimit
		for _, e := range r.Limits[0] {
			r.Limit = append(r.Limit, e.Value)
		}
		if r.Analysis.Unique() {
			r.Note = "the uniqueness condition holds, so the limit does not depend on the boundary"
		} else {
			r.Note = fmt.Sprintf("under the %s boundary only: the uniqueness condition does not hold, and other boundaries may give other limits", r.Boundaries[0])
		}
		return
	}
	if d, p := r.gap(); d > 2*tol {
		r.Verdict = VerdictPhaseTransition
		last := r.Points[0][len(r.Points[0])-1].Size
		r.Note = fmt.Sprintf("the limits under all-true and all-false boundaries differ by %.3g on %s (%.4f against %.4f), each converged, up to size %d: the measure is not unique (or its correlation length exceeds the sizes tried)",
			d, r.Preds[p], r.Limits[0][p].Value, r.Limits[1][p].Value, last)
		return
	}
	r.Verdict = VerdictLimit
	for p := range r.Preds {
		r.Limit = append(r.Limit, (r.Limits[0][p].Value+r.Limits[1][p].Value)/2)
	}
	if r.Analysis.Unique() {
		r.Note = "the uniqueness condition holds, and the all-true and all-false boundaries agree"
	} else {
		r.Note = "the uniqueness condition does not hold (it is sufficient, not necessary), but the all-true and all-false boundaries, the extremes, agree"
	}
}

// gap returns the largest difference between the two boundaries' limits
// and the predicate where it occurs.
func (r *GrowResult) gap() (float64, int) {
	best, at := 0.0, 0
	for p := range r.Preds {
		if d := math.Abs(r.Limits[0][p].Value - r.Limits[1][p].Value); d > best {
			best, at = d, p
		}
	}
	return best, at
}

// Write prints the sequences, the limits and the verdict.
func (r *GrowResult) Write(w io.Writer) {
	fmt.Fprintf(w, "%s\n%s\n", r.Analysis.LocalFinitenessVerdict(), r.Analysis.UniquenessVerdict())
	if r.Boundaries[0] == BoundaryFree {
		fmt.Fprintf(w, "boundary: free (no evidence outside the window: every constant of each growing type is in it)\n")
	} else {
		fmt.Fprintf(w, "boundary: %s (every random atom with an argument among the %d border constants at either end of a growing type is set to the boundary's value)\n",
			strings.Join(r.Boundaries, ", "), r.Border)
	}
	var hdr []string
	for _, p := range r.Preds {
		hdr = append(hdr, fmt.Sprintf("%-10s %-10s", p+" inner", "centre"))
	}
	fmt.Fprintf(w, "%-6s %-8s %8s %9s  %s\n", "size", "boundary", "atoms", "clauses", strings.Join(hdr, " "))
	for b := range r.Boundaries {
		for _, pt := range r.Points[b] {
			var cols []string
			for p := range r.Preds {
				cols = append(cols, fmt.Sprintf("%-10.4f %-10.4f", pt.Mean[p], pt.Center[p]))
			}
			fmt.Fprintf(w, "%-6d %-8s %8d %9d  %s\n", pt.Size, pt.Boundary, pt.Atoms, pt.Clauses, strings.Join(cols, " "))
			if pt.Engine != "" {
				fmt.Fprintf(w, "       %s\n", pt.Engine)
			}
		}
	}
	for b, bc := range r.Boundaries {
		for p, name := range r.Preds {
			e := r.Limits[b][p]
			conv := "converged"
			if !e.Converged {
				conv = "NOT converged"
			}
			fmt.Fprintf(w, "limit of %s under boundary %s: %.4f (%s; last change %+.4f; %s)\n",
				name, bc, e.Value, map[string]string{"aitken": "Aitken extrapolation", "last": "largest size"}[e.Method], e.Delta, conv)
		}
	}
	if warn := r.Warning(); warn != "" {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	switch r.Verdict {
	case VerdictLimit:
		var parts []string
		for p, name := range r.Preds {
			parts = append(parts, fmt.Sprintf("P(%s) = %.4f", name, r.Limit[p]))
		}
		fmt.Fprintf(w, "limit: %s (%s)\n", strings.Join(parts, ", "), r.Note)
	case VerdictPhaseTransition:
		fmt.Fprintf(w, "no unique limit: phase transition: %s\n", r.Note)
	default:
		fmt.Fprintf(w, "no limit: not converged: %s\n", r.Note)
	}
}

// Warning says which runs the engine's diagnostics flag, or "" when none.
func (r *GrowResult) Warning() string {
	if len(r.Unreliable) == 0 {
		return ""
	}
	return fmt.Sprintf("the engine's diagnostics flag %d runs (%s): their marginals, and what follows from them, are not to be trusted (try another -solver or more -samples)",
		len(r.Unreliable), strings.Join(r.Unreliable, "; "))
}
