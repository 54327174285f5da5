package learn

import (
	"fmt"
	"math"
)

// CDA is the online coordinate-dual-ascent rule of Huynh & Mooney (SDM
// 2011, Algorithm 2):
//
//	l_t     = [ρ(y_t,ŷ) − (t−1)/t·⟨w_t, Δφ⟩]_+
//	w_{t+1} = (t−1)/t·w_t + min{1/(σt), l_t/‖Δφ‖²}·Δφ
//
// with ŷ the prediction (CDA-PL, the default) or the maximal-loss label
// (CDA-ML). 1/σ plays the part of the C of passive-aggressive rules: the
// step is capped at C/t with C = 1/σ. Algorithm 2 starts from w_1 = 0; initial weights given to the
// learner only affect the first prediction, since step 1 multiplies w_1 by
// (1−1)/1 = 0, and a parameter first met after step 1 starts at 0.
type CDA struct {
	// Sigma is the strong-convexity constant σ > 0 (SDM 2011 tunes it on
	// validation data and prints no value; DefaultCDA uses 1).
	Sigma float64
	// Inference is Prediction (default) or MaxLoss.
	Inference Inference
}

// DefaultCDA returns CDA-PL with σ = 1.
func DefaultCDA() *CDA { return &CDA{Sigma: DefaultSigma} }

// Name returns "CDA-PL" or "CDA-ML".
func (m *CDA) Name() string { return "CDA-" + m.Label().String() }

// Label returns the label the updates use (Prediction by default).
func (m *CDA) Label() Inference { return m.Inference.resolve(Prediction) }

// NewLearner returns a CDA learner.
func (m *CDA) NewLearner(init []float64) (Learner, error) {
	if !(m.Sigma > 0) || math.IsInf(m.Sigma, 1) {
		return nil, fmt.Errorf("learn: CDA needs 0 < sigma < Inf, have %v", m.Sigma)
	}
	return newScaled(init, m.Sigma, false), nil
}

// NewLearnerAt returns a CDA learner that continues from weights w as if
// it had already made steps updates (see Continuer).
func (m *CDA) NewLearnerAt(w []float64, steps int) (Learner, error) {
	if _, err := m.NewLearner(nil); err != nil {
		return nil, err
	}
	return newScaledAt(w, m.Sigma, false, steps), nil
}

// Subgradient is the subgradient rule of Ratliff et al. as written in
// Huynh & Mooney (SDM 2011, §3):
//
//	w_{t+1} = w_t − 1/(σt)·(σ·w_t − Δφ) = (t−1)/t·w_t + 1/(σt)·Δφ
//
// with ŷ the maximal-loss label by default. −Δφ is the subgradient of
// [ρ − ⟨w,Δφ⟩]_+ at w_t when that hinge is positive; when it is zero
// (ŷ ties the truth) the subgradient 0 is used, so w_{t+1} = (t−1)/t·w_t.
// Like CDA it starts from w_1 = 0 in effect.
type Subgradient struct {
	// Sigma is σ > 0 (DefaultSubgradient uses 1).
	Sigma float64
	// Inference is MaxLoss (default) or Prediction.
	Inference Inference
}

// DefaultSubgradient returns the maximal-loss subgradient rule with σ = 1.
func DefaultSubgradient() *Subgradient { return &Subgradient{Sigma: DefaultSigma} }

// Name returns "Subgradient-ML" or "Subgradient-PL".
func (m *Subgradient) Name() string { return "Subgradient-" + m.Label().String() }

// Label returns the label the updates use (MaxLoss by default).
func (m *Subgradient) Label() Inference { return m.Inference.resolve(MaxLoss) }

// NewLearner returns a subgradient learner.
func (m *Subgradient) NewLearner(init []float64) (Learner, error) {
	if !(m.Sigma > 0) || math.IsInf(m.Sigma, 1) {
		return nil, fmt.Errorf("learn: Subgradient needs 0 < sigma < Inf, have %v", m.Sigma)
	}
	return newScaled(init, m.Sigma, true), nil
}

// NewLearnerAt returns a subgradient learner that continues from weights
// w as if it had already made steps updates (see Continuer).
func (m *Subgradient) NewLearnerAt(w []float64, steps int) (Learner, error) {
	if _, err := m.NewLearner(nil); err != nil {
		return nil, err
	}
	return newScaledAt(w, m.Sigma, true, steps), nil
}

