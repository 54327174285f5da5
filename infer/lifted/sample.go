package lifted

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/marple-mln/marple/mln"
)

// Proposal is the distribution lifted importance sampling draws the cell
// counts of each class of constants from (Alchemy's -imd).
type Proposal int

const (
	// Binomial puts each constant of a class in one of its allowed cells
	// uniformly at random: the counts are multinomial (Alchemy's -imd 1,
	// its default).
	Binomial Proposal = iota
	// Uniform draws the counts uniformly among the compositions of the
	// class's size into its allowed cells (-imd 2).
	Uniform
	// Informed starts from the multinomial whose cell probabilities are
	// the normalized cell weights and moves it toward the sampled counts,
	// weighted by their importance weights, every UpdateInterval samples
	// by LearningRate (adaptive importance sampling; -imd 0).
	Informed
)

func (p Proposal) String() string {
	switch p {
	case Binomial:
		return "binomial"
	case Uniform:
		return "uniform"
	case Informed:
		return "informed"
	}
	return fmt.Sprintf("Proposal(%d)", int(p))
}

// Defaults of Sampling.
const (
	DefaultSamples        = 1000
	DefaultLearningRate   = 0.001 // Alchemy's -lr
	DefaultUpdateInterval = 50    // Alchemy's -ui
)

// Sampling are the settings of lifted importance sampling.
type Sampling struct {
	// Samples is the number of samples of each estimate (0:
	// DefaultSamples). Each marginal takes two estimates (the atom true,
	// the atom false), log Z one.
	Samples  int
	Proposal Proposal
	// LearningRate and UpdateInterval adapt the Informed proposal (0: the
	// defaults).
	LearningRate   float64
	UpdateInterval int
	// Seed fixes every draw.
	Seed uint64
}

// Sample estimates log Z and the marginals of the unknown query atoms by
// lifted importance sampling (Gogate, Jha and Venugopal, "Advances in
// lifted importance sampling", AAAI 2012): the sums over the cell counts
// of Exact, and its enumeration of the atoms over special constants, are
// replaced by draws from a proposal. log Z comes with its standard error
// (delta method on the importance weights); a marginal is Z(atom true) /
// (Z(atom true) + Z(atom false)), both estimated, with its standard error
// by the delta method. The model must be in the lifted fragment (there is
// no ground fallback). The result depends only on the seed.
func Sample(ctx context.Context, m *mln.Model, db *mln.Database, opt Options, s Sampling) (*Result, error) {
	if s.Samples <= 0 {
		s.Samples = DefaultSamples
	}
	if s.LearningRate <= 0 {
		s.LearningRate = DefaultLearningRate
	}
	if s.UpdateInterval <= 0 {
		s.UpdateInterval = DefaultUpdateInterval
	}
	if s.Proposal < Binomial || s.Proposal > Informed {
		return nil, fmt.Errorf("lifted: unknown proposal %v", s.Proposal)
	}
	if opt.MaxSpecialAtoms == 0 {
		opt.MaxSpecialAtoms = 40 // sampled, not enumerated
	}
	p, b, lim, err := setup(m, db, opt)
	if err != nil {
		return nil, err
	}
	lf := newLfact(p.maxN)
	lz, se, ess, err := p.estimate(ctx, lf, s, s.Seed, 0)
	if err != nil {
		return nil, err
	}
	if math.IsInf(lz, -1) {
		return nil, fmt.Errorf("lifted: every sample has weight zero: %w", ErrInfeasible)
	}
	if ess < 2 {
		se = math.NaN() // one sample carries the estimate: no error known
	}
	r := &Result{LogZ: lz, LogZErr: se, ESS: ess, Method: MethodSampling, model: m, base: b, index: map[classKey]int{}, query: make([]bool, len(m.Preds))}
	for _, q := range opt.Query {
		r.query[q] = true
	}
	if !opt.NoMarginals {
		for i, q := range p.queryClasses(b, opt.Query) {
			if q.probe != nil {
				c, err := q.probe()
				if err != nil {
					return nil, err
				}
				_, _, _, sm, err := c.estimateWith(ctx, lf, s, s.Seed, uint64(2*i+1))
				if err != nil {
					return nil, err
				}
				pr, pe, e := sm.ratio()
				r.ESS = min(r.ESS, e)
				if e < 2 {
					pe = math.NaN() // one sample carries the estimate: no error known
				}
				r.index[q.key] = len(r.Classes)
				r.Classes = append(r.Classes, AtomClass{Pred: q.key.pred, Args: q.args, Count: q.count, Prob: pr, Err: pe})
				continue
			}
			var lv, sv [2]float64
			for j, v := range []mln.Truth{mln.True, mln.False} {
				c, err := q.build(v)
				if err != nil {
					return nil, err
				}
				var e float64
				lv[j], sv[j], e, err = c.estimate(ctx, lf, s, s.Seed, uint64(2*i+1+j))
				if err != nil {
					return nil, err
				}
				if !math.IsInf(lv[j], -1) {
					r.ESS = min(r.ESS, e)
					if e < 2 {
						sv[j] = math.NaN()
					}
				}
			}
			var pr, pe float64
			switch {
			case math.IsInf(lv[0], -1) && math.IsInf(lv[1], -1):
				pr, pe = math.NaN(), math.NaN()
			case math.IsInf(lv[1], -1):
				pr = 1
			case math.IsInf(lv[0], -1):
				pr = 0
			default:
				pr = 1 / (1 + math.Exp(lv[1]-lv[0]))
				pe = pr * (1 - pr) * math.Hypot(sv[0], sv[1])
			}
			r.index[q.key] = len(r.Classes)
			r.Classes = append(r.Classes, AtomClass{Pred: q.key.pred, Args: q.args, Count: q.count, Prob: pr, Err: pe})
		}
	}
	r.Work = lim.work
	if r.ESS < max(10, float64(s.Samples)/100) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the importance weights are degenerate (effective sample size %.1f of %d samples): the estimates and their standard errors are unreliable; use Exact, more samples or another proposal", r.ESS, s.Samples))
	}
	return r, nil
}

