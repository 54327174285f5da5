package query

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

func model(t *testing.T) (*mln.Model, *mln.Database) {
	t.Helper()
	m, err := mln.ParseModel("m.mln", "Friends(person, person)\nSmokes(person)\n1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n")
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "e.db", "Friends(Anna, Bob)\nSmokes(Anna)\nFriends(Bob, Carl)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return m, db
}

func TestParseList(t *testing.T) {
	items, err := ParseList(" Friends(Anna, x) ,Smokes,,Friends(y,y)")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].Pred != "Friends" || len(items[0].Args) != 2 || items[0].Args[1] != "x" || items[1].Args != nil || items[2].Text != "Friends(y,y)" {
		t.Fatalf("%+v", items)
	}
	if n := Names(items); strings.Join(n, ",") != "Friends,Smokes" {
		t.Errorf("names %v", n)
	}
	for _, bad := range []string{"Friends(Anna", "Friends(Anna,)", "(A)", "P)(", "Friends(A))"} {
		var se *SyntaxError
		if _, err := ParseList(bad); !errors.As(err, &se) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseAndKeep(t *testing.T) {
	m, _ := model(t)
	q, err := Parse(m, "Friends(Anna,x),Friends(y,y)")
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := m.Pred("Friends")
	c := func(n string) mln.ConstID { k, _ := m.Const(n); return k }
	for _, tc := range []struct {
		a, b string
		want bool
	}{{"Anna", "Bob", true}, {"Anna", "Anna", true}, {"Bob", "Bob", true}, {"Bob", "Carl", false}} {
		if got := q.Keep(fr.ID, []mln.ConstID{c(tc.a), c(tc.b)}); got != tc.want {
			t.Errorf("Keep Friends(%s,%s) = %v", tc.a, tc.b, got)
		}
	}
	if q.Whole() || len(q.Preds()) != 1 {
		t.Errorf("preds %v, whole %v", q.Preds(), q.Whole())
	}
	for list, want := range map[string]string{
		"Smoke":          `unknown predicate "Smoke" (did you mean Smokes?)`,
		"Friends(Anna)":  "takes 2 arguments, not 1",
		"Friends(Zed,x)": `unknown constant "Zed"`,
	} {
		if _, err := Parse(m, list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", list, err, want)
		}
	}
	// A predicate named whole is asked for whole, patterns or not.
	q, _ = Parse(m, "Friends(Anna,x),Friends")
	if !q.Keep(fr.ID, []mln.ConstID{c("Bob"), c("Carl")}) || !q.Whole() {
		t.Error("Friends named whole")
	}
}

// TestWrite grounds the model and checks the writers against the atoms
// asked for, listed by hand.
func TestWrite(t *testing.T) {
	m, db := model(t)
	q, err := Parse(m, "Smokes,Friends(x,Carl)")
	if err != nil {
		t.Fatal(err)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q.Preds()})
	if err != nil {
		t.Fatal(err)
	}
	probs := make([]float64, net.NumAtoms())
	y := make([]bool, net.NumAtoms())
	for a := range probs {
		probs[a] = 0.25
		y[a] = true
	}
	var buf bytes.Buffer
	if err := q.WriteMarginals(&buf, net, probs, 0); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{"Smokes(Bob) 0.25\n", "Smokes(Carl) 0.25\n", "Friends(Anna,Carl) 0.25\n", "Friends(Carl,Carl) 0.25\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("marginals lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Friends(Carl,Anna)") || strings.Contains(got, "Smokes(Anna)") {
		t.Errorf("marginals list atoms not asked for or evidence:\n%s", got)
	}
	buf.Reset()
	q.WriteMarginals(&buf, net, probs, 10000)
	if !strings.Contains(buf.String(), "Smokes(Bob) 0.250025\n") {
		t.Errorf("smoothed:\n%s", buf.String())
	}
	buf.Reset()
	if err := q.WriteMAP(&buf, db, net, y, false); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.HasPrefix(got, "Friends(Bob,Carl)\nSmokes(Anna)\n") || strings.Contains(got, "Friends(Anna,Bob)") {
		t.Errorf("MAP: evidence first, atoms asked for only:\n%s", got)
	}
	buf.Reset()
	q.WriteMAP(&buf, db, net, y, true)
	if got := buf.String(); !strings.Contains(got, "Smokes(Bob) 1\n") || strings.Contains(got, "Smokes(Anna)") {
		t.Errorf("MAP -a:\n%s", got)
	}
}

