package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/marple-mln/marple/ground"
)

// LiftedStats describes a run of lifted belief propagation.
type LiftedStats struct {
	Stats
	// AtomClusters and FactorClusters are the sizes of the lifted network:
	// the atoms (clauses) that receive (send) identical messages at every
	// iteration are one cluster. When Ground is set, AtomClusters is the
	// number of atom colours when colour passing stopped (a lower bound on
	// the clusters) and FactorClusters is 0.
	AtomClusters, FactorClusters int
	// Atoms and Factors are the ground network's atoms and clauses (for
	// LiftModel, the atoms and ground clauses the classes stand for).
	Atoms, Factors float64
	// Rounds is the number of colour-passing rounds that built it.
	Rounds int
	// Ground is set when lifting did not compress (more than
	// MaxClusterRatio of the atoms in clusters of their own, or no stable
	// partition after MaxColourRounds rounds): colour passing stopped and
	// ground BP (Marginals) ran instead, so the marginals are ground BP's.
	Ground bool
	// Approximate is set when LiftedApprox stopped colour passing before
	// the partition was stable: the marginals approximate ground BP's.
	Approximate bool
}

// Compression says in a few words how much lifting compressed the
// network, or that it did not and ground BP ran.
func (st *LiftedStats) Compression() string {
	if st.Ground {
		return fmt.Sprintf("lifting gave at least %d clusters for %.0f atoms after %d rounds of colour passing; ran ground BP", st.AtomClusters, st.Atoms, st.Rounds)
	}
	if st.Approximate {
		return fmt.Sprintf("approximate lifting (colour passing stopped after %d rounds): %d atom clusters for %.0f atoms (%s), %d clause clusters for %.0f clauses (%s)", st.Rounds, st.AtomClusters, st.Atoms, ratio(float64(st.AtomClusters), st.Atoms), st.FactorClusters, st.Factors, ratio(float64(st.FactorClusters), st.Factors))
	}
	return fmt.Sprintf("lifting gave %d atom clusters for %.0f atoms (%s), %d clause clusters for %.0f clauses (%s)", st.AtomClusters, st.Atoms, ratio(float64(st.AtomClusters), st.Atoms), st.FactorClusters, st.Factors, ratio(float64(st.FactorClusters), st.Factors))
}

// ratio returns the compression a:b as "1:N", N = b/a.
func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("1:%.3g", b/a)
}

// Lifting stops, and Lifted runs ground BP, when it cannot pay.
const (
	// MaxClusterRatio is the largest fraction of a network's atoms the
	// atom colours may reach during colour passing: the colours only
	// split, so once there are more, the lifted network would be more
	// than MaxClusterRatio of the ground one, and colour passing and BP
	// on it would cost about what ground BP costs.
	MaxClusterRatio = 0.25
	// MaxColourRounds bounds the colour-passing rounds: a partition still
	// splitting after as many rounds as this (long chains of distinct
	// atoms) has cost as much as several BP iterations.
	MaxColourRounds = 32
)

// fallbackMinAtoms is the smallest network on which Lifted gives up
// lifting: on smaller ones either costs next to nothing. Tests set it to 0.
var fallbackMinAtoms = 1024

// Lifted returns the same marginals as Marginals (to rounding), computed
// by lifted belief propagation: atoms and clauses that would send and
// receive identical messages at every iteration of ground BP are merged
// into clusters (supernodes and superfeatures), found by colour passing
// on the network (atoms coloured by their bias, clauses by their weight;
// each round recolours a clause by its weight and its literals' colours
// and signs, and an atom by its colour and the multiset of its clauses'
// colours with its sign in each, until the partition is stable). A round
// hashes every literal once in each direction, O(literals), in parallel.
// BP then runs on one representative of each cluster, an atom's message
// from a clause cluster counted once per occurrence. On models with many
// interchangeable objects (friends and smokers without friendship
// evidence, for instance) the lifted network has a handful of nodes
// whatever the number of objects.
//
// When the network has no such symmetry (evidence that tells most
// objects apart, such as random friendships), lifting does not pay:
// colour passing stops as soon as the atom colours exceed
// MaxClusterRatio of the atoms (or after MaxColourRounds rounds without a
// stable partition), and Lifted runs ground BP, setting Ground in the
// statistics. Damping is not supported (it is not needed for the result
// to equal ground BP's).
func Lifted(ctx context.Context, net *ground.Network, opt Options) ([]float64, *LiftedStats, error) {
	return lifted(ctx, net, opt, 0)
}

