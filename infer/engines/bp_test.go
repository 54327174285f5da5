package engines

import (
	"strings"
	"testing"

	"github.com/marple-mln/marple/infer/bp"
)

// TestBPSettings: the registry's BP merges clauses, damps after
// DefaultBPDampAfter iterations and checks with DefaultBPCheck samples;
// the settings fix the damping or turn the damping or the check off;
// lifted BP is never damped; the report says what happened.
func TestBPSettings(t *testing.T) {
	for _, c := range []struct {
		s            Settings
		damping      float64
		after, check int
	}{
		{Settings{}, 0, DefaultBPDampAfter, DefaultBPCheck},
		{Settings{BPDamping: 0.3, BPCheck: 200}, 0.3, 0, 200},
		{Settings{BPDamping: -1, BPCheck: -1}, 0, 0, 0},
	} {
		e, err := NewMarginal("bp", c.s)
		if err != nil {
			t.Fatal(err)
		}
		o := Unwrap(e).(bp.Engine).Options
		if !o.Merge || o.Damping != c.damping || o.DampAfter != c.after || o.Check != c.check {
			t.Errorf("%+v: options %+v", c.s, o)
		}
		l, err := NewMarginal("lifted-bp", c.s)
		if err != nil {
			t.Fatal(err)
		}
		if lo := Unwrap(l).(bp.LiftedEngine).Options; lo.Damping != 0 || lo.DampAfter != c.after || lo.Check != c.check || !lo.Merge { // DampAfter serves the fall-back to ground BP
			t.Errorf("%+v: lifted options %+v", c.s, lo)
		}
	}
	if _, err := NewMarginal("bp", Settings{BPDamping: 1}); err == nil {
		t.Error("damping 1 accepted")
	}
	for _, c := range []struct {
		st   bp.Stats
		want []string
	}{
		{bp.Stats{Iterations: 86, Converged: true, Damping: 0.5, Checked: true, CheckDiff: 0.01}, []string{"86 iterations (damping 0.5), converged, confirmed by MC-SAT"}},
		{bp.Stats{Iterations: 1000, MaxChange: 1, Checked: true, Unreliable: []int32{3, 4}, CheckDiff: 0.2}, []string{"NOT CONVERGED (largest change 1 > tolerance 0.0001)", "UNRELIABLE: 2 atoms"}},
		{bp.Stats{Iterations: 5, Converged: true}, []string{"converged, not checked against MC-SAT"}},
	} {
		got := bpReport(&c.st, 1e-4)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("report %q lacks %q", got, w)
			}
		}
	}
}
