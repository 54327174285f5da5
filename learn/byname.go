package learn

import "fmt"

// MethodNames are the online update rules NewMethod knows, as marple
// learn's -method names them.
const MethodNames = "cda-pl, cda-ml, mira, subgradient or adagrad"

// NewMethod returns the online update rule called name (cda-pl, cda-ml or
// cda, mira, subgradient, adagrad) with its parameters: σ for CDA and
// subgradient, the step clip C for MIRA (0: unclipped), λ, η, δ for
// AdaGrad-FB. The labels are the papers' defaults (prediction-based for
// CDA-PL, MIRA and AdaGrad-FB; maximal loss for CDA-ML and subgradient).
func NewMethod(name string, sigma, c, lambda, eta, delta float64) (Method, error) {
	switch name {
	case "cda-pl":
		return &CDA{Sigma: sigma, Inference: Prediction}, nil
	case "cda-ml", "cda":
		return &CDA{Sigma: sigma, Inference: MaxLoss}, nil
	case "mira":
		return &MIRA{C: c, Inference: Prediction}, nil
	case "subgradient":
		return &Subgradient{Sigma: sigma, Inference: MaxLoss}, nil
	case "adagrad":
		return &AdaGradFB{Lambda: lambda, Eta: eta, Delta: delta, Inference: Prediction}, nil
	}
	return nil, fmt.Errorf("unknown online method %q (%s)", name, MethodNames)
}
