package learn

import (
	"fmt"
	"math"
)

// MIRA is 1-best MIRA as written in Huynh & Mooney (SDM 2011, §4.2):
//
//	w_{t+1} = w_t + [ρ(y_t,ŷ) − ⟨w_t, Δφ⟩]_+/‖Δφ‖²·Δφ
//
// with ŷ the prediction by default. No update when Δφ = 0.
type MIRA struct {
	// C > 0 clips the step size at C (PA-I); 0 keeps the paper's
	// unclipped rule.
	C float64
	// Inference is Prediction (default) or MaxLoss.
	Inference Inference
}

// DefaultMIRA returns the paper's 1-best MIRA (prediction-based, no clip).
func DefaultMIRA() *MIRA { return &MIRA{} }

// Name returns "MIRA-PL" or "MIRA-ML".
func (m *MIRA) Name() string { return "MIRA-" + m.Label().String() }

// Label returns the label the updates use (Prediction by default).
func (m *MIRA) Label() Inference { return m.Inference.resolve(Prediction) }

// NewLearner returns a MIRA learner.
func (m *MIRA) NewLearner(init []float64) (Learner, error) {
	if m.C < 0 || math.IsNaN(m.C) {
		return nil, fmt.Errorf("learn: MIRA needs C >= 0, have %v", m.C)
	}
	l := &additive{clip: m.C}
	l.Grow(init)
	return l, nil
}

// additive is the state of MIRA: w and, for averaging, U = Σ_k (k−1)·d_k
// (d_k the change at step k), since Σ_{t=1..T} w_{t+1} = T·w_{T+1} − U.
type additive struct {
	clip  float64
	w, U  []float64
	steps int
}

func (s *additive) Len() int { return len(s.w) }

func (s *additive) Grow(init []float64) {
	for i := len(s.w); i < len(init); i++ {
		s.w = append(s.w, init[i])
		s.U = append(s.U, 0)
	}
}

func (s *additive) Steps() int { return s.steps }

func (s *additive) Weight(i int) float64 { return s.w[i] }

func (s *additive) Step(diff Sparse, rho float64) float64 {
	var dot float64
	for k, i := range diff.Idx {
		dot += s.w[i] * diff.Val[k]
	}
	l := math.Max(0, rho-dot)
	norm2 := diff.Norm2()
	if l > 0 && norm2 > 0 {
		tau := l / norm2
		if s.clip > 0 {
			tau = math.Min(s.clip, tau)
		}
		past := float64(s.steps) // k−1 for step k = steps+1
		for k, i := range diff.Idx {
			d := tau * diff.Val[k]
			s.w[i] += d
			s.U[i] += past * d
		}
	}
	s.steps++
	return l
}

func (s *additive) Final(dst []float64, avg bool) {
	T := float64(s.steps)
	for i, w := range s.w {
		if avg && s.steps > 0 {
			dst[i] = (T*w - s.U[i]) / T
		} else {
			dst[i] = w
		}
	}
}
