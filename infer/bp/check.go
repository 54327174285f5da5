package bp

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/mcsat"
)

// DefaultCheckTolerance is the difference from the true marginal up to
// which the check (Options.Check) confirms a BP marginal.
const DefaultCheckTolerance = 0.05

// checkRounds bounds the rounds of the check: each doubles the samples of
// the one before, while an atom's difference from BP is within the
// tolerance but its sampling error is not.
const checkRounds = 4

// checkZ is the number of standard errors of the check's estimate added
// to its difference from BP: an atom passes when |BP - check| + checkZ·se
// is at most the tolerance.
const checkZ = 3

// checkChains is the number of chains of the check: fixed, so that the
// check does not depend on the machine's cores.
const checkChains = 4

// checkRhat is the split R-hat above which the check's chains disagree
// and its estimate of an atom confirms nothing.
const checkRhat = 1.1

// check compares BP's marginals p with MC-SAT's on the same network and
// bias (several chains with block moves; components of at most
// mcsat.DefaultExactAtoms atoms enumerated exactly) and sets st's check
// fields: an atom is unreliable unless |p - MC-SAT| plus checkZ standard
// errors of the MC-SAT estimate is at most the tolerance and the chains
// agree on it. Loopy BP can converge to a fixed point far from the true
// marginals (near-deterministic clauses in short loops); the check is
// what says so.
func check(ctx context.Context, net *ground.Network, p []float64, opt Options, st *Stats) error {
	tol := opt.CheckTolerance
	if tol <= 0 {
		tol = DefaultCheckTolerance
	}
	mo := mcsat.Options{Options: infer.Options{Seed: opt.Seed, Bias: opt.Bias}, Samples: opt.Check, ExactAtoms: opt.checkExact, Chains: checkChains}
	s, err := mcsat.NewSampling(ctx, net, opt.Workers, mo, mcsat.MethodMCSAT)
	if errors.Is(err, mcsat.ErrHard) {
		// No world satisfying the hard clauses to compare with: nothing
		// is confirmed.
		st.Checked, st.CheckDiff, st.Unreliable = true, math.NaN(), make([]int32, len(p))
		for a := range st.Unreliable {
			st.Unreliable[a] = int32(a)
		}
		return nil
	}
	if err != nil {
		return err
	}
	round := opt.Check
	var bad []int32
	var diff []float64
	for r := 0; r < checkRounds; r++ {
		if opt.Progress != nil {
			opt.Progress(0, float64(round))
		}
		if err := s.Sample(ctx, round); err != nil {
			return err
		}
		q := s.Marginals()
		d := s.Diagnostics()
		bad, diff = bad[:0], make([]float64, len(p))
		again := false
		for a := range p {
			diff[a] = math.Abs(p[a] - q[a])
			ess := d.ESS[a]
			if math.IsInf(ess, 1) { // exact
				if diff[a] > tol {
					bad = append(bad, int32(a))
				}
				continue
			}
			if !(ess >= 1) {
				ess = 1
			}
			pt := (q[a]*ess + 0.5) / (ess + 1)
			se := math.Sqrt(pt * (1 - pt) / ess)
			if diff[a]+checkZ*se > tol || !(d.Rhat[a] <= checkRhat) {
				bad = append(bad, int32(a))
				if diff[a] <= tol {
					again = true // more samples may confirm it
				}
			}
		}
		if !again {
			break
		}
		round = d.Samples // double the samples per chain
	}
	slices.SortStableFunc(bad, func(x, y int32) int {
		switch {
		case diff[x] > diff[y]:
			return -1
		case diff[x] < diff[y]:
			return 1
		}
		return 0
	})
	st.Checked = true
	st.Unreliable = bad
	st.CheckDiff = 0
	for _, x := range diff {
		st.CheckDiff = math.Max(st.CheckDiff, x)
	}
	return nil
}
