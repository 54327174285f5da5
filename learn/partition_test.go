package learn_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/examples"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// syntheticCiteSeer returns a database in the CiteSeer format (evidence
// and InField truth) of n citations of up to 10 tokens: an author, a title
// and a venue segment with punctuation, initials, dates and digits.
func syntheticCiteSeer(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	pos := func(i int) string { return fmt.Sprintf("P%02d", i) }
	for i := 0; i < 10; i++ {
		if i > 0 {
			fmt.Fprintf(&b, "Next(%s,%s)\n", pos(i), pos(i-1))
		}
		for j := i + 1; j < 10; j++ {
			fmt.Fprintf(&b, "LessThan(%s,%s)\n", pos(i), pos(j))
		}
	}
	b.WriteString("IsAlphaChar(Ta)\nIsAlphaChar(Tb)\nIsDate(T1999)\nIsDate(T2003)\nIsDigit(T12)\nIsDigit(T7)\n")
	authors := []string{"Tsmith", "Tjones", "Ta", "Tb", "Tlee"}
	titles := []string{"Tlogic", "Tlearning", "Tmarkov", "Tnetworks", "Tin", "Tof"}
	venues := []string{"Tproc", "Tin", "Tjournal", "T1999", "T2003", "T12", "T7", "Tpages"}
	fields := []string{"Fauthor", "Ftitle", "Fvenue"}
	for c := 1; c <= n; c++ {
		bib := fmt.Sprintf("B%04d", c)
		p := 0
		for f, words := range [][]string{authors, titles, venues} {
			k := 1 + r.IntN(3)
			for j := 0; j < k && p < 10; j++ {
				w := words[r.IntN(len(words))]
				fmt.Fprintf(&b, "Token(%s,%s,%s)\n", w, pos(p), bib)
				fmt.Fprintf(&b, "InField(%s,%s,%s)\n", bib, fields[f], pos(p))
				if w == "Ta" || w == "Tb" {
					fmt.Fprintf(&b, "FollowBy(%s,%s,TPERIOD)\n", bib, pos(p))
					if f == 0 && r.IntN(2) == 0 {
						fmt.Fprintf(&b, "LastInitial(%s,%s)\n", bib, pos(p))
					}
				}
				if w == "Tin" {
					fmt.Fprintf(&b, "FirstIn(%s,%s)\n", bib, pos(p))
				}
				if f == 2 && j == 0 {
					fmt.Fprintf(&b, "FirstNonAuthorTitleTkn(%s,%s)\n", bib, pos(p))
				}
				if f == 1 && r.IntN(3) == 0 {
					fmt.Fprintf(&b, "Center(%s,%s)\n", bib, pos(p))
				}
				if j == k-1 || r.IntN(6) == 0 {
					fmt.Fprintf(&b, "HasPunc(%s,%s)\n", bib, pos(p))
					if r.IntN(2) == 0 {
						fmt.Fprintf(&b, "HasComma(%s,%s)\n", bib, pos(p))
					}
				}
				p++
			}
		}
	}
	return b.String()
}

// citeSeerProblem parses the ISM model with the given database text (or
// files), compiled, with its InField predicate and bib type.
func citeSeerProblem(t testing.TB, text string, files ...string) (*mln.Model, *mln.Database, mln.PredID, mln.TypeID) {
	t.Helper()
	m, err := mln.ParseModel("ism.mln", examples.CiteSeerISM())
	if err != nil {
		t.Fatal(err)
	}
	var db *mln.Database
	if files != nil {
		db, err = mln.LoadDatabase(m, files...)
	} else {
		db, err = mln.ParseDatabase(m, "synthetic.db", text)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	inField, _ := m.Pred("InField")
	bib, _ := m.Type("bib")
	return m, db, inField.ID, bib.ID
}

// componentSource grounds the whole database (without the query atoms)
// and groups the components by citation, as marple learn did.
func componentSource(t testing.TB, m *mln.Model, db *mln.Database, q mln.PredID) *learn.ComponentSource {
	t.Helper()
	ev := mln.NewDatabase(m)
	for p := range m.Preds {
		if mln.PredID(p) != q {
			db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) { ev.Set(mln.PredID(p), args, v) })
		}
	}
	net, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: []mln.PredID{q}})
	if err != nil {
		t.Fatal(err)
	}
	query := make([]bool, net.NumAtoms())
	for a := range query {
		query[a] = net.AtomPred[a] == q
	}
	key := func(a int32) int64 {
		if net.AtomPred[a] != q {
			return -1
		}
		return int64(net.AtomArgs[a][0])
	}
	return learn.NewComponentSource(net, net.Assignment(db), query, key)
}

