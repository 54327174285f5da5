package ground_test

import (
	"context"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/cputime"
	"github.com/marple-mln/marple/mln"
)

// dataDir locates the shared data: $MARPLE_DATA, or ../shared/data next to
// the repository.
func dataDir(b testing.TB) string {
	datadir.Require(b, "citeseer", "models", "ie_base.mln")
	return datadir.Root()
}

// segModel returns the segmentation part of CiteSeer's ie_base.mln: the
// model without its entity-resolution rules (the lines naming SameBib,
// SimilarTitle or SimilarVenue).
func segModel(b testing.TB, dir string) string {
	src, err := os.ReadFile(filepath.Join(dir, "citeseer", "models", "ie_base.mln"))
	if err != nil {
		b.Fatal(err)
	}
	var keep []string
	for _, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, "SameBib") || strings.Contains(line, "SimilarTitle") || strings.Contains(line, "SimilarVenue") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

var topics = []string{"face", "constraint", "reasoning", "reinforcement"}

// loadCiteSeer parses the segmentation model and the evidence of the
// given topics, and compiles the model.
func loadCiteSeer(b testing.TB, topics ...string) (*mln.Model, *mln.Database, []mln.PredID) {
	dir := dataDir(b)
	m, err := mln.ParseModel("ie_seg.mln", segModel(b, dir))
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	for _, t := range topics {
		paths = append(paths, filepath.Join(dir, "citeseer", t+".evidence.db"))
	}
	db, err := mln.LoadDatabase(m, paths...)
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		b.Fatal(err)
	}
	p, ok := m.Pred("InField")
	if !ok {
		b.Fatal("no InField")
	}
	return m, db, []mln.PredID{p.ID}
}

func benchGround(b *testing.B, topics ...string) {
	m, db, q := loadCiteSeer(b, topics...)
	opt := ground.Options{Query: q, Workers: runtime.GOMAXPROCS(0)}
	var net *ground.Network
	cpu0 := cputime.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Parameters allocated by a previous iteration are reused, as
		// they would be by a learner grounding the same model again.
		var err error
		net, err = ground.Ground(context.Background(), m, db, opt)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cputime.Now()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	hard := 0
	for c := 0; c < net.NumClauses(); c++ {
		if net.IsHard(c) {
			hard++
		}
	}
	b.ReportMetric(float64(net.NumAtoms()), "atoms")
	b.ReportMetric(float64(net.NumClauses()), "clauses")
	b.ReportMetric(float64(hard), "hard")
	b.ReportMetric(float64(net.NumLits()), "lits")
	est, bytes, err := ground.Estimate(m, db, opt)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(est), "est-clauses")
	b.ReportMetric(float64(bytes)/(1<<20), "est-MiB")
}

// BenchmarkGroundFace grounds the segmentation model on the Face topic
// (Alchemy: 53,244 ground atoms, 200,556 ground clauses).
func BenchmarkGroundFace(b *testing.B) { benchGround(b, "face") }

// BenchmarkGroundAllTopics grounds the four topics together.
func BenchmarkGroundAllTopics(b *testing.B) { benchGround(b, topics...) }

// faceNetwork grounds the Face topic and returns a random assignment.
func faceNetwork(b *testing.B) (*ground.Network, []bool) {
	m, db, q := loadCiteSeer(b, "face")
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	y := make([]bool, net.NumAtoms())
	for a := range y {
		y[a] = r.IntN(3) == 0
	}
	return net, y
}

// BenchmarkCounts measures Counts on the Face network (one full pass over
// the clauses).
func BenchmarkCounts(b *testing.B) {
	net, y := faceNetwork(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		net.Counts(y)
	}
	b.ReportMetric(float64(net.NumClauses())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mclauses/s")
}

// BenchmarkCountDiff measures CountDiff for 100 flipped atoms on the Face
// network.
func BenchmarkCountDiff(b *testing.B) {
	net, y := faceNetwork(b)
	r := rand.New(rand.NewPCG(3, 4))
	y2 := append([]bool(nil), y...)
	changed := make([]int32, 0, 100)
	for len(changed) < 100 {
		a := int32(r.IntN(len(y)))
		if y2[a] == y[a] {
			y2[a] = !y[a]
			changed = append(changed, a)
		}
	}
	acc := make([]float64, len(net.EvidenceCount))
	net.CountDiff(y, y2, changed, acc) // builds the occurrence lists
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		net.CountDiff(y, y2, changed, acc)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(changed)), "ns/atom")
}
