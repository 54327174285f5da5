// Package replicate makes larger data sets from small ones by writing a
// database several times with renamed constants, for scaling benchmarks,
// and builds the replicated CiteSeer evidence the performance benchmarks
// use. Atoms writes the text of mln.ReplicatedAtoms, as the Beam
// module's synth.Replicate (marple-beam replicate) does; the tests of
// both pin that text.
package replicate

import (
	"path/filepath"
	"testing"

	"github.com/marple-mln/marple/examples"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// Atoms returns the atoms of db written k times, the constants of type
// t renamed in copy j by the suffix "_rj" (copy 0 keeps the names): a
// data set k times larger with the same statistics, whose examples (one
// per constant of t) stay distinct. Atoms are written predicate by
// predicate, in the database's order, "!" before a false atom and "?"
// before an unknown one.
func Atoms(m *mln.Model, db *mln.Database, t mln.TypeID, k int) string {
	return mln.ReplicatedAtoms(m, db, t, k)
}

// CiteSeerTopics are the four CiteSeer topics.
var CiteSeerTopics = []string{"face", "constraint", "reasoning", "reinforcement"}

// CiteSeer returns the evidence of the four CiteSeer topics (from the
// data folder, see package datadir; tb is skipped without it) replicated k
// times over the citations (type bib), as `marple-beam replicate -i
// examples/citeseer/ism.mln -t face.evidence.db,constraint.evidence.db,
// reasoning.evidence.db,reinforcement.evidence.db -type bib -k K` writes
// it. With k = 16 ("CiteSeer 16x") it has 1.3M atoms (35 MB), and the ISM
// model grounds on it to 3.8M atoms and 15M clauses.
func CiteSeer(tb testing.TB, k int) []byte {
	tb.Helper()
	datadir.Require(tb, "citeseer", "face.evidence.db")
	dir := filepath.Join(datadir.Root(), "citeseer")
	m, err := mln.ParseModel("ism.mln", examples.CiteSeerISM())
	if err != nil {
		tb.Fatal(err)
	}
	var files []string
	for _, t := range CiteSeerTopics {
		files = append(files, filepath.Join(dir, t+".evidence.db"))
	}
	db, err := mln.LoadDatabase(m, files...)
	if err != nil {
		tb.Fatal(err)
	}
	bib, ok := m.Type("bib")
	if !ok {
		tb.Fatal("ism.mln declares no type bib")
	}
	return []byte(Atoms(m, db, bib.ID, k))
}
