package infer_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/infer/lp"
	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/internal/cputime"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// The dense cases: models on which the default (exact)
// engine once lost to its own fallbacks.
//
//   - dense-w1: person = {1,...,58}, W(person), -1 W(y), 0.6 W(x) v !W(z);
//   - dense-w2: the same with W(person,person) over 30 people;
//   - class: a paper-classification model shaped like Tuffy's "class"
//     sample (classCase; testdata/class-small.* is a small instance);
//   - cse: Tuffy's UW-CSE program with ai.db, query advisedBy (Tuffy's
//     "cse"; needs the shared data folder).

var (
	update   = flag.Bool("update", false, "rewrite testdata/class-small.{mln,db}")
	classDir = flag.String("classdir", "", "write the class case (class.mln, class.db) into this folder, for the command line")
)

// classCase returns a model and evidence shaped like Tuffy's "class"
// sample: papers in ten categories, each written by two of papers/3
// authors and citing four papers mostly of its own category; the category
// of 30% of the papers is evidence. Papers have at most one category, a
// paper's category spreads over its citations and to its authors' other
// papers, and categories are a priori unlikely.
func classCase(papers int, seed int64) (model, evidence string) {
	const cats = 10
	r := rand.New(rand.NewSource(seed))
	var m strings.Builder
	m.WriteString("category = {")
	for c := 0; c < cats; c++ {
		if c > 0 {
			m.WriteString(",")
		}
		fmt.Fprintf(&m, "C%d", c)
	}
	m.WriteString("}\nwrote(author, paper)\nrefers(paper, paper)\ncat(paper, category)\n")
	m.WriteString("5 !cat(p, c1) v !cat(p, c2) v c1 = c2\n")
	m.WriteString("0.5 !wrote(a, p1) v !wrote(a, p2) v !cat(p1, c) v cat(p2, c)\n")
	m.WriteString("1.2 !refers(p1, p2) v !cat(p1, c) v cat(p2, c)\n")
	m.WriteString("-0.3 cat(p, c)\n")
	var e strings.Builder
	topic := make([]int, papers)
	for p := range topic {
		topic[p] = r.Intn(cats)
	}
	authors := max(papers/3, 1)
	for p := 0; p < papers; p++ {
		a := r.Intn(authors)
		fmt.Fprintf(&e, "wrote(A%d, P%d)\nwrote(A%d, P%d)\n", a, p, (a+1+r.Intn(3))%authors, p)
		for k := 0; k < 4; k++ {
			q := r.Intn(papers)
			for tries := 0; tries < 5 && topic[q] != topic[p] && r.Float64() < 0.8; tries++ {
				q = r.Intn(papers)
			}
			if q != p {
				fmt.Fprintf(&e, "refers(P%d, P%d)\n", p, q)
			}
		}
		if r.Float64() < 0.3 {
			fmt.Fprintf(&e, "cat(P%d, C%d)\n", p, topic[p])
		}
	}
	return m.String(), e.String()
}

// groundText grounds a model and evidence given as text with the query
// predicates named.
func groundText(tb testing.TB, model, evidence string, query ...string) *ground.Network {
	tb.Helper()
	m, err := mln.ParseModel("model.mln", model)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "evidence.db", evidence)
	if err != nil {
		tb.Fatal(err)
	}
	return groundModel(tb, m, db, query...)
}

