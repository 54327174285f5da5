package bp

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/mln"
)

func TestLiftedEqualsGround(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		var net *ground.Network
		if trial%2 == 0 {
			net = randomTree(rng, 2+rng.IntN(11), trial%4 == 0)
		} else {
			net = randomLoopy(rng, 8, 10, 1)
		}
		var bias []float64
		if trial%3 == 0 {
			bias = make([]float64, net.NumAtoms())
			for a := range bias {
				bias[a] = float64(rng.IntN(3)) - 1 // few distinct values: symmetry to find
			}
		}
		opt := Options{Options: infer.Options{Bias: bias}}
		want, wst, err := Marginals(context.Background(), net, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := Lifted(context.Background(), net, opt)
		if err != nil {
			t.Fatal(err)
		}
		if st.Iterations != wst.Iterations || st.Converged != wst.Converged {
			t.Fatalf("trial %d: lifted %d iterations (converged %v), ground %d (%v)", trial, st.Iterations, st.Converged, wst.Iterations, wst.Converged)
		}
		for a := range want {
			if math.Abs(got[a]-want[a]) > 1e-9 {
				t.Fatalf("trial %d: atom %d: lifted %v, ground %v", trial, a, got[a], want[a])
			}
		}
	}
}

// friendsSmokers grounds friends and smokers over n people: Friends
// unknown, Smokes known true for every tenth person and false for every
// tenth person after that, the rest unknown; Cancer unknown.
func friendsSmokers(tb testing.TB, n int) *ground.Network {
	m, db, q := friendsSmokersModel(tb, n, "")
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
	if err != nil {
		tb.Fatal(err)
	}
	return net
}

// friendsSmokersModel is the model and evidence of friendsSmokers, with
// extra evidence lines, and the query predicates.
func friendsSmokersModel(tb testing.TB, n int, extra string) (*mln.Model, *mln.Database, []mln.PredID) {
	model, ev := friendsSmokersText(n, extra)
	m, err := mln.ParseModel("fs.mln", model)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "fs.db", ev)
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		tb.Fatal(err)
	}
	var q []mln.PredID
	for _, name := range []string{"Friends", "Smokes", "Cancer"} {
		p, _ := m.Pred(name)
		q = append(q, p.ID)
	}
	return m, db, q
}

// friendsSmokersText returns the model and the evidence of
// friendsSmokersModel.
func friendsSmokersText(n int, extra string) (string, string) {
	var model strings.Builder
	model.WriteString("person = {")
	for i := 0; i < n; i++ {
		if i > 0 {
			model.WriteString(", ")
		}
		fmt.Fprintf(&model, "P%d", i)
	}
	model.WriteString("}\n")
	model.WriteString("Friends(person, person)\nSmokes(person)\nCancer(person)\n")
	model.WriteString("1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n-1 Friends(x, y)\n")
	var ev strings.Builder
	for i := 0; i < n; i++ {
		switch i % 10 {
		case 0:
			fmt.Fprintf(&ev, "Smokes(P%d)\n", i)
		case 1:
			fmt.Fprintf(&ev, "!Smokes(P%d)\n", i)
		}
	}
	return model.String(), ev.String() + extra
}

func TestLiftedFriendsSmokers(t *testing.T) {
	net := friendsSmokers(t, 40)
	want, _, err := Marginals(context.Background(), net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := Lifted(context.Background(), net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d atoms, %d clauses: %d atom clusters, %d clause clusters, %d rounds, %d iterations", net.NumAtoms(), net.NumClauses(), st.AtomClusters, st.FactorClusters, st.Rounds, st.Iterations)
	if st.AtomClusters > 20 {
		t.Errorf("%d atom clusters; want a handful", st.AtomClusters)
	}
	for a := range want {
		if math.Abs(got[a]-want[a]) > 1e-6 {
			t.Fatalf("atom %d: lifted %v, ground %v", a, got[a], want[a])
		}
	}
}

var (
	people = flag.Int("people", 2000, "people in the friends-and-smokers benchmarks")
	fsDir  = flag.String("fsdir", "", "write the friends-and-smokers benchmarks' model and evidence there (fs<people>.mln, fs<people>.db, fsr<people>.db)")
)

// cpuMeter measures the process's CPU time (user and system, all
// goroutines; robust to the machine's load, unlike ns/op) while a
// benchmark's timer runs.
type cpuMeter struct {
	b          *testing.B
	t0, total  time.Duration
	collecting bool
}

// reportCPU collects the garbage of what ran before and starts measuring;
// the function it returns reports the CPU time per operation as
// cpu-ms/op.
func reportCPU(b *testing.B) func() {
	m := startCPU(b)
	return m.report
}

func startCPU(b *testing.B) *cpuMeter {
	runtime.GC()
	return &cpuMeter{b: b, t0: cpuNow(), collecting: true}
}

// stop and start bracket untimed work, with b.StopTimer and b.StartTimer.
func (m *cpuMeter) stop() {
	m.b.StopTimer()
	m.total += cpuNow() - m.t0
	m.collecting = false
}

func (m *cpuMeter) start() {
	m.collecting = true
	m.t0 = cpuNow()
	m.b.StartTimer()
}

func (m *cpuMeter) report() {
	if m.collecting {
		m.total += cpuNow() - m.t0
	}
	m.b.ReportMetric(float64(m.total)/1e6/float64(m.b.N), "cpu-ms/op")
}

// writeFS writes a benchmark's files to -fsdir.
func writeFS(b *testing.B, name, text string) {
	if *fsDir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(*fsDir, fmt.Sprintf(name, *people)), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFriendsSmokers compares ground and lifted BP on friends and
// smokers over -people people (default 2,000: 4 million Friends atoms, 8
// million ground clauses):
//
//	go test ./infer/bp -run '^$' -bench FriendsSmokers -benchtime 1x
//
// ground grounds the model and runs BP; ground-bp runs BP on the network
// ground once before; lifted-network lifts that network by colour passing
// and runs BP on the clusters; lifted-model lifts the first-order model
// without grounding (LiftModel). Each reports the largest difference of a
// query atom's marginal from ground BP's.
func BenchmarkFriendsSmokers(b *testing.B) {
	m, db, q := friendsSmokersModel(b, *people, "")
	model, ev := friendsSmokersText(*people, "")
	writeFS(b, "fs%d.mln", model)
	writeFS(b, "fs%d.db", ev)
	ctx := context.Background()
	var net *ground.Network
	var want []float64
	b.Run("ground", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			var err error
			net, err = ground.Ground(ctx, m, db, ground.Options{Query: q})
			if err != nil {
				b.Fatal(err)
			}
			p, st, err := Marginals(ctx, net, Options{})
			if err != nil {
				b.Fatal(err)
			}
			want = p
			b.ReportMetric(float64(st.Iterations), "iterations")
		}
	})
	if net == nil {
		b.Skip("ground did not run")
	}
	b.Logf("%d atoms, %d clauses", net.NumAtoms(), net.NumClauses())
	diff := func(b *testing.B, prob func(a int) float64) {
		d := 0.0
		for a := range want {
			d = math.Max(d, math.Abs(prob(a)-want[a]))
		}
		b.ReportMetric(d, "max-diff")
	}
	b.Run("ground-bp", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, _, err := Marginals(ctx, net, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lifted-network", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			p, st, err := Lifted(ctx, net, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.AtomClusters), "atom-clusters")
			diff(b, func(a int) float64 { return p[a] })
		}
	})
	b.Run("lifted-model", func(b *testing.B) {
		cpu := startCPU(b)
		defer cpu.report()
		for i := 0; i < b.N; i++ {
			mm, st, err := LiftModel(ctx, m, db, q, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.AtomClusters), "atom-clusters")
			cpu.stop()
			diff(b, func(a int) float64 { return mm.Prob(net.AtomPred[a], net.AtomArgs[a]) })
			cpu.start()
		}
	})
}

