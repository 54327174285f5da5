package ground

import (
	"bytes"
	"context"
	"strconv"
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

// TestWriteFactorGraphNumbers checks Alchemy's layout: atoms as their
// arguments' constant numbers, each followed by a blank, "/ " between the
// atoms of a factor, "// " before its values, each followed by a blank.
func TestWriteFactorGraphNumbers(t *testing.T) {
	m, err := mln.ParseModel("m.mln", "R(t, t)\nQ(t)\n1.5 R(x, y) => Q(y)\n")
	if err != nil {
		t.Fatal(err)
	}
	db, _ := mln.ParseDatabase(m, "e.db", "Q(A)\n!R(B, B)\n")
	m.Compile()
	r, _ := m.Pred("R")
	q, _ := m.Pred("Q")
	net, err := Ground(context.Background(), m, db, Options{Query: []mln.PredID{r.ID, q.ID}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := net.WriteFactorGraphNumbers(&buf); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	a, _ := m.Const("A")
	b, _ := m.Const("B")
	qb := strconv.Itoa(int(b)) + " "
	rab := strconv.Itoa(int(a)) + " " + strconv.Itoa(int(b)) + " "
	for _, want := range []string{"variables:\n", "\n" + qb + "\n", "\n" + rab + "\n", "factors:\n", rab + "/ " + qb + "// 1.5 0 1.5 1.5 \n"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

// TestWriteFactorGraphLongClause: a ground clause too long for a table (an
// existential over 25 constants) is written as the clause in Marple's
// layout, and refused with the reason in Alchemy's.
func TestWriteFactorGraphLongClause(t *testing.T) {
	var consts []string
	for i := range 25 {
		consts = append(consts, "C"+strconv.Itoa(i))
	}
	src := "t = {" + strings.Join(consts, ", ") + "}\nP(t)\nQ(t)\n2 P(x) => EXIST y Q(y)\nEXIST y Q(y).\n"
	m, err := mln.ParseModel("m.mln", src)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := mln.ParseDatabase(m, "e.db", "")
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
	for _, want := range []string{"!P(C0)/ Q(C0)/ Q(C1)/ ", "Q(C24)// clause 2\n", "Q(C24)// clause hard\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if err := net.WriteFactorGraphNumbers(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "26 literals") {
		t.Errorf("Alchemy's layout: %v", err)
	}
}
