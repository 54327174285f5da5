package decision_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/bp"
	"github.com/marple-mln/marple/infer/decision"
	"github.com/marple-mln/marple/mln"
)

// FuzzDecision checks that decision inference on any model with utilities
// that compiles, with its first predicate as the action, never panics, and
// that the utility Solve reports is that of the actions it returns (when
// belief propagation converged).
func FuzzDecision(f *testing.F) {
	f.Add([]byte("P(t)\nQ(t)\n1 P(x) => Q(x)\n:2 Q(x)\n:-1 P(x)\n"), []byte("Q(A)\n!P(B)\n"))
	f.Add([]byte("P(t)\nQ(t,t)\n-1:3 EXIST y (P(x) ^ Q(x,y)) <=> P(x)\n:1 !Q(x,+y) v x = y\n"), []byte("Q(A,B)\n?P(A)\n"))
	f.Add([]byte("t = {1,...,3}\nA(t)\nB(t)\n1 A(x) => B(x+1)\n:2 B(x) ^ x > 1\n:-1 *A(x)\nA(1) ^ A(2) => !A(3).\n"), []byte(""))
	f.Add([]byte("person motherOf(person)\nA(person)\nS(person)\n1 S(motherOf(x)) => S(x)\n:2 S(x)\n:-1 A(x) v S(x)\n"), []byte("Mary = motherOf(Anna)\n"))
	f.Fuzz(func(t *testing.T, model, evidence []byte) {
		if len(model)+len(evidence) > 4<<10 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m, err := mln.ParseModel("fuzz.mln", string(model))
		if err != nil || !m.HasUtilities() || len(m.Preds) == 0 {
			return
		}
		db, err := mln.ParseDatabase(m, "fuzz.db", string(evidence))
		if err != nil {
			return
		}
		defer func(c int) { mln.MaxCNFClauses = c }(mln.MaxCNFClauses)
		mln.MaxCNFClauses = 2000
		if err := m.CompileContext(ctx); err != nil {
			return
		}
		for _, ty := range m.Types {
			if ty.Size() > 4 {
				return
			}
		}
		p, err := decision.NewProblem(ctx, m, db, []mln.PredID{0}, decision.Options{Ground: ground.Options{Workers: 1, MaxBytes: 16 << 20}})
		if err != nil || len(p.Actions) > 6 || p.Net.NumAtoms() > 200 {
			return
		}
		eng := bp.Engine{Options: bp.Options{MaxIterations: 50, Workers: 1}}
		res, err := p.Solve(ctx, decision.SolveOptions{Engine: eng, Seed: 1, ExactAtoms: -1, ExactWidth: -1})
		if err != nil {
			return
		}
		if math.IsNaN(res.Utility) || len(res.Actions) != len(p.Actions) {
			t.Fatalf("utility %v, %d actions for %d action atoms", res.Utility, len(res.Actions), len(p.Actions))
		}
		// The default, exact expected utilities where the parts allow:
		// those of the enumeration engine on the whole network.
		if ex, err := p.Solve(ctx, decision.SolveOptions{Engine: eng, Seed: 1}); err == nil && p.Net.NumAtoms() <= 20 {
			u, err := p.ExpectedUtility(ctx, exactEngine{}, ex.Actions, 1)
			exact := !slices.Contains(ex.Methods, "belief propagation")
			if err == nil && exact && !(math.Abs(u-ex.Utility) <= 1e-6*math.Max(1, math.Abs(u))) {
				t.Fatalf("Solve (%q) reports %v, the actions' exact expected utility is %v", ex.Methods, ex.Utility, u)
			}
		}
		// BP's fixed point may depend on where it starts: compare the
		// frontier's utility with BP from scratch only when both converged.
		converged := true
		eng.Stats = func(st *bp.Stats) { converged = st.Converged }
		u, err := p.ExpectedUtility(ctx, eng, res.Actions, 1)
		if err != nil || !converged || res.Unconverged > 0 {
			return
		}
		if !(math.Abs(u-res.Utility) <= 1e-3*math.Max(1, math.Abs(u))) && !(math.IsInf(u, -1) && math.IsInf(res.Utility, -1)) {
			t.Fatalf("Solve reports %v, the actions' expected utility is %v", res.Utility, u)
		}
	})
}
