package ground_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/cputime"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// heapObjects returns the bytes of the heap's objects, live or not yet
// swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// measureGround grounds m against db once per iteration and reports,
// besides the network's size, the wall and CPU time (s, cpu/wall), the heap
// that grounding leaves after a collection (final-MB and B/clause: the
// network with its atoms and the grounder's state), the bytes per clause
// of the clause storage alone (store-B/clause: literals, addresses, sizes,
// parameters), and the high-water mark of the heap's objects while
// grounding (peak-MB, sampled every millisecond; dead objects count until
// swept), all above the heap before grounding.
func measureGround(b *testing.B, m *mln.Model, db *mln.Database, opt ground.Options) {
	b.Helper()
	var clauses, lits int
	var wall, cpu, final, peak, store float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		base := heapObjects()
		var hi uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			for {
				hi = max(hi, heapObjects())
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		b.StartTimer()
		cpu0, t0 := cputime.Now(), time.Now()
		net, err := ground.Ground(context.Background(), m, db, opt)
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0).Seconds()
		cpu += float64(cputime.Now()-cpu0) / 1e9
		b.StopTimer()
		stop <- struct{}{}
		wg.Wait()
		hi = max(hi, heapObjects())
		runtime.GC()
		final += float64(heapObjects()-base) / 1e6
		peak += float64(hi-base) / 1e6
		clauses, lits = net.NumClauses(), net.NumLits()
		store += float64(ground.ClauseBytes(net))
		runtime.KeepAlive(net)
		net = nil
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(clauses), "clauses")
	b.ReportMetric(float64(lits), "lits")
	b.ReportMetric(wall/n, "s")
	b.ReportMetric(cpu/wall, "cpu/wall")
	b.ReportMetric(final/n, "final-MB")
	b.ReportMetric(final/n*1e6/float64(max(clauses, 1)), "B/clause")
	b.ReportMetric(store/n/float64(max(clauses, 1)), "store-B/clause")
	b.ReportMetric(peak/n, "peak-MB")
	b.ReportMetric(peak/max(final, 1e-9), "peak/final")
}

// BenchmarkGroundUWCSE grounds UW-CSE's uw.mln over the constants of
// ai.db with every predicate a query predicate and no evidence (the
// grounding `marple learn -g` made before it counted by joins: 20.8M
// clauses, 94M literals).
func BenchmarkGroundUWCSE(b *testing.B) {
	datadir.Require(b, "uw-cse", "uw.mln")
	dir := filepath.Join(datadir.Root(), "uw-cse")
	src, err := os.ReadFile(filepath.Join(dir, "uw.mln"))
	if err != nil {
		b.Fatal(err)
	}
	m, err := mln.ParseModel("uw.mln", string(src))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := mln.LoadDatabase(m, filepath.Join(dir, "ai.db")); err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		b.Fatal(err)
	}
	var q []mln.PredID
	for p := range m.Preds {
		q = append(q, mln.PredID(p))
	}
	measureGround(b, m, mln.NewDatabase(m), ground.Options{Query: q, MaxBytes: -1})
}

// BenchmarkGroundCiteSeer16 grounds the segmentation model on the four
// CiteSeer topics replicated 16 times (the citations renamed in each copy:
// 15M clauses).
func BenchmarkGroundCiteSeer16(b *testing.B) {
	m, db, q := loadCiteSeer(b, topics...)
	bib, ok := m.Type("bib")
	if !ok {
		b.Fatal("no type bib")
	}
	text := replicate(m, db, bib.ID, 16)
	m2, err := mln.ParseModel("ie_seg.mln", segModel(b, dataDir(b)))
	if err != nil {
		b.Fatal(err)
	}
	db2, err := mln.ParseDatabase(m2, "citeseer16.db", text)
	if err != nil {
		b.Fatal(err)
	}
	if err := m2.Compile(); err != nil {
		b.Fatal(err)
	}
	p, _ := m2.Pred(m.Preds[q[0]].Name)
	measureGround(b, m2, db2, ground.Options{Query: []mln.PredID{p.ID}, MaxBytes: -1})
}

// replicate returns the atoms of db written k times, the constants of type
// t renamed in copy j by the suffix "_rj" (as marple-beam replicate).
func replicate(m *mln.Model, db *mln.Database, t mln.TypeID, k int) string {
	var sb strings.Builder
	for j := 0; j < k; j++ {
		for p, pr := range m.Preds {
			db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
				sb.WriteString(map[mln.Truth]string{mln.False: "!", mln.Unknown: "?"}[v] + pr.Name + "(")
				for i, c := range args {
					if i > 0 {
						sb.WriteByte(',')
					}
					sb.WriteString(m.ConstName(c))
					if pr.Args[i] == t && j > 0 {
						fmt.Fprintf(&sb, "_r%d", j)
					}
				}
				sb.WriteString(")\n")
			})
		}
	}
	return sb.String()
}
