package learn

import (
	"fmt"
	"math"
)

// AdaGradFB is the l1-regularised adaptive subgradient method with
// forward-backward (composite mirror-descent) updates used by Huynh &
// Mooney (ECML 2011, §3.2, equation 1), with the prediction-based loss by
// default, g_t = −Δφ. Every step, for every parameter i:
//
//	G_i += Δφ_i²;  H_i = δ + √G_i
//	w_i  = sign(w_i + η/H_i·Δφ_i)·[|w_i + η/H_i·Δφ_i| − λη/H_i]_+
//
// When the hinge [ρ − ⟨w_t,Δφ⟩]_+ is zero the subgradient is 0 and the step
// only shrinks. Parameters with Δφ_i = 0 are shrunk lazily (exactly: k
// shrink steps with fixed H_i compose to sign(w)·[|w| − kλη/H_i]_+). When
// H_i = 0 (δ = 0 and no gradient yet) the step size is infinite: the weight
// becomes 0 if λ > 0 and is left alone if λ = 0.
type AdaGradFB struct {
	// Lambda is the l1 regularisation λ >= 0 (paper: 0.001).
	Lambda float64
	// Eta is the learning rate η > 0 (paper: 1).
	Eta float64
	// Delta is δ >= 0 (paper: 1).
	Delta float64
	// Inference is Prediction (default) or MaxLoss.
	Inference Inference
}

// DefaultAdaGradFB returns AdaGradFB with the ECML 2011 settings λ = 0.001,
// η = 1, δ = 1.
func DefaultAdaGradFB() *AdaGradFB { return &AdaGradFB{Lambda: 0.001, Eta: 1, Delta: 1} }

// Name returns "AdaGradFB-PL" or "AdaGradFB-ML".
func (m *AdaGradFB) Name() string { return "AdaGradFB-" + m.Label().String() }

// Label returns the label the updates use (Prediction by default).
func (m *AdaGradFB) Label() Inference { return m.Inference.resolve(Prediction) }

// NewLearner returns an AdaGradFB learner.
func (m *AdaGradFB) NewLearner(init []float64) (Learner, error) {
	if !(m.Lambda >= 0) || !(m.Eta > 0) || !(m.Delta >= 0) ||
		math.IsInf(m.Lambda, 1) || math.IsInf(m.Eta, 1) || math.IsInf(m.Delta, 1) {
		return nil, fmt.Errorf("learn: AdaGradFB needs lambda >= 0, eta > 0, delta >= 0, have %v, %v, %v",
			m.Lambda, m.Eta, m.Delta)
	}
	s := &adagrad{lambda: m.Lambda, eta: m.Eta, delta: m.Delta}
	s.Grow(init)
	return s, nil
}

// adagrad is the state of AdaGradFB. Parameter i is up to date through
// step last[i]; sum[i] is Σ w_{t+1,i} over the steps t <= last[i].
type adagrad struct {
	lambda, eta, delta float64
	w, G, sum          []float64
	last               []int
	steps              int
}

func (s *adagrad) Len() int { return len(s.w) }

// Grow adds parameters; one that appears after s steps counts as having
// held its initial value during those steps (for the average) and starts
// with no gradient history.
func (s *adagrad) Grow(init []float64) {
	for i := len(s.w); i < len(init); i++ {
		s.w = append(s.w, init[i])
		s.G = append(s.G, 0)
		s.sum = append(s.sum, float64(s.steps)*init[i])
		s.last = append(s.last, s.steps)
	}
}

func (s *adagrad) Steps() int { return s.steps }

// shrink returns λη/H for H = δ + √G (+Inf when H = 0 and λ > 0).
func (s *adagrad) shrink(G float64) float64 {
	if s.lambda == 0 {
		return 0
	}
	return s.lambda * s.eta / (s.delta + math.Sqrt(G))
}

// catchUp applies to parameter i the pure-shrink steps last[i]+1..steps.
func (s *adagrad) catchUp(i int) {
	k := s.steps - s.last[i]
	if k == 0 {
		return
	}
	s.last[i] = s.steps
	w := s.w[i]
	theta := s.shrink(s.G[i])
	if w == 0 || theta == 0 {
		s.sum[i] += float64(k) * w
		return
	}
	if math.IsInf(theta, 1) {
		s.w[i] = 0 // infinite step: zeroed at the first shrink, sum gains 0
		return
	}
	a := math.Abs(w)
	// Steps j = 1..k leave max(a − jθ, 0); the first m of them are
	// positive, m = min(k, floor(a/θ)) (a term at j = a/θ is 0 anyway).
	m := float64(k)
	if r := math.Floor(a / theta); r < m {
		m = r
	}
	part := m*a - theta*m*(m+1)/2
	rest := math.Max(a-float64(k)*theta, 0)
	if w < 0 {
		part, rest = -part, -rest
	}
	s.sum[i] += part
	s.w[i] = rest
}

func (s *adagrad) Weight(i int) float64 {
	s.catchUp(i)
	return s.w[i]
}

func (s *adagrad) Step(diff Sparse, rho float64) float64 {
	var dot float64
	for k, i := range diff.Idx {
		s.catchUp(int(i))
		dot += s.w[i] * diff.Val[k]
	}
	l := math.Max(0, rho-dot)
	s.steps++
	if l == 0 {
		// Subgradient 0: every parameter only shrinks, which the lazy
		// catch-up does.
		return 0
	}
	for k, i := range diff.Idx {
		g := diff.Val[k] // −g_t
		s.G[i] += g * g
		H := s.delta + math.Sqrt(s.G[i])
		z := s.w[i] + s.eta/H*g
		a := math.Abs(z) - s.lambda*s.eta/H
		switch {
		case a <= 0:
			z = 0
		case z < 0:
			z = -a
		default:
			z = a
		}
		s.w[i] = z
		s.sum[i] += z
		s.last[i] = s.steps
	}
	return l
}

func (s *adagrad) Final(dst []float64, avg bool) {
	for i := range s.w {
		s.catchUp(i)
		if avg && s.steps > 0 {
			dst[i] = s.sum[i] / float64(s.steps)
		} else {
			dst[i] = s.w[i]
		}
	}
}