func atomText(m *mln.Model, p mln.PredID, args []mln.ConstID) string {
	var s []string
	for _, c := range args {
		s = append(s, m.ConstName(c))
	}
	return m.Preds[p].Name + "(" + strings.Join(s, ",") + ")"
}

// signature describes an example independently of atom numbering: its
// atoms (name, truth, query) and its clauses (source, parameter,
// coefficient, weight class, literals by name), each sorted.
func signature(m *mln.Model, ex *learn.Example) (atoms, clauses []string) {
	net := ex.Net
	for a := 0; a < net.NumAtoms(); a++ {
		atoms = append(atoms, fmt.Sprintf("%s=%v/%v", atomText(m, net.AtomPred[a], net.AtomArgs[a]), ex.Truth[a], ex.Query == nil || ex.Query[a]))
	}
	for c := 0; c < net.NumClauses(); c++ {
		var lits []string
		for _, l := range net.Clause(c) {
			s := atomText(m, net.AtomPred[l.Atom()], net.AtomArgs[l.Atom()])
			if l.Neg() {
				s = "!" + s
			}
			lits = append(lits, s)
		}
		clauses = append(clauses, fmt.Sprintf("%d %d %g %v %s", net.Source(c), net.Param(c), net.Coef(c), net.IsHard(c), strings.Join(lits, " v ")))
	}
	slices.Sort(atoms)
	slices.Sort(clauses)
	return atoms, clauses
}

