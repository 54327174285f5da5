package learn

// CuttingPlanes is the dual QP of the 1-slack structural SVM over a
// working set of cutting planes (a_j, b_j), the one Batch solves, for
// max-margin learners outside this package (package infer/hybrid's):
//
//	min_{w,ξ≥0} ½‖w‖² + C·ξ  s.t. ⟨w, a_j⟩ ≥ b_j − ξ for every plane j,
//
// solved in the dual (see Batch) to about 1e-10 relative accuracy after
// every Add. Its zero value is not usable: make one with NewCuttingPlanes.
type CuttingPlanes struct {
	qp dualQP
}

// NewCuttingPlanes returns an empty working set with trade-off C (> 0).
func NewCuttingPlanes(C float64) *CuttingPlanes {
	return &CuttingPlanes{qp: dualQP{C: C}}
}

// Add adds the plane ⟨w, a⟩ ≥ b − ξ (a's indices distinct) and solves the
// dual again.
func (c *CuttingPlanes) Add(a Sparse, b float64) {
	c.qp.add(a, b)
	c.qp.solve()
}

// Weights sets w (long enough for every index of the planes) to the
// solution Σ_j α_j·a_j.
func (c *CuttingPlanes) Weights(w []float64) {
	clear(w)
	c.qp.weights(w)
}

// Slack returns the solution's slack ξ = max(0, max_j b_j − ⟨w, a_j⟩).
func (c *CuttingPlanes) Slack() float64 {
	if len(c.qp.b) == 0 {
		return 0
	}
	return c.qp.slack()
}

// Objective returns the primal objective ½‖w‖² + C·ξ of the solution.
func (c *CuttingPlanes) Objective() float64 { return c.qp.primal() }

// Len returns the number of planes.
func (c *CuttingPlanes) Len() int { return len(c.qp.b) }
