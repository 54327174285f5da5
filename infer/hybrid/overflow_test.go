package hybrid

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// problemFiles grounds testdata/model against testdata/evidence (none
// when "").
func problemFiles(t *testing.T, model, evidence string, query ...string) (*Problem, error) {
	t.Helper()
	m, err := mln.LoadModel("testdata/" + model)
	if err != nil {
		t.Fatal(err)
	}
	db := mln.NewDatabase(m)
	if evidence != "" {
		if db, err = mln.LoadDatabase(m, "testdata/"+evidence); err != nil {
			t.Fatal(err)
		}
	}
	q, err := m.PredIDs(strings.Join(query, ","))
	if err != nil {
		t.Fatal(err)
	}
	return Ground(context.Background(), m, db, Options{Query: q})
}

// Two weights of 1e308 on Gaussians about 2 and 3: their sum overflows
// float64, and the engines compare log-weights in units of the largest
// weight, so the MAP is 2.5 with log-weight -5e307, and the sampler's mean
// is 2.5.
func TestHugeWeights(t *testing.T) {
	p, err := problemFiles(t, "huge-weights.mln", "")
	if err != nil {
		t.Fatal(err)
	}
	s, w, err := p.MAP(context.Background(), MAPOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Reals[0]; math.Abs(r-2.5) > 1e-9 {
		t.Errorf("MAP R = %v, want 2.5", r)
	}
	if math.Abs(w/-5e307-1) > 1e-9 {
		t.Errorf("MAP log-weight %v, want -5e307", w)
	}
	res, err := p.Sample(context.Background(), SampleOptions{Seed: 1, Samples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Mean[0]-2.5) > 1e-9 || !finite(res.Variance[0]) {
		t.Errorf("sample mean %v, variance %v; want 2.5 and about 0", res.Mean[0], res.Variance[0])
	}
}

// A MAP log-weight beyond float64's range (-5e309) is reported as -Inf
// by MAP and written as the number by FormatLogWeight; the state is right
// (R = 5).
func TestLogWeightBeyondFloat(t *testing.T) {
	p, err := problemFiles(t, "huge-logweight.mln", "")
	if err != nil {
		t.Fatal(err)
	}
	s, w, err := p.MAP(context.Background(), MAPOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Reals[0]; math.Abs(r-5) > 1e-9 {
		t.Errorf("MAP R = %v, want 5", r)
	}
	if !math.IsInf(w, -1) {
		t.Errorf("MAP log-weight %v, want -Inf", w)
	}
	if got := p.FormatLogWeight(s); got != "-5e+309" {
		t.Errorf("FormatLogWeight = %q, want -5e+309", got)
	}
}

// Degree-16 terms at weights 1e200 and 1e300: the term values and their
// weighted sums overflow float64 away from the maximum (Inf − Inf at
// R = 1e21), and the engines evaluate them in an extended range. With C
// false the maximum is at 16 (R - 1)^15 = 15 R^14; C true scores far
// lower, so MC-SAT keeps C false and R there.
func TestHighPowerOverflow(t *testing.T) {
	p, err := problemFiles(t, "high-power.mln", "", "C")
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1e21}
	if v := p.logWeight([]bool{false}, x); !math.IsInf(v, -1) {
		t.Errorf("log-weight at R = 1e21: %v, want -Inf", v)
	}
	if v := p.logWeight([]bool{true}, x); !math.IsInf(v, -1) {
		t.Errorf("log-weight at R = 1e21 with C: %v, want -Inf", v)
	}
	if d := p.flipDelta(0, []bool{false}, []float64{7.6549}); !(d < 0) {
		t.Errorf("flipping C at R = 7.65 changes the log-weight by %v, want < 0", d)
	}
	s, _, err := p.MAP(context.Background(), MAPOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Reals[0]
	if s.Bools[0] || math.Abs(16*math.Pow(r-1, 15)/(15*math.Pow(r, 14))-1) > 1e-6 {
		t.Errorf("MAP C = %v, R = %v; want false and 7.6549", s.Bools[0], r)
	}
	res, err := p.Sample(context.Background(), SampleOptions{Seed: 1, Samples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.True[0] != 0 || math.Abs(res.Mean[0]-r) > 1e-6 {
		t.Errorf("P(C) = %v, mean R = %v; want 0 and %v", res.True[0], res.Mean[0], r)
	}
}

// A ground term whose constants overflow float64 with the evidence
// ((Y^2 - R)^2 at Y = 1e300) is refused at the formula's position.
func TestOverflowingEvidenceRefused(t *testing.T) {
	_, err := problemFiles(t, "overflow-evidence.mln", "overflow-evidence.db")
	if err == nil || !strings.Contains(err.Error(), "overflow-evidence.mln:5:1: the numeric term overflows float64") || !strings.Contains(err.Error(), "Y(O) = 1e+300") {
		t.Fatalf("error %v", err)
	}
}

// The extended-range arithmetic: sums and products beyond float64's range
// keep their sign and magnitude.
func TestXF(t *testing.T) {
	a := xfOf(1e300).mul(xfOf(1e300)) // 1e600
	if got := a.add(xfOf(-1e300).mul(xfOf(1e299))).neg().float(); !math.IsInf(got, -1) {
		t.Errorf("-(1e600 - 1e599) = %v", got)
	}
	if got := a.mul(xfOf(1e-300)).mul(xfOf(1e-299)).float(); math.Abs(got/10-1) > 1e-12 {
		t.Errorf("1e600 * 1e-599 = %v", got)
	}
	if got := xfOf(3).pow(16).float(); got != math.Pow(3, 16) {
		t.Errorf("3^16 = %v", got)
	}
	if got := xfOf(2.5).add(xfOf(-2.5)).float(); got != 0 {
		t.Errorf("2.5 - 2.5 = %v", got)
	}
}

// A continuous variable that no formula with a non-zero weight constrains
// has a flat density: MAP and MC-SAT refuse the model, naming the atom and
// the formula, in the model (weight 0) and in a Boolean state (the only
// formula over R(A) false); a weight-0 formula beside a constraining one
// is fine.
func TestImproperDensity(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ model, want, query string }{
		{"improper-zero.mln", "the density of R(A) is improper (flat, it cannot be normalised): no formula with a non-zero weight constrains it (weight 0 at testdata/improper-zero.mln:5:1)", ""},
		{"improper-cond.mln", "the density of R(A) is improper (flat, it cannot be normalised) in a state where the formulas at testdata/improper-cond.mln:6:1 are false", "C"},
	} {
		p, err := problemFiles(t, tc.model, "", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.MAP(ctx, MAPOptions{Seed: 1}); !errors.Is(err, ErrImproper) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: MAP: %v", tc.model, err)
		}
		if _, err := p.Sample(ctx, SampleOptions{Seed: 1, Samples: 100}); !errors.Is(err, ErrImproper) || !strings.Contains(err.Error(), "the density of R(A) is improper") {
			t.Errorf("%s: Sample: %v", tc.model, err)
		}
	}
	p, err := problemFiles(t, "proper-zero.mln", "")
	if err != nil {
		t.Fatal(err)
	}
	if s, _, err := p.MAP(ctx, MAPOptions{Seed: 1}); err != nil || math.Abs(s.Reals[0]-3) > 1e-6 {
		t.Errorf("proper-zero: MAP %v, %v", s.Reals, err)
	}
	if _, err := p.Sample(ctx, SampleOptions{Seed: 1, Samples: 100}); err != nil {
		t.Errorf("proper-zero: Sample: %v", err)
	}
}

// A start where the log-weight is beyond float64's range: the coarse
// coordinate search moves R to the term's number, and L-BFGS finishes
// there (MAP 1e200, log-weight 0).
func TestFarMean(t *testing.T) {
	p, err := problemFiles(t, "far-mean.mln", "")
	if err != nil {
		t.Fatal(err)
	}
	s, w, err := p.MAP(context.Background(), MAPOptions{Seed: 1})
	if err != nil || s.Reals[0] != 1e200 || w != 0 {
		t.Fatalf("MAP R = %v, log-weight %v, %v", s.Reals, w, err)
	}
}
