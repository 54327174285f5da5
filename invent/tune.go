package invent

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/marple-mln/marple/eval"
	"gonum.org/v1/gonum/stat"
)

// TuneGrid lists the values of Options.Lambda and Options.Beta that Tune
// tries, and the held-out slices of the training atoms it compares them on.
type TuneGrid struct {
	Lambdas, Betas []float64
	// Holdout is the share of the atoms in each held-out slice (default
	// 0.1).
	Holdout float64
	// Slices is the number of disjoint held-out slices (default 3; at most
	// 1/Holdout). Each grid point learns once per slice, on the atoms
	// outside it.
	Slices int
}

// DefaultTuneGrid is the grid marple invent and the MRC experiment tune
// over by default (see results/mrc.md for how it was chosen).
var DefaultTuneGrid = TuneGrid{Lambdas: []float64{3, 10}, Betas: []float64{3, 10}, Holdout: 0.1, Slices: 3}

// TuneResult is one grid point's score on the held-out slices.
type TuneResult struct {
	Lambda, Beta float64
	// CLL is the mean over the slices of the mean log-probability of a
	// slice's held-out atoms' values (probabilities clipped to
	// [1e-4, 1-1e-4]); SliceCLL holds each slice's.
	CLL      float64
	SliceCLL []float64
	// Gap is how far CLL is below the best grid point's, and SE the
	// standard error of that gap: of the mean of the differences of the
	// held-out atoms' log-probabilities under the two points' models
	// (paired per atom, each atom scored by the models of its slice).
	Gap, SE float64
	// AUCPR is the mean over the slices of the held-out atoms' AUC-PR;
	// SliceAUCPR holds each slice's. AUCGap and AUCSE are its gap below
	// the best AUC-PR among the points within noise of the best CLL, and
	// the standard error of that gap over the slices (zero for the
	// others).
	AUCPR         float64
	SliceAUCPR    []float64
	AUCGap, AUCSE float64

	logProbs [][]float64 // per slice, the held-out atoms' log-probabilities
}

// TuneRecord is one grid point's score on one held-out slice, as a
// Journal records it: the mean and each held-out atom's log-probability.
type TuneRecord struct {
	Slice        int
	Lambda, Beta float64
	CLL          float64
	LogProbs     []float64
	AUCPR        float64
}

// Tune chooses opt.Lambda and opt.Beta on the training data d alone. It
// holds out g.Slices disjoint slices of d's atoms in turn, learns on the
// rest with every pair of the grid, and scores each pair by the mean over
// the slices of the held-out atoms' log-likelihood (CLL) and of their
// AUC-PR. Differences within one standard error count as noise: the pairs
// whose CLL is within one standard error of the best CLL (of the mean of
// the per-atom differences) are compared by AUC-PR, the log-likelihood
// being blind to how the rare true atoms are ranked; of those within one
// standard error (over the slices) of the best AUC-PR among them, Tune
// keeps the most regularised: the largest λ (each cluster costs more),
// then the largest β (rules smoothed more toward their parent). It returns
// opt with that pair and every pair's scores, in grid order. The caller
// then learns on all of d with the chosen options.
//
// Which slice an atom falls in is drawn from a hash of opt.Seed and the
// names of its predicate and constants, so the choice does not depend on
// the order the atoms or constants were read in.
func Tune(ctx context.Context, d *Data, opt Options, g TuneGrid) (Options, []TuneResult, error) {
	if len(g.Lambdas) == 0 || len(g.Betas) == 0 {
		return opt, nil, fmt.Errorf("invent: empty tuning grid")
	}
	if g.Holdout <= 0 || g.Holdout >= 1 {
		g.Holdout = 0.1
	}
	if g.Slices <= 0 {
		g.Slices = 3
	}
	if float64(g.Slices)*g.Holdout > 1+1e-9 {
		return opt, nil, fmt.Errorf("invent: %d held-out slices of %g of the atoms each exceed the atoms", g.Slices, g.Holdout)
	}
	var res []TuneResult
	for _, l := range g.Lambdas {
		for _, b := range g.Betas {
			res = append(res, TuneResult{Lambda: l, Beta: b, SliceCLL: make([]float64, g.Slices)})
		}
	}
	j := opt.Journal
	n := 0
	for s := 0; s < g.Slices; s++ {
		train, held := d.split(g.Holdout, s, uint64(opt.Seed))
		for i := range res {
			r := &res[i]
			rec, ok := TuneRecord{}, false
			if j != nil {
				rec, ok = j.tuned(n)
			}
			if !ok {
				o := opt
				o.Lambda, o.Beta = r.Lambda, r.Beta
				m, err := Learn(ctx, train, o)
				if err != nil {
					return opt, nil, err
				}
				lp, auc := m.heldOutScores(held)
				rec = TuneRecord{Slice: s, Lambda: r.Lambda, Beta: r.Beta, CLL: meanOf(lp), LogProbs: lp, AUCPR: auc}
				if j != nil {
					j.addTuned(rec)
				}
			} else if rec.Slice != s || rec.Lambda != r.Lambda || rec.Beta != r.Beta {
				return opt, nil, fmt.Errorf("invent: the journal's tuning record %d is slice %d λ %g β %g, not slice %d λ %g β %g", n, rec.Slice, rec.Lambda, rec.Beta, s, r.Lambda, r.Beta)
			}
			r.SliceCLL[s] = rec.CLL
			r.SliceAUCPR = append(r.SliceAUCPR, rec.AUCPR)
			r.logProbs = append(r.logProbs, rec.LogProbs)
			n++
		}
	}
	i := chooseTuned(res)
	opt.Lambda, opt.Beta = res[i].Lambda, res[i].Beta
	return opt, res, nil
}

