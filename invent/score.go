package invent

import "math"

// The defaults of Options.Lambda, Beta and MaxClusters (see results/mrc.md
// for how they were chosen).
const (
	DefaultLambda      = 3
	DefaultBeta        = 3
	DefaultMaxClusters = 6
)

// Options are MRC's parameters.
type Options struct {
	// Restarts is the number of greedy restarts per problem (default 10).
	Restarts int
	// Seed seeds the restarts.
	Seed int64
	// Lambda is the weight of the exponential prior: each cluster costs
	// Lambda nats of log-posterior (default 3).
	Lambda float64
	// Beta is the smoothing parameter of the atom prediction rules
	// (default 3).
	Beta float64
	// Workers run restarts in parallel (default GOMAXPROCS).
	Workers int
	// MaxDepth bounds the recursion (0: unbounded).
	MaxDepth int
	// MaxClusters bounds the clusters of a set at one node (default 6).
	// Each restart starts from a random bisection; with MaxClusters above 2
	// the greedy search may also move a symbol to a new cluster. Finer
	// clusters come from the recursion.
	MaxClusters int
	// NoLookahead turns off the top level's one-level lookahead, which
	// compares, at every node, clustering all sets with clustering only the
	// predicates (leaving the constants to be clustered, differently, in
	// each combination), by the gain of the node plus its combinations'.
	NoLookahead bool
	// Journal, if set, records the search's completed steps and replays
	// those of an interrupted run (see Journal).
	Journal *Journal
}

// WithDefaults returns o with its zero fields set to the defaults.
func (o Options) WithDefaults() Options {
	if o.Restarts <= 0 {
		o.Restarts = 10
	}
	if o.Lambda < 0 {
		o.Lambda = 0
	} else if o.Lambda == 0 {
		o.Lambda = DefaultLambda
	}
	if o.Beta <= 0 {
		o.Beta = DefaultBeta
	}
	if o.MaxClusters == 0 {
		o.MaxClusters = DefaultMaxClusters
	} else if o.MaxClusters < 2 {
		o.MaxClusters = 2
	}
	return o
}

// Rate is the smoothed probability that an atom of a combination with t
// true and f false training atoms is true, in a group of prior rate pi:
// (t + beta·pi) / (t + f + beta).
func Rate(t, f int, pi, beta float64) float64 {
	return (float64(t) + beta*pi) / (float64(t+f) + beta)
}

// Weight is the closed-form weight of the atom prediction rule of a
// combination: the log-odds of Rate.
func Weight(t, f int, pi, beta float64) float64 {
	return math.Log((float64(t) + beta*pi) / (float64(f) + beta*(1-pi)))
}

// LogLik is a combination's contribution to the log-posterior:
// t·log p + f·log(1-p) with p = Rate(t, f, pi, beta). It is 0 for an empty
// combination.
func LogLik(t, f int, pi, beta float64) float64 {
	if t == 0 && f == 0 {
		return 0
	}
	n := float64(t+f) + beta
	v := 0.0
	if t > 0 {
		v += float64(t) * math.Log((float64(t)+beta*pi)/n)
	}
	if f > 0 {
		v += float64(f) * math.Log((float64(f)+beta*(1-pi))/n)
	}
	return v
}

// llTable tabulates LogLik for one group: t·log(t+βπ) + f·log(f+β(1-π))
// - n·log(n+β) with n = t+f, three lookups instead of three logarithms.
type llTable struct {
	t, f, n []float64
}

func newLLTable(max int, pi, beta float64) *llTable {
	tb := &llTable{make([]float64, max+1), make([]float64, max+1), make([]float64, max+1)}
	for i := 1; i <= max; i++ {
		x := float64(i)
		tb.t[i] = x * math.Log(x+beta*pi)
		tb.f[i] = x * math.Log(x+beta*(1-pi))
		tb.n[i] = x * math.Log(x+beta)
	}
	return tb
}

func (tb *llTable) ll(t, f int32) float64 {
	return tb.t[t] + tb.f[f] - tb.n[t+f]
}