// sampler is the state of one estimate.
type sampler struct {
	p   *problem
	lf  lfact
	s   Sampling
	rng *rand.Rand
	// per outer assignment: the special groundings' weight and the cell
	// weights
	outer map[uint64]*outerW
	// Informed: per type, per class, cell probabilities
	pi [][][]float64
	// the interval's samples, for the Informed update
	hist []histEntry
	// with a probe: each sample's log weight with the atom true, false
	wT, wF []float64
}

type outerW struct {
	ls float64
	w  *weights
}

type histEntry struct {
	lw float64
	k  [][][]int // [type][class][cell]
}

// estimate returns the estimate of log Z of p and its standard error;
// stream selects an independent stream of draws for the seed.
func (p *problem) estimate(ctx context.Context, lf lfact, s Sampling, seed, stream uint64) (lz, se, ess float64, err error) {
	lz, se, ess, _, err = p.estimateWith(ctx, lf, s, seed, stream)
	return lz, se, ess, err
}

// estimateWith is estimate, also returning the sampler (its probe
// weights).
func (p *problem) estimateWith(ctx context.Context, lf lfact, s Sampling, seed, stream uint64) (lz, se, ess float64, sm *sampler, err error) {
	sm = &sampler{p: p, lf: lf, s: s, rng: rand.New(rand.NewPCG(seed, stream*0x9e3779b97f4a7c15+1)), outer: map[uint64]*outerW{}}
	lws := make([]float64, 0, s.Samples)
	sigma := make([]bool, p.nUnknown)
	k := make([][][]int, len(p.types))
	for t, ti := range p.types {
		k[t] = make([][]int, len(ti.classes))
		for ci := range ti.classes {
			k[t][ci] = make([]int, 1<<len(ti.rel))
		}
	}
	for i := range s.Samples {
		if i&15 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, 0, 0, nil, err
			}
		}
		var a uint64
		if len(p.iface) > 0 {
			a = sm.rng.Uint64() & (1<<len(p.iface) - 1)
		}
		o, err := sm.outerFor(a, sigma)
		if err != nil {
			return 0, 0, 0, nil, err
		}
		lw := o.ls + float64(len(p.iface))*math.Ln2
		if !math.IsInf(lw, -1) {
			lq := 0.0
			for t, ti := range p.types {
				for ci, c := range ti.classes {
					if c.n == 0 {
						continue
					}
					q, ok := sm.draw(t, ci, c.n, o.w.lw[t][ci], k[t][ci])
					if !ok {
						lw = math.Inf(-1)
						break
					}
					lq += q
				}
			}
			if !math.IsInf(lw, -1) {
				lw += sm.term(o.w, k) - lq
			}
		}
		if err := p.lim.add(1); err != nil {
			return 0, 0, 0, nil, err
		}
		if p.probe != nil {
			// The probes' cells are summed exactly given the others'
			// counts: the sample's weight with the atom true and false.
			lT, lF := math.Inf(-1), math.Inf(-1)
			if !math.IsInf(lw, -1) {
				lT, lF = sm.probeSums(o.w, k)
			}
			sm.wT = append(sm.wT, lw+lT)
			sm.wF = append(sm.wF, lw+lF)
			lw += logAdd(lT, lF)
		}
		lws = append(lws, lw)
		if s.Proposal == Informed {
			sm.record(lw, k)
		}
	}
	mx := math.Inf(-1)
	for _, x := range lws {
		mx = max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return mx, 0, 0, sm, nil
	}
	var sum, sum2 float64
	for _, x := range lws {
		e := math.Exp(x - mx)
		sum += e
		sum2 += e * e
	}
	n := float64(len(lws))
	mean := sum / n
	v := max(sum2/n-mean*mean, 0) * n / max(n-1, 1)
	return mx + math.Log(mean), math.Sqrt(v/n) / mean, sum * sum / sum2, sm, nil
}