// chooseTuned fills in the results' means, gaps and standard errors and
// returns the index of the pair Tune keeps.
func chooseTuned(res []TuneResult) int {
	best := -1
	for i := range res {
		r := &res[i]
		r.CLL = meanOf(r.SliceCLL)
		r.AUCPR = meanOf(r.SliceAUCPR)
		if best < 0 || r.CLL > res[best].CLL {
			best = i
		}
	}
	var near []int
	bestAUC := -1
	for i := range res {
		r := &res[i]
		r.Gap = res[best].CLL - r.CLL
		r.SE = pairedSE(res[best].logProbs, r.logProbs)
		r.AUCGap, r.AUCSE = 0, 0
		if r.Gap <= r.SE {
			near = append(near, i)
			if bestAUC < 0 || r.AUCPR > res[bestAUC].AUCPR {
				bestAUC = i
			}
		}
	}
	choice := bestAUC
	for _, i := range near {
		r := &res[i]
		if len(r.SliceAUCPR) == len(res[bestAUC].SliceAUCPR) {
			gaps := make([]float64, len(r.SliceAUCPR))
			for s := range gaps {
				gaps[s] = res[bestAUC].SliceAUCPR[s] - r.SliceAUCPR[s]
			}
			r.AUCGap, r.AUCSE = meanSE(gaps)
		}
		if r.AUCGap <= r.AUCSE {
			c := res[choice]
			if r.Lambda > c.Lambda || r.Lambda == c.Lambda && r.Beta > c.Beta {
				choice = i
			}
		}
	}
	return choice
}

