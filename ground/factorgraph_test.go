package ground

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

func TestWriteFactorGraph(t *testing.T) {
	m, err := mln.ParseModel("m.mln", "P(t)\nQ(t)\n1.5 P(x) => Q(x)\nQ(x).\n")
	if err != nil {
		t.Fatal(err)
	}
	db, _ := mln.ParseDatabase(m, "e.db", "P(A)\n")
	m.Compile()
	p, _ := m.Pred("P")
	q, _ := m.Pred("Q")
	net, err := Ground(context.Background(), m, db, Options{Query: []mln.PredID{p.ID, q.ID}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := net.WriteFactorGraph(&buf); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{"variables:\nQ(A)\n", "factors:\n", "Q(A)// 0 1.5\n", "Q(A)// -inf 0\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}