func (sm *sampler) outerFor(a uint64, sigma []bool) (*outerW, error) {
	if o, ok := sm.outer[a]; ok {
		return o, nil
	}
	for i, b := range sm.p.iface {
		sigma[b] = a>>i&1 == 1
	}
	ls, err := sm.p.specialWeight(sigma)
	if err != nil {
		return nil, err
	}
	o := &outerW{ls: ls}
	if !math.IsInf(ls, -1) {
		if o.w, err = sm.p.weightsFor(sigma); err != nil {
			return nil, err
		}
	}
	if len(sm.outer) < 1<<16 {
		sm.outer[a] = o
	}
	if sm.pi == nil && o.w != nil && sm.s.Proposal == Informed {
		sm.initInformed(o.w)
	}
	return o, nil
}

// initInformed sets each class's cell probabilities to its normalized
// cell weights.
func (sm *sampler) initInformed(w *weights) {
	sm.pi = make([][][]float64, len(sm.p.types))
	for t, ti := range sm.p.types {
		sm.pi[t] = make([][]float64, len(ti.classes))
		for ci := range ti.classes {
			lw := w.lw[t][ci]
			mx := math.Inf(-1)
			for _, x := range lw {
				mx = max(mx, x)
			}
			pi := make([]float64, len(lw))
			for i, x := range lw {
				if !math.IsInf(mx, -1) {
					pi[i] = math.Exp(x - mx)
				}
			}
			sm.pi[t][ci] = normalize(pi)
		}
	}
}

// normalize makes pi sum to one, with a floor so that no cell is left
// out of the proposal's support.
func normalize(pi []float64) []float64 {
	s := 0.0
	for _, x := range pi {
		s += x
	}
	for i := range pi {
		if s > 0 {
			pi[i] /= s
		} else {
			pi[i] = 1 / float64(len(pi))
		}
		pi[i] = max(pi[i], 1e-4)
	}
	s = 0
	for _, x := range pi {
		s += x
	}
	for i := range pi {
		pi[i] /= s
	}
	return pi
}

// record keeps a sample for the Informed update and updates the proposal
// every UpdateInterval samples.
func (sm *sampler) record(lw float64, k [][][]int) {
	if math.IsInf(lw, -1) || sm.pi == nil {
		return
	}
	cp := make([][][]int, len(k))
	for t := range k {
		cp[t] = make([][]int, len(k[t]))
		for ci := range k[t] {
			cp[t][ci] = append([]int(nil), k[t][ci]...)
		}
	}
	sm.hist = append(sm.hist, histEntry{lw: lw, k: cp})
	if len(sm.hist) < sm.s.UpdateInterval {
		return
	}
	mx := math.Inf(-1)
	for _, h := range sm.hist {
		mx = max(mx, h.lw)
	}
	lr := sm.s.LearningRate
	for t, ti := range sm.p.types {
		for ci, c := range ti.classes {
			if c.n == 0 {
				continue
			}
			target := make([]float64, len(sm.pi[t][ci]))
			tot := 0.0
			for _, h := range sm.hist {
				e := math.Exp(h.lw - mx)
				tot += e
				for i, x := range h.k[t][ci] {
					target[i] += e * float64(x) / float64(c.n)
				}
			}
			pi := sm.pi[t][ci]
			for i := range pi {
				pi[i] = (1-lr)*pi[i] + lr*target[i]/tot
			}
			sm.pi[t][ci] = normalize(pi)
		}
	}
	sm.hist = sm.hist[:0]
}