// compareSources checks that the two sources give the same examples in the
// same order, up to atom and clause numbering (both over model m).
func compareSources(t *testing.T, m *mln.Model, cs *learn.ComponentSource, ps *learn.PartitionSource) {
	t.Helper()
	if cs.Len() != ps.Len() {
		t.Fatalf("%d component examples, %d partition examples", cs.Len(), ps.Len())
	}
	ctx := context.Background()
	for i := 0; i < cs.Len(); i++ {
		exC, err := cs.Example(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		exP, err := ps.Example(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		aC, cC := signature(m, exC)
		aP, cP := signature(m, exP)
		if !slices.Equal(aC, aP) {
			t.Fatalf("example %d (%s): atoms differ:\ncomponents %v\npartition  %v", i, exP.Name, aC, aP)
		}
		if !slices.Equal(cC, cP) {
			for k := range min(len(cC), len(cP)) {
				if cC[k] != cP[k] {
					t.Fatalf("example %d (%s): %d vs %d clauses, first difference:\ncomponents %s\npartition  %s", i, exP.Name, len(cC), len(cP), cC[k], cP[k])
				}
			}
			t.Fatalf("example %d (%s): %d vs %d clauses", i, exP.Name, len(cC), len(cP))
		}
	}
}

var exactSolver = exact.Engine{}

// compareLearning learns with CDA-ML from both sources (fresh models) and
// compares the weights, matched by formula and binding.
func compareLearning(t *testing.T, load func() (*mln.Model, *mln.Database, mln.PredID, mln.TypeID), settings learn.Settings) {
	t.Helper()
	ctx := context.Background()
	mC, dbC, qC, _ := load()
	cs := componentSource(t, mC, dbC, qC)
	mP, dbP, qP, bibP := load()
	ps, err := learn.NewPartitionSource(mP, dbP, []mln.PredID{qP}, bibP, ground.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ps.SharedDomains = true
	settings.Solver = exactSolver
	stC, err := learn.Online(ctx, mC, cs, &learn.CDA{Sigma: 0.1, Inference: learn.MaxLoss}, settings)
	if err != nil {
		t.Fatal(err)
	}
	stP, err := learn.Online(ctx, mP, ps, &learn.CDA{Sigma: 0.1, Inference: learn.MaxLoss}, settings)
	if err != nil {
		t.Fatal(err)
	}
	if len(mC.Weights) != len(mP.Weights) {
		t.Fatalf("%d parameters with components, %d with the partition", len(mC.Weights), len(mP.Weights))
	}
	key := func(m *mln.Model, p int) string {
		var s []string
		for _, c := range m.ParamBinding[p] {
			s = append(s, m.ConstName(c))
		}
		return fmt.Sprint(m.ParamFormula[p], s)
	}
	wP := map[string]float64{}
	for p, w := range mP.Weights {
		wP[key(mP, p)] = w
	}
	maxDiff, nonzero := 0.0, 0
	for p, w := range mC.Weights {
		v, ok := wP[key(mC, p)]
		if !ok {
			t.Fatalf("parameter %s only with components", key(mC, p))
		}
		maxDiff = math.Max(maxDiff, math.Abs(v-w))
		if w != 0 {
			nonzero++
		}
	}
	if maxDiff > 1e-9 {
		t.Fatalf("weights differ by up to %g (losses %v vs %v)", maxDiff, stC.PassLoss, stP.PassLoss)
	}
	if nonzero == 0 {
		t.Fatal("all weights are zero")
	}
	t.Logf("%d examples, %d parameters (%d nonzero), weights agree within %g, pass losses %v", ps.Len(), len(mC.Weights), nonzero, maxDiff, stP.PassLoss)
}

// TestPartitionSourceSynthetic compares the per-citation groundings with
// the components of the whole grounding on synthetic CiteSeer data, and
// the weights CDA-ML learns from either.
func TestPartitionSourceSynthetic(t *testing.T) {
	text := syntheticCiteSeer(1, 40)
	m, db, q, bib := citeSeerProblem(t, text)
	cs := componentSource(t, m, db, q)
	ps, err := learn.NewPartitionSource(m, db, []mln.PredID{q}, bib, ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps.SharedDomains = true
	if ps.Len() != 40 {
		t.Fatalf("%d examples, want 40", ps.Len())
	}
	compareSources(t, m, cs, ps)
	load := func() (*mln.Model, *mln.Database, mln.PredID, mln.TypeID) { return citeSeerProblem(t, text) }
	compareLearning(t, load, learn.Settings{Passes: 2})
	compareLearning(t, load, learn.Settings{Passes: 2, Shuffle: true, Seed: 5})
}

// TestPartitionSourceGroups checks grouping several constants into one
// example and the evidence of an example.
func TestPartitionSourceGroups(t *testing.T) {
	m, db, q, bib := citeSeerProblem(t, syntheticCiteSeer(2, 6))
	ps, err := learn.NewPartitionSource(m, db, []mln.PredID{q}, bib, ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps.SharedDomains = true // grouped, the per-example domains would be the union
	one, err := ps.Example(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	two, err := ps.Example(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := ps.Evidence(0)
	if err != nil {
		t.Fatal(err)
	}
	b1 := ps.Groups[0][0]
	for p := range m.Preds {
		if mln.PredID(p) == q && ev.Count(q) != 0 {
			t.Fatal("the evidence lists query atoms")
		}
		ev.Atoms(mln.PredID(p), func(args []mln.ConstID, _ mln.Truth) {
			for j, at := range m.Preds[p].Args {
				if at == bib && args[j] != b1 {
					t.Fatalf("example 0's evidence has %s", atomText(m, mln.PredID(p), args))
				}
			}
		})
	}
	ps.Groups = [][]mln.ConstID{{ps.Groups[0][0], ps.Groups[1][0]}}
	both, err := ps.Example(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if both.Net.NumAtoms() != one.Net.NumAtoms()+two.Net.NumAtoms() || both.Net.NumClauses() != one.Net.NumClauses()+two.Net.NumClauses() {
		t.Fatalf("grouped example: %d atoms, %d clauses; separately %d+%d, %d+%d", both.Net.NumAtoms(), both.Net.NumClauses(),
			one.Net.NumAtoms(), two.Net.NumAtoms(), one.Net.NumClauses(), two.Net.NumClauses())
	}
	if both.Name != m.ConstName(ps.Groups[0][0])+","+m.ConstName(ps.Groups[0][1]) {
		t.Errorf("name %q", both.Name)
	}
}

// TestPartitionSourceErrors checks the refusals.
func TestPartitionSourceErrors(t *testing.T) {
	m, err := mln.ParseModel("e.mln", `
Lab(doc, label)
Word(doc, word)
Global(label)
Word(d, +w) => Lab(d, +l)
`)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "e.db", "Word(D1, Wa)\nWord(D2, Wb)\nLab(D1, L1)\nLab(D2, L2)\n?Global(L1)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	lab, _ := m.Pred("Lab")
	glob, _ := m.Pred("Global")
	doc, _ := m.Type("doc")
	label, _ := m.Type("label")
	for _, tc := range []struct {
		query []mln.PredID
		t     mln.TypeID
		opt   ground.Options
		want  string
	}{
		{[]mln.PredID{lab.ID, glob.ID}, doc.ID, ground.Options{}, "Global has no argument"},
		{[]mln.PredID{lab.ID}, doc.ID, ground.Options{OpenWorld: []mln.PredID{glob.ID}}, "open-world predicate Global"},
		{[]mln.PredID{lab.ID}, doc.ID, ground.Options{}, "Global(L1) is listed unknown"},
		{[]mln.PredID{lab.ID}, doc.ID, ground.Options{Domains: map[mln.TypeID][]mln.ConstID{doc.ID: nil}}, "already restricts"},
		{[]mln.PredID{lab.ID}, 9, ground.Options{}, "out of range"},
	} {
		_, err := learn.NewPartitionSource(m, db, tc.query, tc.t, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("query %v, type %d: error %v, want %q", tc.query, tc.t, err, tc.want)
		}
	}
	// Over labels, Global(L1) has a label argument: accepted.
	if _, err := learn.NewPartitionSource(m, db, []mln.PredID{lab.ID, glob.ID}, label.ID, ground.Options{}); err != nil {
		t.Errorf("example type label: %v", err)
	}
	// Clauses linking constants of the example type.
	for f, want := range map[string]string{"Lab(d, l) ^ Lab(e, l) => d = e": "2 variables", "EXIST d Lab(d, L1)": "existentially"} {
		m3, err := mln.ParseModel("l.mln", "Lab(doc, label)\nWord(doc, word)\n"+f+"\n")
		if err != nil {
			t.Fatal(err)
		}
		if err := m3.Compile(); err != nil {
			t.Fatal(err)
		}
		lab3, _ := m3.Pred("Lab")
		doc3, _ := m3.Type("doc")
		if _, err := learn.NewPartitionSource(m3, mln.NewDatabase(m3), []mln.PredID{lab3.ID}, doc3.ID, ground.Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", f, err)
		}
	}
	// A clause naming a constant of the example type.
	m2, err := mln.ParseModel("c.mln", "Lab(doc, label)\nWord(doc, word)\nWord(D1, w) => Lab(D1, L1)\n")
	if err != nil {
		t.Fatal(err)
	}
	db2 := mln.NewDatabase(m2)
	if err := m2.Compile(); err != nil {
		t.Fatal(err)
	}
	lab2, _ := m2.Pred("Lab")
	doc2, _ := m2.Type("doc")
	if _, err := learn.NewPartitionSource(m2, db2, []mln.PredID{lab2.ID}, doc2.ID, ground.Options{}); err == nil || !strings.Contains(err.Error(), "D1") {
		t.Errorf("clause with a constant of the example type: %v", err)
	}
}

// TestPartitionSourceCiteSeer compares the sources on the CiteSeer
// Constraint topic (skipped without the data).
func TestPartitionSourceCiteSeer(t *testing.T) {
	dir := datadir.Require(t, "citeseer")
	files := []string{filepath.Join(dir, "constraint.evidence.db"), filepath.Join(dir, "constraint.infield.db")}
	m, db, q, bib := citeSeerProblem(t, "", files...)
	cs := componentSource(t, m, db, q)
	ps, err := learn.NewPartitionSource(m, db, []mln.PredID{q}, bib, ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps.SharedDomains = true
	compareSources(t, m, cs, ps)
	compareLearning(t, func() (*mln.Model, *mln.Database, mln.PredID, mln.TypeID) { return citeSeerProblem(t, "", files...) }, learn.Settings{})
}

// BenchmarkPartitionSourceCiteSeer grounds every citation of three CiteSeer
// topics one at a time (skipped without the data).
func BenchmarkPartitionSourceCiteSeer(b *testing.B) {
	dir := datadir.Require(b, "citeseer")
	var files []string
	for _, topic := range []string{"constraint", "reasoning", "reinforcement"} {
		files = append(files, filepath.Join(dir, topic+".evidence.db"), filepath.Join(dir, topic+".infield.db"))
	}
	m, db, q, bib := citeSeerProblem(b, "", files...)
	for _, shared := range []bool{false, true} {
		b.Run(map[bool]string{false: "own-domains", true: "shared-domains"}[shared], func(b *testing.B) {
			ps, err := learn.NewPartitionSource(m, db, []mln.PredID{q}, bib, ground.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ps.SharedDomains = shared
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				for i := 0; i < ps.Len(); i++ {
					if _, err := ps.Example(ctx, i); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*ps.Len()), "µs/example")
		})
	}
}
