package learn

import (
	"fmt"
	"strings"
)

// methods lists the online update rules by name, as marple learn's
// -method and the pipelines name them, each with its defaults. The labels
// are the papers' defaults: prediction-based for CDA-PL, MIRA and
// AdaGrad-FB; maximal loss for CDA-ML and subgradient.
var methods = []struct {
	name string
	new  func() Method
}{
	{"cda-pl", func() Method { return &CDA{Sigma: DefaultSigma, Inference: Prediction} }},
	{"cda-ml", func() Method { return &CDA{Sigma: DefaultSigma, Inference: MaxLoss} }},
	{"mira", func() Method { return &MIRA{Inference: Prediction} }},
	{"subgradient", func() Method { return &Subgradient{Sigma: DefaultSigma, Inference: MaxLoss} }},
	{"adagrad", func() Method {
		m := DefaultAdaGradFB()
		m.Inference = Prediction
		return m
	}},
}

// DefaultSigma is the σ of CDA and Subgradient when none is chosen.
const DefaultSigma = 1

// ParseMethod returns the online update rule called name with its default
// parameters: cda-pl or cda-ml (*CDA, σ = DefaultSigma; cda is cda-ml),
// mira (*MIRA, unclipped), subgradient (*Subgradient, σ = DefaultSigma) or
// adagrad (*AdaGradFB, DefaultAdaGradFB's parameters). The value is new
// on every call: set its fields to change the parameters.
func ParseMethod(name string) (Method, error) {
	if name == "cda" {
		name = "cda-ml"
	}
	for _, m := range methods {
		if m.name == name {
			return m.new(), nil
		}
	}
	return nil, fmt.Errorf("unknown online method %q: the methods are %s", name, strings.Join(MethodNames(), ", "))
}

// MethodNames returns the names ParseMethod knows (without the alias cda).
func MethodNames() []string {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.name
	}
	return names
}