func groundModel(tb testing.TB, m *mln.Model, db *mln.Database, query ...string) *ground.Network {
	tb.Helper()
	if err := m.Compile(); err != nil {
		tb.Fatal(err)
	}
	var q []mln.PredID
	for _, name := range query {
		p, ok := m.Pred(name)
		if !ok {
			tb.Fatalf("no predicate %s", name)
		}
		q = append(q, p.ID)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
	if err != nil {
		tb.Fatal(err)
	}
	return net
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// denseCase is one case of the benchmark.
type denseCase struct {
	name string
	net  func(tb testing.TB) *ground.Network
}

func denseCases(short bool) []denseCase {
	file := func(name string) func(tb testing.TB) *ground.Network {
		return func(tb testing.TB) *ground.Network {
			return groundText(tb, readFile(tb, filepath.Join("testdata", name)), "", "W")
		}
	}
	cs := []denseCase{
		{"dense-w1", file("dense-w1.mln")},
		{"dense-w2", file("dense-w2.mln")},
		{"class-small", func(tb testing.TB) *ground.Network {
			return groundText(tb, readFile(tb, "testdata/class-small.mln"), readFile(tb, "testdata/class-small.db"), "cat")
		}},
	}
	if short {
		return cs
	}
	return append(cs,
		denseCase{"class", func(tb testing.TB) *ground.Network {
			m, e := classCase(1380, 1)
			return groundText(tb, m, e, "cat")
		}},
		denseCase{"cse", func(tb testing.TB) *ground.Network {
			dir := datadir.Require(tb, "uw-cse")
			m, err := mln.LoadModel(filepath.Join(dir, "tuffy-weighted-prog.mln"))
			if err != nil {
				tb.Fatal(err)
			}
			db, err := mln.LoadDatabase(m, filepath.Join(dir, "ai.db"))
			if err != nil {
				tb.Fatal(err)
			}
			return groundModel(tb, m, db, "advisedBy")
		}},
	)
}

// engines are the MAP engines compared, with the CLI's settings.
var engines = []struct {
	name  string
	solve func(ctx context.Context, net *ground.Network) (*infer.Result, error)
}{
	{"default", func(ctx context.Context, net *ground.Network) (*infer.Result, error) {
		return exact.Solve(ctx, net, exact.Options{TimeLimit: time.Minute})
	}},
	{"lp", func(ctx context.Context, net *ground.Network) (*infer.Result, error) {
		r, _, err := lp.Solve(ctx, net, lp.Options{TimeLimit: time.Minute})
		return r, err
	}},
	{"mws", func(ctx context.Context, net *ground.Network) (*infer.Result, error) {
		return mws.Solve(ctx, net, mws.Options{MaxSteps: 1000000, Tries: 1})
	}},
}

// peakHeap runs fn and returns the peak of the live heap above what was
// live before, sampled every millisecond, and the CPU time of the process
// while fn ran (not counting the collection before it).
func peakHeap(fn func()) (uint64, time.Duration) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	cpu0 := cputime.Now()
	fn()
	cpu := time.Duration(cputime.Now() - cpu0)
	close(stop)
	<-done
	if v := read(); v > peak.Load() {
		peak.Store(v)
	}
	if p := peak.Load(); p > base {
		return p - base, cpu
	}
	return 0, cpu
}

// BenchmarkDenseMAP runs the default engine, -solver lp and -solver mws
// on each dense case in the same run, reporting the cost, whether it was
// proved optimal and the peak live heap (MB) besides the time.
//
//	go test ./infer -run '^$' -bench DenseMAP -benchtime 1x
func BenchmarkDenseMAP(b *testing.B) {
	for _, c := range denseCases(false) {
		b.Run(c.name, func(b *testing.B) {
			net := c.net(b)
			for _, e := range engines {
				b.Run(e.name, func(b *testing.B) {
					var res *infer.Result
					var peak uint64
					var cpu time.Duration
					for i := 0; i < b.N; i++ {
						var err error
						p, c := peakHeap(func() { res, err = e.solve(context.Background(), net) })
						peak, cpu = max(peak, p), cpu+c
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
					opt := 0.0
					if res.Optimal {
						opt = 1
					}
					b.ReportMetric(res.Cost, "cost")
					b.ReportMetric(opt, "proved")
					b.ReportMetric(float64(peak)/(1<<20), "peakMB")
				})
			}
		})
	}
}

// TestDenseDefaultNotWorse checks, on the small dense cases, that the
// default engine's cost is at most the LP's and MaxWalkSAT's and that it
// is proved optimal whenever either of them is.
func TestDenseDefaultNotWorse(t *testing.T) {
	for _, c := range denseCases(true) {
		net := c.net(t)
		var res [3]*infer.Result
		for i, e := range engines {
			r, err := e.solve(context.Background(), net)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, e.name, err)
			}
			res[i] = r
		}
		d := res[0]
		for i, r := range res[1:] {
			if d.Cost > r.Cost+1e-9*math.Max(1, math.Abs(r.Cost)) {
				t.Errorf("%s: default cost %v above %s's %v", c.name, d.Cost, engines[i+1].name, r.Cost)
			}
			if r.Optimal && !d.Optimal {
				t.Errorf("%s: %s proves optimality, the default does not", c.name, engines[i+1].name)
			}
		}
	}
}

// TestWriteClassSmall rewrites testdata/class-small.* with -update.
func TestWriteClassSmall(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/class-small.*")
	}
	m, e := classCase(120, 1)
	if err := os.WriteFile("testdata/class-small.mln", []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/class-small.db", []byte(e), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteClass writes the class case for the command line with
// -classdir DIR: marple infer -i DIR/class.mln -e DIR/class.db -q cat.
func TestWriteClass(t *testing.T) {
	if *classDir == "" {
		t.Skip("run with -classdir DIR to write DIR/class.{mln,db}")
	}
	m, e := classCase(1380, 1)
	if err := os.WriteFile(filepath.Join(*classDir, "class.mln"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*classDir, "class.db"), []byte(e), 0o644); err != nil {
		t.Fatal(err)
	}
}