// LiftedApprox is Lifted with colour passing stopped after at most rounds
// rounds (approximate lifting by early stopping, as in Singla, Nath and
// Domingos 2014): atoms whose neighbourhoods agree up to rounds steps
// away share a cluster even when evidence further away tells them apart,
// so asymmetric evidence (a few distinguished objects in a large sparse
// network) still compresses. When the partition is not stable after
// rounds rounds, an atom cluster's count of occurrences in a clause
// cluster is the average over its atoms (which, unlike in Lifted, may
// differ), the statistics say Approximate, and the marginals approximate
// ground BP's: the first iterations, as many as the rounds, are ground
// BP's exactly (messages that reach an atom within rounds steps are the
// same for all atoms of a cluster), and the later ones ignore the
// differences further away. When the partition is stable within rounds
// rounds the result is Lifted's; the fallback to ground BP is Lifted's.
// rounds must be at least 1.
func LiftedApprox(ctx context.Context, net *ground.Network, opt Options, rounds int) ([]float64, *LiftedStats, error) {
	if rounds < 1 {
		return nil, nil, errors.New("bp: approximate lifting needs at least one round of colour passing")
	}
	return lifted(ctx, net, opt, rounds)
}

// lifted runs Lifted (rounds 0) or LiftedApprox.
func lifted(ctx context.Context, net *ground.Network, opt Options, rounds int) ([]float64, *LiftedStats, error) {
	if opt.MaxIterations <= 0 {
		opt.MaxIterations = DefaultMaxIterations
	}
	if opt.Tolerance <= 0 {
		opt.Tolerance = DefaultTolerance
	}
	if opt.Damping != 0 {
		return nil, nil, errors.New("bp: lifted BP takes no damping")
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	g, err := newGraph(net, opt.Bias, opt.Workers)
	if err != nil {
		return nil, nil, err
	}
	g.msg, g.tot, g.marginal = nil, nil, nil
	maxColours := g.nAtoms
	if g.nAtoms >= fallbackMinAtoms {
		maxColours = int(MaxClusterRatio * float64(g.nAtoms))
	}
	atomColor, factorColor, rounds, stable, err := g.colour(ctx, maxColours, rounds)
	if err != nil {
		return nil, nil, err
	}
	st := &LiftedStats{Atoms: float64(g.nAtoms), Factors: float64(len(g.w)), Rounds: rounds}
	if factorColor == nil {
		// Lifting does not pay: ground BP.
		st.Ground = true
		for _, c := range atomColor {
			st.AtomClusters = max(st.AtomClusters, int(c)+1)
		}
		p, gst, err := Marginals(ctx, net, opt)
		if err != nil {
			return nil, nil, err
		}
		st.Stats = *gst
		return p, st, nil
	}
	lg := g.lift(atomColor, factorColor, !stable)
	st.AtomClusters, st.FactorClusters, st.Approximate = len(lg.atomRep), len(lg.factorRep), !stable
	if err := lg.run(ctx, opt, &st.Stats); err != nil {
		return nil, nil, err
	}
	marg := make([]float64, g.nAtoms)
	for a := range marg {
		marg[a] = lg.marginal[atomColor[a]]
	}
	return marg, st, nil
}

// Hash constants (splitmix64).
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// sig is a 128-bit signature: two independent hashes, so that distinct
// signatures collide with negligible probability.
type sig struct{ a, b uint64 }

func (s sig) add(t sig) sig { return sig{s.a + t.a, s.b + t.b} }

func elem(x, salt uint64) sig {
	return sig{mix(x ^ salt), mix(x ^ salt ^ 0x5851f42d4c957f2d)}
}

// tagged returns a signature of the pair (s, x).
func (s sig) tagged(x uint64) sig {
	return sig{mix(s.a ^ x), mix(s.b ^ x ^ 0x5851f42d4c957f2d)}
}

// renumber gives each distinct signature a colour, in order of first
// appearance (so colours do not depend on the number of workers), and
// returns the number of colours. Runs of equal signatures (neighbouring
// atoms of one predicate are often alike) cost no map access.
func renumber(sigs []sig, colour []int32) int {
	ids := make(map[sig]int32, 64)
	var last sig
	lastColour := int32(-1)
	for i, s := range sigs {
		if lastColour >= 0 && s == last {
			colour[i] = lastColour
			continue
		}
		c, ok := ids[s]
		if !ok {
			c = int32(len(ids))
			ids[s] = c
		}
		colour[i] = c
		last, lastColour = s, c
	}
	return len(ids)
}

// colour runs colour passing to the stable partition and returns the
// atoms' and the clauses' colours, the rounds and whether the partition
// is stable. When the atom colours exceed maxColours, or the partition is
// not stable after MaxColourRounds rounds, it stops and returns a nil
// factorColor (atomColor then holds the colours so far). With maxRounds
// > 0 it stops after maxRounds rounds instead, with the clauses coloured
// by the atoms' last colours (a partition that may not be stable).
//
// The partition of each round refines the one before (by induction: an
// atom's colour depends on its clauses' colours, which depend on its own
// colour), so the partition is stable as soon as a round leaves the
// number of atom colours unchanged: the clauses' partition, a function of
// the atoms' one, is then unchanged too. Clauses are therefore only
// hashed during the rounds (their 128-bit signatures feed the atoms'
// directly) and numbered once, at the end.
func (g *graph) colour(ctx context.Context, maxColours, maxRounds int) (atomColor, factorColor []int32, rounds int, stable bool, err error) {
	nc := len(g.w)
	g.indexFactors()
	atomSig := make([]sig, g.nAtoms)
	factorSig := make([]sig, nc)
	atomColor = make([]int32, g.nAtoms)
	atomBase := make([]sig, g.nAtoms)
	factorBase := make([]sig, nc)
	for a := range atomBase {
		b := 0.0
		if g.bias != nil {
			b = g.bias[a]
		}
		atomBase[a] = elem(math.Float64bits(b+0), 1) // +0 folds -0 into 0
	}
	for c := range factorBase {
		factorBase[c] = elem(math.Float64bits(g.w[c]+0), 2)
	}
	factorSigs := func() {
		g.parallel(nc, func(lo, hi int) float64 {
			for c := lo; c < hi; c++ {
				s := factorBase[c]
				for k := g.start[c]; k < g.start[c+1]; k++ {
					l := g.lits[k]
					x := uint64(atomColor[l.Atom()])<<1 | uint64(l&1)
					s = s.add(elem(x, 3))
				}
				factorSig[c] = s
			}
			return 0
		})
	}
	nAtomColours := renumber(atomBase, atomColor)
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, false, err
		}
		if maxRounds > 0 && rounds == maxRounds {
			factorSigs()
			factorColor = make([]int32, nc)
			renumber(factorSig, factorColor)
			return atomColor, factorColor, rounds, false, nil
		}
		rounds++
		factorSigs()
		g.parallel(g.nAtoms, func(lo, hi int) float64 {
			for a := lo; a < hi; a++ {
				s := atomBase[a]
				for _, k := range g.atomOcc[g.atomAt[a]:g.atomAt[a+1]] {
					s = s.add(factorSig[g.factorOf(k)].tagged(uint64(g.lits[k]&1) + 4))
				}
				atomSig[a] = s
			}
			return 0
		})
		na := renumber(atomSig, atomColor)
		if na == nAtomColours {
			factorColor = make([]int32, nc)
			renumber(factorSig, factorColor)
			return atomColor, factorColor, rounds, true, nil
		}
		nAtomColours = na
		if na > maxColours || maxRounds == 0 && rounds >= MaxColourRounds {
			return atomColor, nil, rounds, false, nil
		}
	}
}

