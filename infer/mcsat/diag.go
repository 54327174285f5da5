package mcsat

import (
	"math"
)

// RhatThreshold is the split R-hat above which an atom's chains are taken
// not to have converged (Vehtari et al. 2021 recommend 1.01 for final
// results; 1.05 flags chains stuck in different modes without flagging
// ordinary Monte Carlo noise at a few thousand samples).
const RhatThreshold = 1.05

// maxBatches bounds the batches each chain keeps per atom: a chain's
// samples are summed in batches of equal size, and when maxBatches are
// complete adjacent batches are merged (the size doubles), so a chain
// keeps between maxBatches/2 and maxBatches complete batches whatever its
// length.
const maxBatches = 16

// accum records one chain's samples of the atoms of one component: the
// total per atom, and batch sums (and, for Gibbs' Rao-Blackwellised
// values, batch sums of squares; an indicator is its own square).
type accum struct {
	n       int
	squares bool
	sum     []float64 // over all recorded samples
	count   int

	bsize int       // samples per batch
	nb    int       // complete batches
	cur   int       // samples in the current batch
	bs    []float64 // [b*n+a] sums of complete batches, then the current one
	bq    []float64 // [b*n+a] sums of squares (squares only)
}

func newAccum(n int, squares bool) *accum {
	c := &accum{n: n, squares: squares, sum: make([]float64, n), bsize: 1}
	c.bs = make([]float64, (maxBatches+1)*n)
	if squares {
		c.bq = make([]float64, (maxBatches+1)*n)
	}
	return c
}

// addBool records an indicator sample.
func (c *accum) addBool(y []bool) {
	cur := c.bs[c.nb*c.n : (c.nb+1)*c.n]
	for a, v := range y {
		if v {
			c.sum[a]++
			cur[a]++
		}
	}
	c.done()
}

// addValues records a sample of values in [0, 1].
func (c *accum) addValues(p []float64) {
	cur := c.bs[c.nb*c.n : (c.nb+1)*c.n]
	sq := c.bq[c.nb*c.n : (c.nb+1)*c.n]
	for a, v := range p {
		c.sum[a] += v
		cur[a] += v
		sq[a] += v * v
	}
	c.done()
}

// done ends a sample: it completes the current batch when full, merging
// pairs of batches when maxBatches are complete.
func (c *accum) done() {
	c.count++
	c.cur++
	if c.cur < c.bsize {
		return
	}
	c.cur = 0
	c.nb++
	if c.nb < maxBatches {
		return
	}
	n := c.n
	for _, arr := range [][]float64{c.bs, c.bq} {
		if arr == nil {
			continue
		}
		for b := 0; b < maxBatches/2; b++ {
			dst := arr[b*n : (b+1)*n]
			x, y := arr[2*b*n:(2*b+1)*n], arr[(2*b+1)*n:(2*b+2)*n]
			for a := range dst {
				dst[a] = x[a] + y[a]
			}
		}
		clear(arr[maxBatches/2*n:])
	}
	c.nb = maxBatches / 2
	c.bsize *= 2
}

// batch returns the sum and the sum of squares of atom a over batch b.
func (c *accum) batch(b, a int) (s, q float64) {
	s = c.bs[b*c.n+a]
	if c.squares {
		return s, c.bq[b*c.n+a]
	}
	return s, s
}

// Diagnostics are the convergence figures of a run of several chains,
// computed per atom from each chain's sequence of samples (indicators for
// MC-SAT, conditional probabilities for Gibbs) recorded in batches.
type Diagnostics struct {
	// Chains is the number of chains at weight scale 1 (recorded), and
	// Samples the number of samples each recorded.
	Chains, Samples int
	// Rhat is every atom's split R-hat (Gelman-Rubin potential scale
	// reduction, each chain split in halves; Vehtari et al. 2021 without
	// rank normalisation): about 1 when the chains agree, larger when they
	// sample different parts of the distribution. An atom every sequence
	// keeps at the same constant value gets 1; one they keep at different
	// constants gets +Inf. Atoms whose marginals are exact (in no clause,
	// or in a component of at most Options.ExactAtoms atoms) get 1.
	Rhat []float64
	// ESS is every atom's effective sample size over all chains, from
	// batch means around the pooled mean (so that chains disagreeing lower
	// it), at most Chains*Samples; +Inf for atoms whose marginals are
	// exact.
	ESS []float64
	// StdErr is every atom's Monte Carlo standard error of its marginal
	// (the batch-means estimate: the spread of the pooled batch means,
	// scaled to the number of samples); 0 for atoms whose marginals are
	// exact.
	StdErr []float64

	// Summary over the atoms given to Summarize (all atoms for Run).
	MaxRhat     float64
	MaxRhatAtom int // -1 when there is no atom
	NumAbove    int // atoms with Rhat > Threshold
	Threshold   float64
	MinESS      float64 // +Inf when there is no sampled atom
	MinESSAtom  int
}

