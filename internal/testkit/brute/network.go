package brute

import (
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
)

// MaxAtoms is the largest network the enumerators accept.
const MaxAtoms = 26

// Worlds calls fn with every assignment of the network's atoms (atom a is
// bit a of the enumeration counter). fn must not keep y.
func Worlds(n int, fn func(y []bool)) {
	if n > MaxAtoms {
		panic(fmt.Sprintf("brute: %d atoms is too many to enumerate", n))
	}
	y := make([]bool, n)
	for w := uint64(0); w < 1<<uint(n); w++ {
		for a := range y {
			y[a] = w&(1<<uint(a)) != 0
		}
		fn(y)
	}
}

// MAP returns a most probable assignment of the network: fewest violated
// hard clauses first, then highest score (the first such world in
// enumeration order), with its score and hard violations.
func MAP(net *ground.Network) (y []bool, score float64, hard int) {
	return MAPBias(net, nil)
}

// MAPBias is MAP with linear terms: bias[a] is added to the score of every
// world in which atom a is true (nil means none), as in infer.Options.Bias.
// The returned score includes the bias.
func MAPBias(net *ground.Network, bias []float64) (y []bool, score float64, hard int) {
	hard = math.MaxInt
	Worlds(net.NumAtoms(), func(w []bool) {
		s, h := net.Score(w)
		for a, b := range bias {
			if w[a] {
				s += b
			}
		}
		if h < hard || (h == hard && s > score) {
			y, score, hard = append(y[:0], w...), s, h
		}
	})
	return y, score, hard
}

// feasible calls fn with every world of fewest hard violations and its
// log-weight (score).
func feasible(net *ground.Network, fn func(y []bool, logw float64)) {
	minHard := math.MaxInt
	Worlds(net.NumAtoms(), func(w []bool) {
		_, h := net.Score(w)
		minHard = min(minHard, h)
	})
	Worlds(net.NumAtoms(), func(w []bool) {
		s, h := net.Score(w)
		if h == minHard {
			fn(w, s)
		}
	})
}

// LogZ returns the log partition function over the worlds with the fewest
// hard violations (normally those satisfying every hard clause), including
// ConstScore.
func LogZ(net *ground.Network) float64 {
	var ls []float64
	feasible(net, func(_ []bool, s float64) { ls = append(ls, s) })
	return logSumExp(ls)
}

func logSumExp(ls []float64) float64 {
	mx := math.Inf(-1)
	for _, l := range ls {
		mx = math.Max(mx, l)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	s := 0.0
	for _, l := range ls {
		s += math.Exp(l - mx)
	}
	return mx + math.Log(s)
}

// Marginals returns P(atom a true) for every atom, under the distribution
// P(y) ∝ exp(Score(y)) over the worlds with the fewest hard violations.
func Marginals(net *ground.Network) []float64 {
	logZ := LogZ(net)
	p := make([]float64, net.NumAtoms())
	feasible(net, func(y []bool, s float64) {
		w := math.Exp(s - logZ)
		for a, v := range y {
			if v {
				p[a] += w
			}
		}
	})
	return p
}

// ExpectedCounts returns E[Counts(y)] under the same distribution as
// Marginals: the expected count of each model parameter.
func ExpectedCounts(net *ground.Network) []float64 {
	logZ := LogZ(net)
	var e []float64
	feasible(net, func(y []bool, s float64) {
		w := math.Exp(s - logZ)
		c := net.Counts(y)
		if e == nil {
			e = make([]float64, len(c))
		}
		for i, v := range c {
			e[i] += w * v
		}
	})
	return e
}
