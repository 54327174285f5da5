package invent

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// TuneGrid lists the values of Options.Lambda and Options.Beta that Tune
// tries, and the share of the training atoms it holds out to compare them.
type TuneGrid struct {
	Lambdas, Betas []float64
	// Holdout is the share of the atoms held out (default 0.1).
	Holdout float64
}

// DefaultTuneGrid is the grid marple invent and the MRC experiment tune
// over by default (see results/mrc.md for how it was chosen).
var DefaultTuneGrid = TuneGrid{Lambdas: []float64{3, 10}, Betas: []float64{3, 10}, Holdout: 0.1}

// TuneResult is one grid point's score on the held-out slice.
type TuneResult struct {
	Lambda, Beta float64
	// CLL is the mean log-probability of the held-out atoms' values
	// (probabilities clipped to [1e-4, 1-1e-4]).
	CLL float64
}

// Tune chooses opt.Lambda and opt.Beta on the training data d alone: it
// holds out a random slice of d's atoms (drawn with opt.Seed), learns on the
// rest with every pair of the grid, and returns opt with the pair whose model
// gives the held-out atoms the highest log-likelihood (the first in grid
// order among equals), with every pair's score. The caller then learns on
// all of d with the chosen options.
func Tune(ctx context.Context, d *Data, opt Options, g TuneGrid) (Options, []TuneResult, error) {
	if len(g.Lambdas) == 0 || len(g.Betas) == 0 {
		return opt, nil, fmt.Errorf("invent: empty tuning grid")
	}
	if g.Holdout <= 0 || g.Holdout >= 1 {
		g.Holdout = 0.1
	}
	train, held := d.split(g.Holdout, uint64(opt.Seed))
	var res []TuneResult
	best := -1
	j := opt.Journal
	for _, l := range g.Lambdas {
		for _, b := range g.Betas {
			r, ok := TuneResult{}, false
			if j != nil {
				r, ok = j.tuned(len(res))
			}
			if !ok {
				o := opt
				o.Lambda, o.Beta = l, b
				m, err := Learn(ctx, train, o)
				if err != nil {
					return opt, nil, err
				}
				r = TuneResult{Lambda: l, Beta: b, CLL: m.heldOutCLL(held)}
				if j != nil {
					j.addTuned(r)
				}
			} else if r.Lambda != l || r.Beta != b {
				return opt, nil, fmt.Errorf("invent: the journal's tuning point %d is λ %g β %g, not λ %g β %g", len(res), r.Lambda, r.Beta, l, b)
			}
			res = append(res, r)
			if best < 0 || r.CLL > res[best].CLL {
				best = len(res) - 1
			}
		}
	}
	opt.Lambda, opt.Beta = res[best].Lambda, res[best].Beta
	return opt, res, nil
}

// heldAtoms is a held-out slice of a Data's atoms: per group, the atoms'
// local IDs (arity+1 each) and truth values.
type heldAtoms struct {
	atoms [][]int32
	truth [][]bool
}

// split divides d's atoms at random into a training Data (the group rates
// recomputed) and a held-out slice of about share of them.
func (d *Data) split(share float64, seed uint64) (*Data, heldAtoms) {
	rng := rand.New(rand.NewPCG(seed, 0x7475_6e65)) // "tune"
	train := *d
	train.Groups = make([]Group, len(d.Groups))
	held := heldAtoms{atoms: make([][]int32, len(d.Groups)), truth: make([][]bool, len(d.Groups))}
	for gi := range d.Groups {
		g := &d.Groups[gi]
		w := g.Arity() + 1
		ng := Group{Preds: g.Preds, Args: g.Args}
		t := 0
		for a := 0; a < g.Len(); a++ {
			at := g.Atoms[a*w : (a+1)*w]
			if rng.Float64() < share {
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

// heldOutCLL is the mean log-probability the model gives the held-out
// atoms' values, probabilities clipped to [1e-4, 1-1e-4].
func (m *Model) heldOutCLL(h heldAtoms) float64 {
	sum, n := 0.0, 0
	for gi, truth := range h.truth {
		w := m.Data.Groups[gi].Arity() + 1
		for a, v := range truth {
			p := m.probLocal(gi, h.atoms[gi][a*w:(a+1)*w])
			p = min(max(p, 1e-4), 1-1e-4)
			if !v {
				p = 1 - p
			}
			sum += math.Log(p)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// TuneText describes Tune's scores: "λ 3 β 10: -0.512, ...".
func TuneText(rs []TuneResult) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("λ %g β %g: %.4f", r.Lambda, r.Beta, r.CLL)
	}
	return strings.Join(parts, ", ")
}