// scaled is the state of CDA and Subgradient. It stores W = (t−1)·w_t,
// for which both rules are sparse additive updates, W_{t+1} = W_t + c_t·Δφ,
// and w_{t+1} = W_{t+1}/t. For averaging it keeps A = Σ_k d_k·H_{k−1}
// (d_k the change of W at step k, H_n = Σ_{j≤n} 1/j), since
// Σ_{t=1..T} w_{t+1} = Σ_t W_{t+1}/t = H_T·W_{T+1} − A.
//
// A learner continued at step t0 (newScaledAt) starts from W = t0·w,
// H_t0 and A = H_t0·W, so that H_T·W_{T+1} − A sums w_{t+1} over its own
// steps t0 < t <= T only, and averages divide by T − t0.
type scaled struct {
	sigma   float64
	subgrad bool
	init    []float64 // w_1, used before the first step only
	W, A    []float64
	steps   int
	t0      int     // steps made before this learner started
	harm    float64 // H_steps
}

func newScaled(init []float64, sigma float64, subgrad bool) *scaled {
	s := &scaled{sigma: sigma, subgrad: subgrad}
	s.Grow(init)
	return s
}

// newScaledAt returns the state after steps updates ending at weights w.
func newScaledAt(w []float64, sigma float64, subgrad bool, steps int) *scaled {
	s := newScaled(w, sigma, subgrad)
	if steps <= 0 {
		return s
	}
	s.steps, s.t0 = steps, steps
	for t := 1; t <= steps; t++ {
		s.harm += 1 / float64(t)
	}
	for i, x := range w {
		s.W[i] = float64(steps) * x
		s.A[i] = s.harm * s.W[i]
	}
	return s
}

func (s *scaled) Len() int { return len(s.W) }

func (s *scaled) Grow(init []float64) {
	for i := len(s.W); i < len(init); i++ {
		s.init = append(s.init, init[i])
		s.W = append(s.W, 0)
		s.A = append(s.A, 0)
	}
}

func (s *scaled) Steps() int { return s.steps }

func (s *scaled) Weight(i int) float64 {
	if s.steps == 0 {
		return s.init[i]
	}
	return s.W[i] / float64(s.steps)
}

func (s *scaled) Step(diff Sparse, rho float64) float64 {
	t := float64(s.steps + 1)
	// (t−1)/t·⟨w_t,Δφ⟩ = ⟨W_t,Δφ⟩/t.
	var dotW float64
	for k, i := range diff.Idx {
		dotW += s.W[i] * diff.Val[k]
	}
	norm2 := diff.Norm2()
	var c, l float64
	if s.subgrad {
		// Hinge at w_t itself: ⟨w_t,Δφ⟩ = ⟨W_t,Δφ⟩/(t−1), or w_1 at t = 1.
		var dot float64
		if s.steps == 0 {
			for k, i := range diff.Idx {
				dot += s.init[i] * diff.Val[k]
			}
		} else {
			dot = dotW / (t - 1)
		}
		l = math.Max(0, rho-dot)
		if l > 0 {
			c = 1 / s.sigma // t·1/(σt)
		}
	} else {
		l = math.Max(0, rho-dotW/t)
		if norm2 > 0 {
			c = math.Min(1/s.sigma, t*l/norm2) // t·min{1/(σt), l/‖Δφ‖²}
		}
	}
	if c != 0 {
		for k, i := range diff.Idx {
			d := c * diff.Val[k]
			s.W[i] += d
			s.A[i] += d * s.harm
		}
	}
	s.steps++
	s.harm += 1 / t
	return l
}

func (s *scaled) Final(dst []float64, avg bool) {
	for i := range s.W {
		switch {
		case s.steps == 0:
			dst[i] = s.init[i]
		case avg && s.steps == s.t0:
			dst[i] = s.W[i] / float64(s.steps)
		case avg:
			dst[i] = (s.harm*s.W[i] - s.A[i]) / float64(s.steps-s.t0)
		default:
			dst[i] = s.W[i] / float64(s.steps)
		}
	}
}
