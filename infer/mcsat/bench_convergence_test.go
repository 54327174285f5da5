package mcsat

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/cputime"
	"github.com/marple-mln/marple/internal/testkit/datadir"
)

// BenchmarkConvergenceUWCSE measures how far two runs with different
// seeds disagree on UW-CSE's advisedBy marginals (theory area, advisedBy
// removed from the evidence), with one plain MC-SAT chain and with Run's
// defaults (several chains and block moves) at similar CPU time, and
// reports the largest and mean absolute differences and the largest
// R-hat. Both take 300,000 samples in all: the default's are shared by
// its chains (one per core). The model is UW-CSE's uw.mln with weights learned by marple
// learn -g on the other four areas, read from $MARPLE_UWCSE_LEARNED (see
// results/mcsat-convergence.md); the benchmark skips without it or the
// data.
func BenchmarkConvergenceUWCSE(b *testing.B) {
	dir := datadir.Require(b, "uw-cse")
	model := os.Getenv("MARPLE_UWCSE_LEARNED")
	if model == "" {
		b.Skip("set MARPLE_UWCSE_LEARNED to uw.mln with weights learned by marple learn -g on ai, graphics, language, systems")
	}
	ev := filepath.Join(b.TempDir(), "theory.db")
	dropPredicate(b, filepath.Join(dir, "theory.db"), ev, "advisedBy")
	net, _ := groundData(b, model, "advisedBy", ev)
	b.Logf("atoms %d clauses %d", net.NumAtoms(), net.NumClauses())
	for _, c := range []struct {
		name    string
		opt     Options
		workers int
	}{
		{"plain-1-chain", Options{Samples: 300000, Chains: 1, BlockWeight: -1}, 1},
		{"default", Options{Samples: 300000 / DefaultChains()}, 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var probs [2][]float64
				maxRhat, cpu := 0.0, 0.0
				for s := range probs {
					opt := c.opt
					opt.Options = infer.Options{Seed: int64(s + 1)}
					t0 := cputime.Now()
					p, d, err := Run(context.Background(), net, c.workers, opt, MethodMCSAT)
					if err != nil {
						b.Fatal(err)
					}
					cpu += float64(cputime.Now()-t0) / 1e9
					probs[s] = p
					maxRhat = math.Max(maxRhat, d.MaxRhat)
				}
				maxD, mad, over := 0.0, 0.0, 0
				for a := range probs[0] {
					d := math.Abs(probs[0][a] - probs[1][a])
					maxD = math.Max(maxD, d)
					mad += d
					if d > 0.1 {
						over++
					}
				}
				mad /= float64(len(probs[0]))
				b.ReportMetric(maxD, "max|Δ|")
				b.ReportMetric(mad, "MAD")
				b.ReportMetric(float64(over), "atoms>0.1")
				b.ReportMetric(maxRhat, "maxRhat")
				b.ReportMetric(cpu/2, "CPUs/run")
			}
		})
	}
}

// dropPredicate copies the database file in to out without the lines of
// predicate pred.
func dropPredicate(tb testing.TB, in, out, pred string) {
	tb.Helper()
	f, err := os.Open(in)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var sb strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t!")
		if strings.HasPrefix(line, pred+"(") {
			continue
		}
		sb.WriteString(sc.Text())
		sb.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(out, []byte(sb.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}
