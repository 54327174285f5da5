package mcsat

import "math"

// Trace records the samples of several chains of a sampler outside this
// package (over the same atoms, each chain recording as many samples) and
// computes their Diagnostics as Run does: split R-hat, ESS and standard
// errors from batch means. The samples are values in [0, 1]: indicators,
// or conditional probabilities (Rao-Blackwellised marginals). Different
// chains may record concurrently; one chain must not.
type Trace struct {
	chains []*accum
	atoms  []int32
}

// NewTrace returns a trace of chains chains over n atoms.
func NewTrace(chains, n int) *Trace {
	t := &Trace{chains: make([]*accum, chains), atoms: make([]int32, n)}
	for i := range t.chains {
		t.chains[i] = newAccum(n, true)
	}
	for a := range t.atoms {
		t.atoms[a] = int32(a)
	}
	return t
}

// Add records one sample of chain: p[a] for every atom a.
func (t *Trace) Add(chain int, p []float64) { t.chains[chain].addValues(p) }

// Samples returns the number of samples chain has recorded.
func (t *Trace) Samples(chain int) int { return t.chains[chain].count }

// Marginals returns the mean of every atom's samples over all chains.
func (t *Trace) Marginals() []float64 {
	p := make([]float64, len(t.atoms))
	total := 0
	for _, c := range t.chains {
		total += c.count
		for a, s := range c.sum {
			p[a] += s
		}
	}
	if total > 0 {
		for a := range p {
			p[a] /= float64(total)
		}
	}
	return p
}

// Diagnostics returns the per-atom R-hat, ESS and standard error of the
// samples so far, summarized over all atoms with RhatThreshold. Every
// chain must have recorded the same number of samples.
func (t *Trace) Diagnostics() *Diagnostics {
	n := len(t.atoms)
	d := &Diagnostics{Chains: len(t.chains), Rhat: make([]float64, n), ESS: make([]float64, n), StdErr: make([]float64, n)}
	if len(t.chains) > 0 {
		d.Samples = t.chains[0].count
	}
	for a := range d.Rhat {
		d.Rhat[a], d.ESS[a] = 1, math.Inf(1)
	}
	if n > 0 && len(t.chains) > 0 {
		diagnose(t.chains, t.atoms, d.Rhat, d.ESS, d.StdErr)
	}
	d.Summarize(nil, RhatThreshold)
	return d
}
