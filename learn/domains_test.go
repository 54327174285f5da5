package learn_test

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// withoutParams drops the parameter numbers from clause signatures (two
// models number their parameters apart).
func withoutParams(clauses []string) []string {
	out := make([]string, len(clauses))
	for i, c := range clauses {
		f := strings.SplitN(c, " ", 3)
		out[i] = f[0] + " " + f[2]
	}
	slices.Sort(out)
	return out
}

// TestPartitionSourceDomains checks Alchemy's per-example domains: each
// citation of a synthetic CiteSeer database, ground by PartitionSource,
// equals the grounding of a model that sees only that citation's database
// (its atoms, and the shared atoms over its constants and the model's), as
// Alchemy would ground it as one of -multipleDatabases.
func TestPartitionSourceDomains(t *testing.T) {
	text := syntheticCiteSeer(3, 12)
	m, db, q, bib := citeSeerProblem(t, text)
	ps, err := learn.NewPartitionSource(m, db, []mln.PredID{q}, bib, ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, typ := range m.Types {
		for _, c := range typ.Consts[:typ.Declared] {
			declared[m.ConstName(c)] = true
		}
	}
	argRE := regexp.MustCompile(`\((.*)\)`)
	args := func(line string) []string { return strings.Split(argRE.FindStringSubmatch(line)[1], ",") }
	lines := strings.Split(strings.TrimSpace(text), "\n")
	ctx := context.Background()
	shorter := 0
	for i := 0; i < ps.Len(); i++ {
		name := m.ConstName(ps.Groups[i][0])
		own := map[string]bool{}
		var dbText []string
		for _, l := range lines {
			if slices.Contains(args(l), name) {
				dbText = append(dbText, l)
				for _, a := range args(l) {
					own[a] = true
				}
			}
		}
		for _, l := range lines {
			if strings.Contains(l, "(B") {
				continue
			}
			keep := true
			for _, a := range args(l) {
				keep = keep && (own[a] || declared[a])
			}
			if keep {
				dbText = append(dbText, l)
			}
		}
		mi, dbi, qi, _ := citeSeerProblem(t, strings.Join(dbText, "\n"))
		ev := mln.NewDatabase(mi)
		for p := range mi.Preds {
			if mln.PredID(p) != qi {
				dbi.Atoms(mln.PredID(p), func(a []mln.ConstID, v mln.Truth) { ev.Set(mln.PredID(p), a, v) })
			}
		}
		net, err := ground.Ground(ctx, mi, ev, ground.Options{Query: []mln.PredID{qi}})
		if err != nil {
			t.Fatal(err)
		}
		query := make([]bool, net.NumAtoms())
		for a := range query {
			query[a] = net.AtomPred[a] == qi
		}
		want := &learn.Example{Net: net, Truth: net.Assignment(dbi), Query: query}
		got, err := ps.Example(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		aW, cW := signature(mi, want)
		aG, cG := signature(m, got)
		if !slices.Equal(aW, aG) {
			t.Fatalf("example %s: atoms differ:\nalone     %v\npartition %v", name, aW, aG)
		}
		if !slices.Equal(withoutParams(cW), withoutParams(cG)) {
			t.Fatalf("example %s: clauses differ (%d alone, %d in the partition)", name, len(cW), len(cG))
		}
		posType, _ := m.Type("position")
		if 3*len(posType.Consts) > len(aG) {
			shorter++
		}
	}
	if shorter == 0 {
		t.Fatal("no citation is shorter than the longest: the test shows nothing")
	}
}

// TestPartitionSourceDomainsCiteSeer counts the query atoms of the
// Reasoning topic ground one citation at a time (skipped without the
// data). The atoms at token positions are the 37,692 of the papers' ground
// network (3 fields × 12,564 tokens); this export of the data also lists
// FirstIn and FirstNonAuthorTitleTkn at the position just past the last
// token when a citation has none (303 citations), which, as in Alchemy,
// brings that position into the citation's domain: 3 × 303 more.
func TestPartitionSourceDomainsCiteSeer(t *testing.T) {
	dir := datadir.Require(t, "citeseer")
	files := []string{filepath.Join(dir, "reasoning.evidence.db"), filepath.Join(dir, "reasoning.infield.db")}
	m, db, q, bib := citeSeerProblem(t, "", files...)
	ps, err := learn.NewPartitionSource(m, db, []mln.PredID{q}, bib, ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	token, _ := m.Pred("Token")
	n, atTokens := 0, 0
	for i := 0; i < ps.Len(); i++ {
		ex, err := ps.Example(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		tok := map[mln.ConstID]bool{}
		db.Atoms(token.ID, func(args []mln.ConstID, v mln.Truth) {
			if args[2] == ps.Groups[i][0] {
				tok[args[1]] = true
			}
		})
		for a, isQ := range ex.Query {
			if isQ {
				n++
				if tok[ex.Net.AtomArgs[a][2]] {
					atTokens++
				}
			}
		}
	}
	if atTokens != 37692 || n != 37692+3*303 {
		t.Fatalf("%d query atoms on Reasoning, %d at token positions; want 38,601 and 37,692", n, atTokens)
	}
}

// TestDatabaseSourceDomains checks -multipleDatabases' domains: each
// database is ground over the constants it mentions and the model's.
func TestDatabaseSourceDomains(t *testing.T) {
	m, err := mln.ParseModel("s.mln", "Smokes(person)\nCancer(person)\nFriends(person, person)\nSmokes(x) => Cancer(x)\nFriends(x, y) ^ Smokes(x) => Smokes(y)\nSmokes(Zed)\n")
	if err != nil {
		t.Fatal(err)
	}
	a, err := mln.ParseDatabase(m, "a.db", "Friends(Anna, Bob)\nSmokes(Anna)\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := mln.ParseDatabase(m, "b.db", "Friends(Carl, Dora)\nFriends(Dora, Eve)\nCancer(Eve)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	smokes, _ := m.Pred("Smokes")
	cancer, _ := m.Pred("Cancer")
	q := []mln.PredID{smokes.ID, cancer.ID}
	for _, tc := range []struct {
		shared bool
		atoms  []int
	}{{false, []int{2 * 3, 2 * 4}}, {true, []int{2 * 6, 2 * 6}}} {
		src, _, err := learn.NewExamples(context.Background(), m, []*mln.Database{a, b},
			learn.ExampleOptions{Query: q, MultipleDatabases: true, SharedDomains: tc.shared})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tc.atoms {
			ex, err := src.Example(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			if got := ex.Net.NumAtoms(); got != want {
				t.Errorf("shared domains %v, database %d: %d atoms, want %d (Zed and its own people)", tc.shared, i, got, want)
			}
		}
	}
}