// factorOf returns the clause of flat literal position k (after
// indexFactors).
func (g *graph) factorOf(k int32) int { return int(g.litFactor[k]) }

// indexFactors records the clause of every flat literal position.
func (g *graph) indexFactors() {
	g.litFactor = make([]int32, len(g.lits))
	for c := range g.w {
		for j := g.start[c]; j < g.start[c+1]; j++ {
			g.litFactor[j] = int32(c)
		}
	}
}

// liftedGraph is BP's state on the clusters: for each factor cluster its
// representative clause's literals (atom cluster and sign) and their
// messages; for each atom cluster the messages of its representative's
// occurrences.
type liftedGraph struct {
	bias      []float64 // per atom cluster
	atomRep   []int32
	factorRep []int32
	w         []float64 // per factor cluster
	start     []int32   // factor cluster f's literals: start[f]..start[f+1]
	litAtom   []int32   // atom cluster of each literal of a representative
	litNeg    []bool
	msg       []float64 // per representative literal
	occStart  []int32   // atom cluster A's occurrences: occ[occStart[A]:occStart[A+1]]
	occ       []int32   // representative literal positions, one per occurrence of A's representative
	mult      []float64 // per occurrence: how many times it counts (nil: once)
	tot       []float64
	marginal  []float64
	logq      []float64
	nGround   float64 // ground clauses the clause clusters stand for (LiftModel)
}