// Summarize sets the summary fields over the atoms a with keep[a] (all
// atoms when keep is nil), counting those with R-hat above threshold.
func (d *Diagnostics) Summarize(keep []bool, threshold float64) {
	d.MaxRhat, d.MaxRhatAtom, d.NumAbove, d.Threshold = 1, -1, 0, threshold
	d.MinESS, d.MinESSAtom = math.Inf(1), -1
	for a, r := range d.Rhat {
		if keep != nil && !keep[a] {
			continue
		}
		if d.MaxRhatAtom < 0 || r > d.MaxRhat {
			d.MaxRhat, d.MaxRhatAtom = r, a
		}
		if r > threshold {
			d.NumAbove++
		}
		if e := d.ESS[a]; e < d.MinESS {
			d.MinESS, d.MinESSAtom = e, a
		}
	}
}

// Above returns the atoms among those with keep[a] (all when nil) whose
// R-hat exceeds threshold, the worst first.
func (d *Diagnostics) Above(keep []bool, threshold float64) []int {
	var out []int
	for a, r := range d.Rhat {
		if (keep == nil || keep[a]) && r > threshold {
			out = append(out, a)
		}
	}
	// Insertion sort by decreasing R-hat, then atom index: the lists are short.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && d.Rhat[out[j]] > d.Rhat[out[j-1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// varEps is the variance below which samples count as constant: a
// standard deviation of 1e-6, far below what matters for a probability and
// far above the rounding of the sums the variances come from.
const varEps = 1e-12

// splitRhat returns the split R-hat of m sequences of length l each (l >=
// 2) with means mu and (unbiased) variances v.
func splitRhat(mu, v []float64, l int) float64 {
	m := float64(len(mu))
	mean, w := 0.0, 0.0
	for i := range mu {
		mean += mu[i]
		w += v[i]
	}
	mean /= m
	w /= m
	bn := 0.0 // B/l: the variance of the sequence means
	for _, x := range mu {
		bn += (x - mean) * (x - mean)
	}
	bn /= m - 1
	// Variances below varEps are float noise (the within-sequence ones are
	// differences of sums): such sequences count as constant, such means
	// as equal.
	if bn <= varEps {
		bn = 0
	}
	if w <= varEps {
		if bn == 0 {
			return 1
		}
		return math.Inf(1)
	}
	ln := float64(l)
	return math.Sqrt(((ln-1)/ln*w + bn) / w)
}

// diagnose computes the R-hat and ESS of the atoms of one component from
// the accumulators of its chains (all with the same number of samples),
// writing them at the atoms' indices in net.
func diagnose(chains []*accum, atoms []int32, rhat, ess, se []float64) {
	k := len(chains)
	c0 := chains[0]
	nb, bsize := c0.nb, c0.bsize
	half := nb / 2
	if half == 0 {
		for _, a := range atoms {
			rhat[a], ess[a] = math.NaN(), 0
			if se != nil {
				se[a] = math.NaN()
			}
		}
		return
	}
	l := half * bsize
	mu := make([]float64, 2*k)
	v := make([]float64, 2*k)
	means := make([]float64, 0, k*nb)
	for i, a := range atoms {
		means = means[:0]
		tot, totq := 0.0, 0.0
		for j, c := range chains {
			for h := 0; h < 2; h++ {
				s, q := 0.0, 0.0
				for b := h * half; b < (h+1)*half; b++ {
					bs, bq := c.batch(b, i)
					s += bs
					q += bq
				}
				mu[2*j+h] = s / float64(l)
				v[2*j+h] = max(0, (q-s*s/float64(l))/float64(l-1))
			}
			for b := 0; b < nb; b++ {
				bs, bq := c.batch(b, i)
				tot += bs
				totq += bq
				means = append(means, bs/float64(bsize))
			}
		}
		rhat[a] = splitRhat(mu, v, l)
		nTot := float64(k * nb * bsize)
		s2 := max(0, (totq-tot*tot/nTot)/(nTot-1))
		mean := tot / nTot
		sig := 0.0
		for _, x := range means {
			sig += (x - mean) * (x - mean)
		}
		sig *= float64(bsize) / float64(len(means)-1)
		if se != nil {
			se[a] = math.Sqrt(sig / nTot)
		}
		switch {
		case sig <= varEps || s2 <= varEps:
			ess[a] = nTot
		default:
			ess[a] = min(nTot, nTot*s2/sig)
		}
	}
}