func TestAddAtomsAndListedEvidence(t *testing.T) {
	m, err := mln.ParseModel("m.mln", "Friends(person, person)\nSmokes(person)\n1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n")
	if err != nil {
		t.Fatal(err)
	}
	db, _ := mln.ParseDatabase(m, "e.db", "Friends(Anna, Bob)\nSmokes(Anna)\n!Smokes(Bob)\n")
	qdb, _ := mln.ParseDatabase(m, "q.db", "Friends(Bob, Dora)\n")
	m.Compile()
	q, err := Parse(m, "Smokes")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AddAtoms(qdb); err != nil {
		t.Fatal(err)
	}
	fr, _ := m.Pred("Friends")
	sm, _ := m.Pred("Smokes")
	bob, _ := m.Const("Bob")
	dora, _ := m.Const("Dora")
	if len(q.Preds()) != 2 || !q.Keep(fr.ID, []mln.ConstID{bob, dora}) || q.Keep(fr.ID, []mln.ConstID{dora, bob}) {
		t.Errorf("query file: preds %v", q.Preds())
	}
	listed := q.ListedEvidence(db)
	if len(listed) != 1 || listed[0] != sm.ID || len(q.Preds()) != 1 || !q.IsQuery()[sm.ID] {
		t.Errorf("listed %v, preds %v", listed, q.Preds())
	}
	if v, ok := db.Get(sm.ID, []mln.ConstID{bob}); !ok || v != mln.Unknown {
		t.Errorf("Smokes(Bob) is %v after ListedEvidence", v)
	}
	empty, _ := mln.ParseDatabase(m, "none.db", "")
	if err := q.AddAtoms(empty); err == nil {
		t.Error("an empty query file accepted")
	}
}

func FuzzParseList(f *testing.F) {
	for _, s := range []string{"Friends(Anna,x),Smokes", "P((", "a,,b", ")(", "P(a, b ,c)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, err := ParseList(s)
		if err != nil {
			return
		}
		for _, it := range items {
			if it.Pred == "" && it.Text != "" {
				t.Fatalf("%q: an item without a predicate: %+v", s, it)
			}
		}
	})
}

// TestAlchemyOrder checks the writers in Alchemy's order: item by item of
// the list, each atom once at its first item, without the evidence in an
// eager MAP answer and with it in a lazy one, and BP's output without the
// atoms in no ground clause.
func TestAlchemyOrder(t *testing.T) {
	m, err := mln.ParseModel("m.mln", "Friends(person, person)\nSmokes(person)\nDrinks(person)\n1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n")
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "e.db", "Friends(Anna, Bob)\nSmokes(Anna)\nFriends(Bob, Carl)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	q, err := Parse(m, "Drinks,Smokes,Friends(x,Carl),Friends(Bob,x)")
	if err != nil {
		t.Fatal(err)
	}
	q.SetAlchemyOrder(true)
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q.Preds()})
	if err != nil {
		t.Fatal(err)
	}
	probs := make([]float64, net.NumAtoms())
	y := make([]bool, net.NumAtoms())
	for a := range probs {
		probs[a] = 0.25
		y[a] = true
	}
	var buf bytes.Buffer
	if err := q.WriteMarginals(&buf, net, probs, 0); err != nil {
		t.Fatal(err)
	}
	want := "Drinks(Anna) 0.25\nDrinks(Bob) 0.25\nDrinks(Carl) 0.25\nSmokes(Bob) 0.25\nSmokes(Carl) 0.25\n" +
		"Friends(Anna,Carl) 0.25\nFriends(Carl,Carl) 0.25\nFriends(Bob,Anna) 0.25\nFriends(Bob,Bob) 0.25\n"
	if got := buf.String(); got != want {
		t.Errorf("marginals in Alchemy's order:\n%s\nwant\n%s", got, want)
	}
	buf.Reset()
	q.SetOmitFree(true)
	q.WriteMarginals(&buf, net, probs, 0)
	if got := buf.String(); strings.Contains(got, "Drinks") || !strings.Contains(got, "Smokes(Bob) 0.25\n") {
		t.Errorf("-omitFree: the atoms in no ground clause are left out, no other:\n%s", got)
	}
	buf.Reset()
	q.WriteMAP(&buf, db, net, y, false)
	if got := buf.String(); strings.Contains(got, "Smokes(Anna)") || strings.Contains(got, "Friends(Bob,Carl)") ||
		!strings.HasPrefix(got, "Drinks(Anna)\nDrinks(Bob)\nDrinks(Carl)\nSmokes(Bob)\n") {
		t.Errorf("eager MAP in Alchemy's order, no evidence:\n%s", got)
	}
	buf.Reset()
	q.SetMAPEvidence(true)
	q.WriteMAP(&buf, db, net, y, false)
	if got := buf.String(); !strings.Contains(got, "Drinks(Carl)\nSmokes(Anna)\nSmokes(Bob)\nSmokes(Carl)\n") || strings.Count(got, "Friends(Bob,Carl)") != 1 {
		t.Errorf("lazy MAP in Alchemy's order, with the true evidence:\n%s", got)
	}
}