// lift builds the lifted network of the partition. With average set (a
// partition that may not be stable) an atom cluster's occurrences are
// those of all its atoms, each counted 1/size times; otherwise those of
// its representative.
func (g *graph) lift(atomColor, factorColor []int32, average bool) *liftedGraph {
	lg := &liftedGraph{}
	for a, c := range atomColor {
		if int(c) == len(lg.atomRep) {
			lg.atomRep = append(lg.atomRep, int32(a))
		}
	}
	for f, c := range factorColor {
		if int(c) == len(lg.factorRep) {
			lg.factorRep = append(lg.factorRep, int32(f))
		}
	}
	lg.bias = make([]float64, len(lg.atomRep))
	if g.bias != nil {
		for A, a := range lg.atomRep {
			lg.bias[A] = g.bias[a]
		}
	}
	lg.start = make([]int32, len(lg.factorRep)+1)
	for F, f := range lg.factorRep {
		lg.w = append(lg.w, g.w[f])
		for k := g.start[f]; k < g.start[f+1]; k++ {
			l := g.lits[k]
			lg.litAtom = append(lg.litAtom, atomColor[l.Atom()])
			lg.litNeg = append(lg.litNeg, l.Neg())
		}
		lg.start[F+1] = int32(len(lg.litAtom))
	}
	lg.msg = make([]float64, len(lg.litAtom))
	// An occurrence of atom cluster A's representative in clause c maps to
	// the literal of c's cluster representative with the same role: the
	// same atom cluster and sign (any one such literal: they receive
	// identical messages).
	lg.occStart = make([]int32, len(lg.atomRep)+1)
	if average {
		lg.averageOccurrences(g, atomColor, factorColor)
		lg.tot = make([]float64, len(lg.atomRep))
		lg.marginal = make([]float64, len(lg.atomRep))
		return lg
	}
	for A, a := range lg.atomRep {
		for _, k := range g.atomOcc[g.atomAt[a]:g.atomAt[a+1]] {
			F := factorColor[g.factorOf(k)]
			neg := g.lits[k].Neg()
			for j := lg.start[F]; j < lg.start[F+1]; j++ {
				if lg.litAtom[j] == int32(A) && lg.litNeg[j] == neg {
					lg.occ = append(lg.occ, j)
					break
				}
			}
		}
		lg.occStart[A+1] = int32(len(lg.occ))
	}
	lg.tot = make([]float64, len(lg.atomRep))
	lg.marginal = make([]float64, len(lg.atomRep))
	return lg
}

// roleOf returns the literal of clause cluster F's representative with
// atom cluster A and the sign neg.
func (lg *liftedGraph) roleOf(F, A int32, neg bool) int32 {
	for j := lg.start[F]; j < lg.start[F+1]; j++ {
		if lg.litAtom[j] == A && lg.litNeg[j] == neg {
			return j
		}
	}
	panic("bp: a clause cluster without the literal of one of its clauses")
}