// draw samples the cell counts of a class of n constants into k and
// returns the log probability of the draw under the proposal; ok is false
// when the class has no allowed cell.
func (sm *sampler) draw(t, ci, n int, lw []float64, k []int) (float64, bool) {
	var allowed []int
	for i, x := range lw {
		k[i] = 0
		if !math.IsInf(x, -1) {
			allowed = append(allowed, i)
		}
	}
	a := len(allowed)
	if a == 0 {
		return 0, false
	}
	if a == 1 {
		k[allowed[0]] = n
		return 0, true
	}
	switch sm.s.Proposal {
	case Uniform:
		// Stars and bars: a-1 bars among n+a-1 places.
		places := n + a - 1
		bars := make([]bool, places)
		for j := places - (a - 1); j < places; j++ { // Floyd's sampling
			x := sm.rng.IntN(j + 1)
			if bars[x] {
				x = j
			}
			bars[x] = true
		}
		cell := 0
		for _, isBar := range bars {
			if isBar {
				cell++
			} else {
				k[allowed[cell]]++
			}
		}
		return -math.Log(float64(binom(n+a-1, a-1))), true
	default:
		probs := make([]float64, a)
		if sm.s.Proposal == Informed && sm.pi != nil {
			for j, i := range allowed {
				probs[j] = sm.pi[t][ci][i]
			}
		} else {
			for j := range probs {
				probs[j] = 1
			}
		}
		s := 0.0
		for _, x := range probs {
			s += x
		}
		cum := make([]float64, a)
		c := 0.0
		for j := range probs {
			probs[j] /= s
			c += probs[j]
			cum[j] = c
		}
		for range n {
			u := sm.rng.Float64()
			j := 0
			for j < a-1 && u >= cum[j] {
				j++
			}
			k[allowed[j]]++
		}
		lq := sm.lf[n]
		for j, i := range allowed {
			lq += float64(k[i])*math.Log(probs[j]) - sm.lf[k[i]]
		}
		return lq, true
	}
}

// term is the log weight of one vector of cell counts per class:
// multinomials, cell weights and pair factors.
func (sm *sampler) term(w *weights, k [][][]int) float64 {
	p := sm.p
	v := 0.0
	K := make([][]int, len(p.types))
	for t, ti := range p.types {
		K[t] = make([]int, 1<<len(ti.rel))
		for ci, c := range ti.classes {
			if c.n == 0 {
				continue
			}
			v += sm.lf[c.n]
			for i, x := range k[t][ci] {
				if x > 0 {
					v += float64(x)*w.lw[t][ci][i] - sm.lf[x]
					K[t][i] += x
				}
			}
		}
	}
	for t1 := range p.types {
		for t2 := t1; t2 < len(p.types); t2++ {
			v += pairTerm(w.lr[[2]int{t1, t2}], t1 == t2, K[t1], K[t2])
		}
	}
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v
}

// pairTerm is the log of the pair factors between counts Ka and Kb.
func pairTerm(r [][]float64, same bool, Ka, Kb []int) float64 {
	v := 0.0
	{
		for i := range r {
			if Ka[i] == 0 {
				continue
			}
			for j := range r[i] {
				if Kb[j] == 0 {
					continue
				}
				if same {
					switch {
					case j < i:
						continue
					case j == i:
						if Ka[i] > 1 {
							v += float64(Ka[i]) * float64(Ka[i]-1) / 2 * r[i][i]
						}
						continue
					}
				}
				v += float64(Ka[i]) * float64(Kb[j]) * r[i][j]
			}
		}
	}
	return v
}

// probeSums returns the log of the probes' sums over their cells, with the
// atom true and false, given the others' counts k.
func (sm *sampler) probeSums(w *weights, k [][][]int) (float64, float64) {
	var tabs []*counts
	for t, ti := range sm.p.types {
		if ti.size() == 0 {
			continue
		}
		nc := 1 << len(ti.rel)
		c := &counts{t: t, cells: make([]int, nc), k: make([]int32, nc), v: []float64{0}}
		for i := range nc {
			c.cells[i] = i
		}
		for ci := range ti.classes {
			for i, x := range k[t][ci] {
				c.k[i] += int32(x)
			}
		}
		tabs = append(tabs, c)
	}
	accT, accF := newLSE(), newLSE()
	w.pw.probeTerms(tabs, make([]int, len(tabs)), 0, &accT, &accF)
	return accT.log(), accF.log()
}

// ratio returns the self-normalized estimate of Z_T / (Z_T + Z_F) from
// the probe weights and its standard error (delta method for a ratio of
// means), and the effective sample size.
func (sm *sampler) ratio() (float64, float64, float64) {
	mx := math.Inf(-1)
	for i := range sm.wT {
		mx = max(mx, sm.wT[i], sm.wF[i])
	}
	if math.IsInf(mx, -1) {
		return math.NaN(), math.NaN(), 0
	}
	n := float64(len(sm.wT))
	var a, b, s2 float64
	ys := make([]float64, len(sm.wT))
	xs := make([]float64, len(sm.wT))
	for i := range sm.wT {
		ys[i] = math.Exp(sm.wT[i] - mx)
		xs[i] = ys[i] + math.Exp(sm.wF[i]-mx)
		a += ys[i]
		b += xs[i]
		s2 += xs[i] * xs[i]
	}
	r := a / b
	v := 0.0
	for i := range ys {
		d := ys[i] - r*xs[i]
		v += d * d
	}
	v /= max(n-1, 1)
	return r, math.Sqrt(v/n) / (b / n), b * b / s2
}
