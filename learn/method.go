package learn

import "fmt"

// Inference selects the label an update compares the truth with.
type Inference int

// The labels of Huynh & Mooney (SDM 2011, §3).
const (
	// DefaultInference is the method's own default (see each Method).
	DefaultInference Inference = iota
	// Prediction uses the MAP prediction ŷ = argmax ⟨w_t, n(x,y)⟩: the
	// prediction-based loss l_PL.
	Prediction
	// MaxLoss uses the loss-augmented label ŷ = argmax ⟨w_t, n(x,y)⟩ +
	// ρ(y_t,y): the maximal loss l_ML. Needs a decomposable loss (Hamming).
	MaxLoss
)

// String returns "PL", "ML" or "default".
func (i Inference) String() string {
	switch i {
	case Prediction:
		return "PL"
	case MaxLoss:
		return "ML"
	case DefaultInference:
		return "default"
	}
	return fmt.Sprintf("Inference(%d)", int(i))
}

// resolve returns i, or def when i is DefaultInference.
func (i Inference) resolve(def Inference) Inference {
	if i == DefaultInference {
		return def
	}
	return i
}

// Method is an online update rule: it says which label it learns from and
// creates the Learner that holds its state.
type Method interface {
	// Name returns a short name such as "CDA-ML".
	Name() string
	// Label returns the label the updates use (Prediction or MaxLoss,
	// never DefaultInference).
	Label() Inference
	// NewLearner validates the method's parameters and returns a learner
	// over len(init) parameters starting from the weights init (the slice
	// is not retained).
	NewLearner(init []float64) (Learner, error)
}

// Continuer is a Method whose learner can continue a run: start as if it
// had already made steps updates, the last of which left the weights w.
// The rules whose steps shrink as 1/t (CDA, Subgradient) need it to go on
// with the right step sizes (iterative parameter mixing starts every epoch
// from the mixed weights this way); the others start from w as their
// initial weights. The learner's average (Learner.Final with avg) covers
// its own updates only.
type Continuer interface {
	Method
	NewLearnerAt(w []float64, steps int) (Learner, error)
}

// Learner is the state of an online update rule over a parameter vector
// that may grow. After s calls of Step it holds w_{s+1}.
type Learner interface {
	// Len returns the number of parameters.
	Len() int
	// Grow extends the parameters to len(init); parameter i >= Len()
	// starts at init[i].
	Grow(init []float64)
	// Weight returns the current weight w_{s+1} of parameter i.
	Weight(i int) float64
	// Steps returns the number of updates done.
	Steps() int
	// Step performs update t = Steps()+1 from the feature difference
	// Δφ = n(x_t,y_t) − n(x_t,ŷ) and the label loss ρ(y_t,ŷ), and returns
	// the hinge loss the rule computed (l_t).
	Step(diff Sparse, rho float64) float64
	// Final writes into dst (len Len()) the current weights or, with avg,
	// the mean of the weights after each update, (1/T)·Σ_{t=1..T} w_{t+1}
	// (the current weights when T = 0).
	Final(dst []float64, avg bool)
}
