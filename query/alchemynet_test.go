package query

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// TestAlchemyBPOrderHidden checks the atoms AlchemyBPOrder lists of the
// predicates not queried: of Knows, open world without evidence, the
// variables of Alchemy's factor graph (Knows(x, x) among them, only in
// tautologies, which the network leaves out); of Friends, open world with
// evidence, every unknown atom, the graph's first. The atoms the network
// lacks are free (probability 1/2), and WriteMarginals lists them among
// the others by predicate and rank.
func TestAlchemyBPOrderHidden(t *testing.T) {
	m, db := loadAlchemy(t, `Friends(person, person)
Knows(person, person)
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
0.7 Knows(x, y) => (Smokes(x) <=> Smokes(y))
`, `Friends(Ivan, John)
Friends(John, Ivan)
Friends(Katherine, Lars)
Friends(Lars, Katherine)
Smokes(Ivan)
Cancer(Anna)
`)
	q, err := Parse(m, "Smokes,Cancer")
	if err != nil {
		t.Fatal(err)
	}
	friends, _ := m.Pred("Friends")
	knows, _ := m.Pred("Knows")
	open := []mln.PredID{friends.ID}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q.Preds(), OpenWorld: open, NonEvidenceOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := AlchemyFactorGraph(m, db, AlchemyClosedWorld(db, q.Preds(), open, nil))
	if err != nil {
		t.Fatal(err)
	}
	hidden := func(p mln.PredID) bool { return p == friends.ID || p == knows.ID }
	rank, extra := AlchemyBPOrder(net, db, fs, hidden)
	// The query atoms: listed and ordered as by AlchemyBPRanks.
	plain := AlchemyBPRanks(net, db, fs)
	for _, p := range q.Preds() {
		order := func(r []int32) []int32 {
			var out []int32
			for a := range r {
				if net.AtomPred[a] == p && r[a] >= 0 {
					out = append(out, int32(a))
				}
			}
			slices.SortFunc(out, func(x, y int32) int { return int(r[x] - r[y]) })
			return out
		}
		if g, w := order(rank), order(plain); !slices.Equal(g, w) {
			t.Errorf("%s: atoms %v, AlchemyBPRanks %v", m.Preds[p].Name, g, w)
		}
	}

	inGraph := map[string]bool{}
	for _, f := range fs {
		for i := range f.Preds {
			inGraph[m.AtomString(f.Preds[i], f.Args[i])] = true
		}
	}
	// The atoms listed of each hidden predicate, with their ranks.
	listed := map[mln.PredID]map[string]int32{friends.ID: {}, knows.ID: {}}
	add := func(p mln.PredID, args []mln.ConstID, r int32) {
		s := m.AtomString(p, args)
		if _, dup := listed[p][s]; dup {
			t.Errorf("%s listed twice", s)
		}
		listed[p][s] = r
	}
	for a, r := range rank {
		if p := net.AtomPred[a]; hidden(p) && r >= 0 {
			add(p, net.AtomArgs[a], r)
		}
	}
	for i, x := range extra {
		if _, ok := net.AtomID(x.Pred, x.Args); ok {
			t.Errorf("extra atom %s is in the network", m.AtomString(x.Pred, x.Args))
		}
		if i > 0 && (x.Pred < extra[i-1].Pred || x.Pred == extra[i-1].Pred && x.Rank <= extra[i-1].Rank) {
			t.Errorf("extra atoms not by predicate and rank: %v after %v", x, extra[i-1])
		}
		add(x.Pred, x.Args, x.Rank)
	}
	if float64(len(extra)) > net.FreeAtoms() {
		t.Errorf("%d extra atoms, but the network leaves out %g free atoms", len(extra), net.FreeAtoms())
	}

	// Knows: exactly the variables of the graph, in the order they enter it.
	var want []string
	for s := range inGraph {
		if strings.HasPrefix(s, "Knows(") {
			want = append(want, s)
		}
	}
	byRank := func(p mln.PredID) []string {
		var out []string
		for s := range listed[p] {
			out = append(out, s)
		}
		slices.SortFunc(out, func(a, b string) int { return int(listed[p][a] - listed[p][b]) })
		return out
	}
	got := byRank(knows.ID)
	if g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want)); !slices.Equal(g, w) {
		t.Errorf("Knows atoms listed %q, in the graph %q", g, w)
	}
	if !slices.Contains(got, "Knows(John,John)") {
		t.Errorf("Knows(John,John), in tautologies only, not listed: %q", got)
	}
	// Friends: every unknown atom, those of the graph first.
	got = byRank(friends.ID)
	n := 0
	for _, a := range m.Types[friends.Args[0]].Consts {
		for _, b := range m.Types[friends.Args[1]].Consts {
			if v, ok := db.Get(friends.ID, []mln.ConstID{a, b}); !ok || v == mln.Unknown {
				n++
			}
		}
	}
	if len(got) != n {
		t.Errorf("%d Friends atoms listed, %d unknown", len(got), n)
	}
	for i := 1; i < len(got); i++ {
		if !inGraph[got[i-1]] && inGraph[got[i]] {
			t.Errorf("Friends: %s, in the graph, listed after %s, in none of its factors", got[i], got[i-1])
		}
	}

	// WriteMarginals: the hidden atoms among the query atoms, the extra
	// ones with 1/2.
	probs := make([]float64, net.NumAtoms())
	for a := range probs {
		probs[a] = 0.25
	}
	q.SetOmitFree(true)
	q.SetAtomRanks(rank)
	q.SetListHidden(true, extra)
	var b bytes.Buffer
	if err := q.WriteMarginals(&b, net, probs, 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	isExtra := map[string]bool{}
	for _, x := range extra {
		isExtra[m.AtomString(x.Pred, x.Args)] = true
	}
	pos := map[string]int{}
	last := map[mln.PredID]int32{}
	prev := mln.PredID(-1)
	for i, l := range lines {
		atom, v, _ := strings.Cut(l, " ")
		pos[atom] = i
		if want := map[bool]string{true: "0.5", false: "0.25"}[isExtra[atom]]; v != want {
			t.Errorf("%s: %s, want %s", atom, v, want)
		}
		p := mln.PredID(-1)
		for _, pr := range m.Preds {
			if strings.HasPrefix(atom, pr.Name+"(") {
				p = pr.ID
			}
		}
		if p < prev {
			t.Errorf("%s after the atoms of a later predicate", atom)
		}
		if r, ok := listed[p][atom]; ok {
			if p == prev && r < last[p] {
				t.Errorf("%s (rank %d) after rank %d", atom, r, last[p])
			}
			last[p] = r
		}
		prev = p
	}
	for p, atoms := range listed {
		for s := range atoms {
			if _, ok := pos[s]; !ok {
				t.Errorf("%s not written", s)
			}
		}
		if _, ok := last[p]; !ok {
			t.Errorf("no atom of %s written", m.Preds[p].Name)
		}
	}
	if t.Failed() {
		t.Logf("written:\n%s", b.String())
	}
}