// BenchmarkFriendsSmokersRandom is friends and smokers over -people
// people with 1 to 5 random friendships each as evidence (Friends closed
// world; Smokes and Cancer queried): evidence that tells most people
// apart, so lifting does not compress.
//
//	go test ./infer/bp -run '^$' -bench FriendsSmokersRandom -benchtime 1x
//
// ground grounds the model and runs BP; ground-bp runs BP on that
// network; lifted-model is LiftModel refusing the model; lifted-network
// is Lifted on the network (colour passing, given up, then ground BP);
// lifted is what marple infer -bp -lifted runs after grounding (both);
// approx-N is LiftedApprox with N rounds. Each reports the largest
// difference of a marginal from ground BP's.
func BenchmarkFriendsSmokersRandom(b *testing.B) {
	m, db, q := friendsSmokersRandom(b, *people, 1)
	_, ev := friendsSmokersText(*people, randomFriendships(*people, 1))
	writeFS(b, "fsr%d.db", ev)
	ctx := context.Background()
	var net *ground.Network
	var want []float64
	b.Run("ground", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			var err error
			net, err = ground.Ground(ctx, m, db, ground.Options{Query: q})
			if err != nil {
				b.Fatal(err)
			}
			p, st, err := Marginals(ctx, net, Options{})
			if err != nil {
				b.Fatal(err)
			}
			want = p
			b.ReportMetric(float64(st.Iterations), "iterations")
		}
	})
	if net == nil {
		b.Skip("ground did not run")
	}
	b.Logf("%d atoms, %d clauses", net.NumAtoms(), net.NumClauses())
	diff := func(b *testing.B, p []float64) {
		d := 0.0
		for a := range want {
			d = math.Max(d, math.Abs(p[a]-want[a]))
		}
		b.ReportMetric(d, "max-diff")
	}
	b.Run("ground-bp", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, _, err := Marginals(ctx, net, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lifted-model", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, _, err := LiftModel(ctx, m, db, q, Options{}); !errors.Is(err, ErrNotLiftable) {
				b.Fatalf("LiftModel: %v, want ErrNotLiftable", err)
			}
		}
	})
	lifted := func(b *testing.B, model bool) {
		for i := 0; i < b.N; i++ {
			if model {
				if _, _, err := LiftModel(ctx, m, db, q, Options{}); !errors.Is(err, ErrNotLiftable) {
					b.Fatalf("LiftModel: %v, want ErrNotLiftable", err)
				}
			}
			p, st, err := Lifted(ctx, net, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.AtomClusters), "atom-clusters")
			b.ReportMetric(float64(st.Rounds), "rounds")
			diff(b, p)
		}
	}
	b.Run("lifted-network", func(b *testing.B) { defer reportCPU(b)(); lifted(b, false) })
	b.Run("lifted", func(b *testing.B) { defer reportCPU(b)(); lifted(b, true) })
	for _, k := range []int{2, 4} {
		b.Run(fmt.Sprintf("approx-%d", k), func(b *testing.B) {
			defer reportCPU(b)()
			for i := 0; i < b.N; i++ {
				p, st, err := LiftedApprox(ctx, net, Options{}, k)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(st.AtomClusters), "atom-clusters")
				diff(b, p)
			}
		})
	}
}
