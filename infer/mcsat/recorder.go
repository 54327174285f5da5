package mcsat

// Recorder keeps the samples of several chains over the same atoms, in the
// batches Run keeps, so that samplers outside this package report the
// diagnostics MC-SAT reports (split R-hat and effective sample size per
// atom). Each chain records the same number of samples.
type Recorder struct {
	chains []*accum
}

// NewRecorder returns a recorder of n atoms for the given number of chains.
// With values set, samples are values in [0, 1] (Gibbs' Rao-Blackwellised
// conditional probabilities); otherwise indicators.
func NewRecorder(chains, n int, values bool) *Recorder {
	r := &Recorder{chains: make([]*accum, chains)}
	for i := range r.chains {
		r.chains[i] = newAccum(n, values)
	}
	return r
}

// AddBool records an indicator sample of chain c.
func (r *Recorder) AddBool(c int, y []bool) { r.chains[c].addBool(y) }

// AddValues records a sample of values in [0, 1] of chain c (a recorder
// made with values set).
func (r *Recorder) AddValues(c int, p []float64) { r.chains[c].addValues(p) }

// Means returns every atom's mean over all chains' samples.
func (r *Recorder) Means() []float64 {
	n := r.chains[0].n
	out := make([]float64, n)
	tot := 0
	for _, c := range r.chains {
		for a, s := range c.sum {
			out[a] += s
		}
		tot += c.count
	}
	if tot > 0 {
		for a := range out {
			out[a] /= float64(tot)
		}
	}
	return out
}

// Diagnostics returns the R-hat and ESS of every atom, summarized over all
// atoms with RhatThreshold.
func (r *Recorder) Diagnostics() *Diagnostics {
	n := r.chains[0].n
	d := &Diagnostics{Chains: len(r.chains), Samples: r.chains[0].count, Rhat: make([]float64, n), ESS: make([]float64, n)}
	atoms := make([]int32, n)
	for a := range atoms {
		atoms[a] = int32(a)
	}
	if n > 0 {
		diagnose(r.chains, atoms, d.Rhat, d.ESS)
	}
	d.Summarize(nil, RhatThreshold)
	return d
}
