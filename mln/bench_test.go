package mln_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/marple-mln/marple/examples"
	"github.com/marple-mln/marple/internal/cputime"
	"github.com/marple-mln/marple/internal/testkit/replicate"
	"github.com/marple-mln/marple/mln"
)

// BenchmarkReadCiteSeer16x reads the evidence of CiteSeer 16x (1.3M
// atoms, 35 MB; see replicate.CiteSeer) into a fresh ISM model: serially
// (Workers 1) and in parallel parts on GOMAXPROCS goroutines, in the same
// run. Skipped without the data folder.
func BenchmarkReadCiteSeer16x(b *testing.B) {
	src := replicate.CiteSeer(b, 16)
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			var cpu int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m, err := mln.ParseModel("ism.mln", examples.CiteSeerISM())
				if err != nil {
					b.Fatal(err)
				}
				db := mln.NewDatabase(m)
				db.Workers = workers
				b.StartTimer()
				cpu0 := cputime.Now()
				if err := db.ReadFrom("citeseer16.db", src); err != nil {
					b.Fatal(err)
				}
				cpu += int64(cputime.Now() - cpu0)
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
