package main

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestScoreReproducesMWS: marple score gives the cost MaxWalkSAT reports
// for the world it writes, for short walks that end at different costs.
func TestScoreReproducesMWS(t *testing.T) {
	dir := t.TempDir()
	costRe := regexp.MustCompile(`cost ([0-9.e+-]+),`)
	costs := map[string]bool{}
	for seed := 1; seed <= 6; seed++ {
		res := filepath.Join(dir, "w"+strconv.Itoa(seed)+".result")
		code, out, stderr := marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db", "-r", res,
			"-q", "Smokes,Cancer", "-solver", "mws", "-mwsMaxSteps", strconv.Itoa(seed), "-seed", strconv.Itoa(seed))
		if code != 0 {
			t.Fatalf("infer: exit %d: %s", code, stderr)
		}
		m := costRe.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no cost in %q", out)
		}
		want, _ := strconv.ParseFloat(m[1], 64)
		code, out, stderr = marple(t, "score", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db", "-w", res, "-q", "Smokes,Cancer")
		if code != 0 {
			t.Fatalf("score: exit %d: %s", code, stderr)
		}
		line := strings.SplitN(out, "\n", 2)[0]
		got, err := strconv.ParseFloat(strings.TrimPrefix(line, "cost\t"), 64)
		if err != nil {
			t.Fatalf("first line %q", line)
		}
		// infer prints six significant digits; score all of them.
		if math.Abs(got-want) > 1e-5*math.Max(1, want) {
			t.Errorf("seed %d: MaxWalkSAT's cost %v, marple score %v", seed, want, got)
		}
		costs[m[1]] = true
		if !strings.Contains(out, "Friends(x,y) => (Smokes(x) <=> Smokes(y))\t") {
			t.Errorf("no per-formula line:\n%s", out)
		}
	}
	if len(costs) < 2 {
		t.Errorf("the walks all ended at the same cost: %v", costs)
	}
	if code, _, stderr := marple(t, "score", "-i", smokers+"smoking-weighted.mln", "-q", "Smokes"); code != 2 || !strings.Contains(stderr, "-w") {
		t.Errorf("no -w: exit %d: %s", code, stderr)
	}
}