// meanSE is the mean of xs and its standard error (0 for fewer than two).
func meanSE(xs []float64) (mean, se float64) {
	if len(xs) < 2 {
		return meanOf(xs), 0
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	return mean, sd / math.Sqrt(float64(len(xs)))
}

// heldAtoms is a held-out slice of a Data's atoms: per group, the atoms'
// local IDs (arity+1 each) and truth values.
type heldAtoms struct {
	atoms [][]int32
	truth [][]bool
}

// split divides d's atoms into a training Data (the group rates
// recomputed) and held-out slice number slice, about share of them: an
// atom is in slice floor(u/share), u in [0, 1) drawn from a hash of seed
// and the atom's names (atomDraw).
func (d *Data) split(share float64, slice int, seed uint64) (*Data, heldAtoms) {
	train := *d
	train.Groups = make([]Group, len(d.Groups))
	held := heldAtoms{atoms: make([][]int32, len(d.Groups)), truth: make([][]bool, len(d.Groups))}
	lo, hi := float64(slice)*share, float64(slice+1)*share
	for gi := range d.Groups {
		g := &d.Groups[gi]
		w := g.Arity() + 1
		ng := Group{Preds: g.Preds, Args: g.Args}
		t := 0
		for a := 0; a < g.Len(); a++ {
			at := g.Atoms[a*w : (a+1)*w]
			if u := d.atomDraw(gi, at, seed); u >= lo && u < hi {
				held.atoms[gi] = append(held.atoms[gi], at...)
				held.truth[gi] = append(held.truth[gi], g.Truth[a])
				continue
			}
			ng.Atoms = append(ng.Atoms, at...)
			ng.Truth = append(ng.Truth, g.Truth[a])
			if g.Truth[a] {
				t++
			}
		}
		ng.Rate = (float64(t) + 1) / (float64(ng.Len()) + 2)
		train.Groups[gi] = ng
	}
	return &train, held
}

// atomDraw is a number in [0, 1) drawn from seed and the names of the
// predicate and constants of atom at (local IDs) of group gi, the same
// whatever the order the data was read in.
func (d *Data) atomDraw(gi int, at []int32, seed uint64) float64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	g := &d.Groups[gi]
	for q, x := range at {
		dom := g.Preds
		if q > 0 {
			dom = g.Args[q-1]
		}
		h.Write([]byte(d.SymbolName(dom, x)))
		h.Write([]byte{0})
	}
	return float64(mix(h.Sum64(), 0x7475_6e65)>>11) / (1 << 53) // "tune"
}

// pairedSE is the standard error of the mean of the per-atom differences
// a-b (per slice, the same atoms in the same order), each slice's
// differences centred on their own mean, as the scores average the
// slices' means; 0 with fewer than two atoms.
func pairedSE(a, b [][]float64) float64 {
	if len(a) != len(b) {
		return 0
	}
	v := 0.0
	for s := range a {
		n := len(a[s])
		if n < 2 || len(b[s]) != n {
			continue
		}
		mean := 0.0
		for i := range a[s] {
			mean += a[s][i] - b[s][i]
		}
		mean /= float64(n)
		ss := 0.0
		for i := range a[s] {
			d := a[s][i] - b[s][i] - mean
			ss += d * d
		}
		// The variance of this slice's mean difference, weighted as the
		// slices' means are averaged.
		v += ss / float64(n-1) / float64(n)
	}
	k := float64(len(a))
	return math.Sqrt(v) / k
}

func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// heldOutScores is the log-probability the model gives each held-out
// atom's value, probabilities clipped to [1e-4, 1-1e-4], and the AUC-PR of
// the held-out atoms ranked by their probability.
func (m *Model) heldOutScores(h heldAtoms) ([]float64, float64) {
	var out, probs []float64
	var gold []bool
	for gi, truth := range h.truth {
		w := m.Data.Groups[gi].Arity() + 1
		for a, v := range truth {
			p := m.probLocal(gi, h.atoms[gi][a*w:(a+1)*w])
			probs = append(probs, p)
			gold = append(gold, v)
			p = min(max(p, 1e-4), 1-1e-4)
			if !v {
				p = 1 - p
			}
			out = append(out, math.Log(p))
		}
	}
	return out, eval.AUCPR(probs, gold)
}

// TuneText describes Tune's scores: "λ 3 β 10: CLL -0.5120 (-0.5101
// -0.5155 -0.5104; gap 0.0010 ± 0.0007), AUC-PR 0.812 (gap 0.000 ±
// 0.000), ...".
func TuneText(rs []TuneResult) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		sl := make([]string, len(r.SliceCLL))
		for s, v := range r.SliceCLL {
			sl[s] = fmt.Sprintf("%.4f", v)
		}
		parts[i] = fmt.Sprintf("λ %g β %g: CLL %.4f (%s; gap %.4f ± %.4f), AUC-PR %.3f (gap %.3f ± %.3f)", r.Lambda, r.Beta, r.CLL, strings.Join(sl, " "), r.Gap, r.SE, r.AUCPR, r.AUCGap, r.AUCSE)
	}
	return strings.Join(parts, ", ")
}