// averageOccurrences sets each atom cluster's occurrences to those of all
// its atoms, each literal role counted the average number of times an
// atom of the cluster fills it.
func (lg *liftedGraph) averageOccurrences(g *graph, atomColor, factorColor []int32) {
	size := make([]float64, len(lg.atomRep))
	for _, c := range atomColor {
		size[c]++
	}
	count := map[uint64]float64{}
	for a := 0; a < g.nAtoms; a++ {
		A := atomColor[a]
		for _, k := range g.atomOcc[g.atomAt[a]:g.atomAt[a+1]] {
			j := lg.roleOf(factorColor[g.factorOf(k)], A, g.lits[k].Neg())
			count[uint64(A)<<32|uint64(j)]++
		}
	}
	keys := make([]uint64, 0, len(count))
	for key := range count {
		keys = append(keys, key)
	}
	slices.Sort(keys) // by cluster, then literal: deterministic sums
	for _, key := range keys {
		A := key >> 32
		lg.occStart[A+1]++
		lg.occ = append(lg.occ, int32(key&(1<<32-1)))
		lg.mult = append(lg.mult, count[key]/size[A])
	}
	for A := 1; A < len(lg.occStart); A++ {
		lg.occStart[A] += lg.occStart[A-1]
	}
}

// run iterates BP on the clusters until the marginals change by at most
// the tolerance or the iteration limit is reached.
func (lg *liftedGraph) run(ctx context.Context, opt Options, st *Stats) error {
	lg.sums()
	for st.Iterations < opt.MaxIterations {
		if err := ctx.Err(); err != nil {
			return err
		}
		lg.update()
		st.Iterations++
		st.MaxChange = lg.sums()
		if st.MaxChange <= opt.Tolerance {
			st.Converged = true
			break
		}
	}
	return nil
}

func (lg *liftedGraph) sums() float64 {
	change := 0.0
	for A := range lg.atomRep {
		t := lg.bias[A]
		for i := lg.occStart[A]; i < lg.occStart[A+1]; i++ {
			if lg.mult != nil {
				t += lg.mult[i] * lg.msg[lg.occ[i]]
			} else {
				t += lg.msg[lg.occ[i]]
			}
		}
		lg.tot[A] = t
		p := sigmoid(t)
		change = math.Max(change, math.Abs(p-lg.marginal[A]))
		lg.marginal[A] = p
	}
	return change
}

func (lg *liftedGraph) update() {
	for F := range lg.w {
		s, e := lg.start[F], lg.start[F+1]
		lg.logq = lg.logq[:0]
		sum, zeros := 0.0, 0
		for k := s; k < e; k++ {
			v := lg.tot[lg.litAtom[k]] - lg.msg[k]
			if lg.litNeg[k] {
				v = -v
			}
			lq := logSigmoid(-v)
			lg.logq = append(lg.logq, lq)
			if math.IsInf(lq, -1) {
				zeros++
			} else {
				sum += lq
			}
		}
		em := math.Expm1(-lg.w[F])
		for i, k := 0, s; k < e; i, k = i+1, k+1 {
			lg.msg[k] = clauseMessage(lg.logq, i, sum, zeros, em, lg.litNeg[k])
		}
	}
}

// clauseMessage returns the message of a clause of weight w to its
// literal i, as the log-odds of the literal's atom being true: logq holds
// the log probabilities of the literals being false (sum is the sum of the
// finite ones, zeros the number of -Inf ones) and em is e^-w - 1. With P
// the product of the other literals' probabilities of being false, the
// clause's factor is e^w unless all literals are false, so the log-odds of
// the literal being true are log(e^w / (e^w - (e^w-1)P)) =
// -log(1 + P(e^-w - 1)).
func clauseMessage(logq []float64, i int, sum float64, zeros int, em float64, neg bool) float64 {
	var p float64
	switch {
	case zeros == 0:
		p = math.Exp(sum - logq[i])
	case zeros == 1 && math.IsInf(logq[i], -1):
		p = math.Exp(sum)
	}
	var m float64
	if p > 0 {
		m = -math.Log1p(p * em)
	}
	m = math.Max(-maxLogOdds, math.Min(maxLogOdds, m))
	if neg {
		m = -m
	}
	return m
}
