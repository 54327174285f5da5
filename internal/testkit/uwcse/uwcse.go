// Package uwcse grounds the UW-CSE data set for tests and benchmarks of
// the exact engines; it skips cleanly without the shared data.
package uwcse

import (
	"context"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// Network grounds the UW-CSE model (Tuffy's weights) against one area's
// evidence with advisedBy as the query: one dense component of thousands
// of atoms. It skips tb when the data set is not there.
func Network(tb testing.TB, area string) *ground.Network {
	tb.Helper()
	dir := datadir.Require(tb, "uw-cse")
	m, err := mln.LoadModel(dir + "/tuffy-weighted-prog.mln")
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mln.LoadDatabase(m, dir+"/"+area+".db")
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		tb.Fatal(err)
	}
	p, ok := m.Pred("advisedBy")
	if !ok {
		tb.Fatal("no advisedBy")
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []mln.PredID{p.ID}})
	if err != nil {
		tb.Fatal(err)
	}
	return net
}
