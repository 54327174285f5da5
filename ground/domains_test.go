package ground_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// randomDomains restricts some types of m with at least two constants to a
// random subset in random order, keeping the constants the formulas
// (text src) mention. It returns nil when it restricted nothing.
func randomDomains(r *rand.Rand, m *mln.Model, src string) map[mln.TypeID][]mln.ConstID {
	mentioned := map[mln.ConstID]bool{}
	for _, line := range strings.Split(src, "\n") {
		if strings.Contains(line, "{") {
			continue // a type declaration
		}
		for _, w := range regexp.MustCompile(`[A-Za-z0-9_]+`).FindAllString(line, -1) {
			if k, ok := m.Const(w); ok {
				mentioned[k] = true
			}
		}
	}
	for _, cl := range m.Clauses {
		for _, l := range cl.Lits {
			for _, a := range l.Args {
				if !a.IsVar() {
					mentioned[a.Const()] = true
				}
			}
		}
	}
	doms := map[mln.TypeID][]mln.ConstID{}
	for _, typ := range m.Types {
		n := typ.Size()
		if n < 2 || r.IntN(4) == 0 {
			continue
		}
		k := r.IntN(n)
		d := []mln.ConstID{}
		for i, j := range r.Perm(n) {
			if c := typ.Consts[j]; i < k || mentioned[c] {
				d = append(d, c)
			}
		}
		doms[typ.ID] = d
	}
	if len(doms) == 0 {
		return nil
	}
	return doms
}

// TestDomainsBrute grounds random MLNs with some types' domains restricted
// (Options.Domains) and compares the network with brute force over the
// restricted domains in every world, with the grounding of the model
// rewritten so that those types have only the given constants, across
// worker counts, and with incremental grounding of the last clause.
func TestDomainsBrute(t *testing.T) {
	ctx := context.Background()
	worlds, cases, rewritten, empty := 0, 0, 0, 0
	for seed := int64(0); seed < 200; seed++ {
		c := randmln.Generate(5000 + seed)
		m, db, query, ow, err := c.Load()
		if err != nil {
			t.Fatalf("%v\n%v", err, c)
		}
		r := rand.New(rand.NewPCG(uint64(seed), 31))
		doms := randomDomains(r, m, c.MLN)
		if doms == nil {
			continue
		}
		cases++
		for _, d := range doms {
			if len(d) == 0 {
				empty++
			}
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("%s\ndomains %s\n%v\nclauses:\n%s", fmt.Sprintf(format, args...), domString(m, doms), c, dumpClauses(m))
		}
		opt := ground.Options{Query: query, OpenWorld: ow, Workers: 1 + int(seed%3), Domains: doms}
		sizes := make([]int, len(m.Types))
		for i, typ := range m.Types {
			sizes[i] = typ.Size()
		}
		net, err := ground.Ground(ctx, m, db, opt)
		if err != nil {
			fail("Ground: %v", err)
		}
		for i, typ := range m.Types {
			if typ.Size() != sizes[i] {
				fail("Ground changed the domain of %s", typ.Name)
			}
		}

		// Determinism across worker counts, and incremental grounding of
		// the last clause, with the domains.
		checkRegrounding(ctx, fail, c, opt, seed, net, false)

		// The model whose types have only the given constants.
		if compareRewritten(t, fail, ctx, c, m, doms, opt, net) {
			rewritten++
		}

		worlds += checkWorlds(t, fail, seed, m, db, query, ow, doms, net)
	}
	if cases < 100 || rewritten < 50 || empty == 0 {
		t.Errorf("only %d cases, %d rewritten, %d empty domains", cases, rewritten, empty)
	}
	t.Logf("%d cases (%d compared with a rewritten model, %d empty domains), %d worlds", cases, rewritten, empty, worlds)
}

func domString(m *mln.Model, doms map[mln.TypeID][]mln.ConstID) string {
	var parts []string
	for t, d := range doms {
		var names []string
		for _, c := range d {
			names = append(names, m.ConstName(c))
		}
		parts = append(parts, m.Types[t].Name+"={"+strings.Join(names, ",")+"}")
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// compareRewritten rewrites the case so that the restricted types declare
// only their given constants (in the given order) and the evidence about
// the others is dropped, grounds it, and compares it with net (ground with
// the domains) in every world: same atoms, score, hard violations and
// counts, atoms and parameters matched by name. It reports false when it
// skipped the comparison (an empty domain cannot be written).
func compareRewritten(t *testing.T, fail func(string, ...any), ctx context.Context, c *randmln.Case, m *mln.Model,
	doms map[mln.TypeID][]mln.ConstID, opt ground.Options, net *ground.Network) bool {
	t.Helper()
	rc := *c
	removed := map[string]bool{}
	for tid, d := range doms {
		if len(d) == 0 {
			return false
		}
		typ := m.Types[tid]
		var names []string
		keep := map[mln.ConstID]bool{}
		for _, k := range d {
			names = append(names, m.ConstName(k))
			keep[k] = true
		}
		for _, k := range typ.Consts {
			if !keep[k] {
				removed[m.ConstName(k)] = true
			}
		}
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(typ.Name) + ` = \{.*\}$`)
		if !re.MatchString(rc.MLN) {
			fail("no declaration of %s", typ.Name)
		}
		rc.MLN = re.ReplaceAllLiteralString(rc.MLN, typ.Name+" = {"+strings.Join(names, ", ")+"}")
	}
	var db strings.Builder
	for _, line := range strings.Split(c.DB, "\n") {
		open, end := strings.IndexByte(line, '('), strings.IndexByte(line, ')')
		drop := false
		if open >= 0 && end > open {
			for _, a := range strings.Split(line[open+1:end], ",") {
				if removed[strings.TrimSpace(a)] {
					drop = true
				}
			}
		}
		if !drop {
			db.WriteString(line + "\n")
		}
	}
	rc.DB = db.String()
	m2, db2, q2, ow2, err := rc.Load()
	if err != nil {
		fail("rewritten case: %v\n%v", err, &rc)
	}
	for tid, d := range doms {
		typ, _ := m2.Type(m.Types[tid].Name)
		if typ.Size() != len(d) {
			fail("rewritten type %s has %d constants, want %d", typ.Name, typ.Size(), len(d))
		}
	}
	opt2 := opt
	opt2.Domains, opt2.Query, opt2.OpenWorld = nil, q2, ow2
	net2, err := ground.Ground(ctx, m2, db2, opt2)
	if err != nil {
		fail("Ground the rewritten model: %v", err)
	}
	if net.NumAtoms() != net2.NumAtoms() {
		fail("%d atoms with domains, %d in the rewritten model", net.NumAtoms(), net2.NumAtoms())
	}
	atomName := func(mm *mln.Model, n *ground.Network, a int) string {
		var args []string
		for _, k := range n.AtomArgs[a] {
			args = append(args, mm.ConstName(k))
		}
		return mm.Preds[n.AtomPred[a]].Name + "(" + strings.Join(args, ",") + ")"
	}
	idx2 := map[string]int{}
	for a := 0; a < net2.NumAtoms(); a++ {
		idx2[atomName(m2, net2, a)] = a
	}
	to2 := make([]int, net.NumAtoms())
	for a := range to2 {
		b, ok := idx2[atomName(m, net, a)]
		if !ok {
			fail("atom %s is not in the rewritten model's network", atomName(m, net, a))
		}
		to2[a] = b
	}
	// Weights by formula and binding names, the same in both models.
	paramName := func(mm *mln.Model, p int) string {
		var names []string
		for _, k := range mm.ParamBinding[p] {
			names = append(names, mm.ConstName(k))
		}
		return fmt.Sprintf("%d:%s", mm.ParamFormula[p], strings.Join(names, ","))
	}
	weight := func(s string) float64 {
		h := fnv.New32a()
		h.Write([]byte(s))
		return float64(h.Sum32()%4001)/1000 - 2
	}
	for _, mm := range []*mln.Model{m, m2} {
		for f, fm := range mm.Formulas {
			if !fm.Hard {
				fm.Weight = weight(fmt.Sprint("formula", f))
			}
		}
		for p := range mm.Weights {
			mm.Weights[p] = weight(paramName(mm, p))
		}
	}
	net.SetWeights()
	net2.SetWeights()
	y := make([]bool, net.NumAtoms())
	y2 := make([]bool, net2.NumAtoms())
	for w := 0; w < 1<<net.NumAtoms(); w++ {
		for a := range y {
			y[a] = w&(1<<a) != 0
			y2[to2[a]] = y[a]
		}
		s, h := net.Score(y)
		s2, h2 := net2.Score(y2)
		if !close(s, s2) || h != h2 {
			fail("world %d: score %v (hard %d) with domains, %v (hard %d) in the rewritten model", w, s, h, s2, h2)
		}
		counts := map[string]float64{}
		for p, v := range net.Counts(y) {
			counts[paramName(m, p)] += v
		}
		for p, v := range net2.Counts(y2) {
			counts[paramName(m2, p)] -= v
		}
		for k, v := range counts {
			if !close(v, 0) {
				fail("world %d: parameter %s: counts differ by %v", w, k, v)
			}
		}
	}
	return true
}

// TestDomainsErrors checks the validation of Options.Domains.
func TestDomainsErrors(t *testing.T) {
	m, db, q := loadSmokers(t)
	ctx := context.Background()
	person, _ := m.Type("person")
	anna, _ := m.Const("Anna")
	bob, _ := m.Const("Bob")
	for _, tc := range []struct {
		doms map[mln.TypeID][]mln.ConstID
		want string
	}{
		{map[mln.TypeID][]mln.ConstID{7: {anna}}, "out of range"},
		{map[mln.TypeID][]mln.ConstID{person.ID: {anna, 999}}, "not of type"},
		{map[mln.TypeID][]mln.ConstID{person.ID: {anna, bob, anna}}, "twice"},
	} {
		if _, err := ground.Ground(ctx, m, db, ground.Options{Query: q, Domains: tc.doms}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Domains %v: error %v, want %q", tc.doms, err, tc.want)
		}
		if _, _, err := ground.Estimate(m, db, ground.Options{Query: q, Domains: tc.doms}); err == nil {
			t.Errorf("Estimate with Domains %v: no error", tc.doms)
		}
	}
	// A clause constant outside the given domain.
	m2, err := mln.ParseModel("c.mln", "person = {Anna, Bob}\nSmokes(person)\n1 Smokes(Anna)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.Compile(); err != nil {
		t.Fatal(err)
	}
	p2, _ := m2.Type("person")
	s2, _ := m2.Pred("Smokes")
	bob2, _ := m2.Const("Bob")
	_, err = ground.Ground(ctx, m2, mln.NewDatabase(m2), ground.Options{Query: []mln.PredID{s2.ID}, Domains: map[mln.TypeID][]mln.ConstID{p2.ID: {bob2}}})
	if err == nil || !strings.Contains(err.Error(), "Anna") || !strings.Contains(err.Error(), "Domains") {
		t.Errorf("clause constant outside the domain: %v", err)
	}
}

// TestDomainsSmokers restricts the smokers example to two people and checks
// the query atoms, AtomID, and that the model's domains are untouched.
func TestDomainsSmokers(t *testing.T) {
	m, db, q := loadSmokers(t)
	person, _ := m.Type("person")
	bob, _ := m.Const("Bob")
	chris, _ := m.Const("Chris")
	dan, _ := m.Const("Dan")
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q, Domains: map[mln.TypeID][]mln.ConstID{person.ID: {chris, bob}}})
	if err != nil {
		t.Fatal(err)
	}
	if person.Size() != 4 {
		t.Fatalf("person has %d constants after grounding", person.Size())
	}
	for a := 0; a < net.NumAtoms(); a++ {
		for _, k := range net.AtomArgs[a] {
			if k != bob && k != chris {
				t.Fatalf("atom %d has argument %s outside the domain", a, m.ConstName(k))
			}
		}
	}
	// Smokes(Chris) is evidence: Smokes(Bob), Cancer(Chris), Cancer(Bob)
	// are the query atoms, Chris first (the given order).
	if net.NumAtoms() < 3 || net.AtomArgs[0][0] != bob {
		t.Fatalf("%d atoms, first %v", net.NumAtoms(), net.AtomArgs)
	}
	smokes, _ := m.Pred("Smokes")
	if _, ok := net.AtomID(smokes.ID, []mln.ConstID{dan}); ok {
		t.Error("AtomID found Smokes(Dan)")
	}
	if a, ok := net.AtomID(smokes.ID, []mln.ConstID{bob}); !ok || a != 0 {
		t.Errorf("AtomID(Smokes(Bob)) = %d, %v", a, ok)
	}
}

// TestSharedEvidence grounds random MLNs with the atoms of some predicates
// moved to a SharedEvidence, twice (the second time from its cache), with
// and without restricted domains, and compares with grounding the whole
// database.
func TestSharedEvidence(t *testing.T) {
	ctx := context.Background()
	cached := 0
	for seed := int64(0); seed < 150; seed++ {
		c := randmln.Generate(7000 + seed)
		r := rand.New(rand.NewPCG(uint64(seed), 41))
		m, db, query, ow, err := c.Load()
		if err != nil {
			t.Fatalf("%v\n%v", err, c)
		}
		var doms map[mln.TypeID][]mln.ConstID
		if seed%2 == 1 {
			doms = randomDomains(r, m, c.MLN)
		}
		opt := ground.Options{Query: query, OpenWorld: ow, Workers: 2, Domains: doms}
		want, err := ground.Ground(ctx, m, db, opt)
		if err != nil {
			t.Fatalf("Ground: %v\n%v", err, c)
		}
		// Move some predicates' atoms to the shared evidence (the local
		// database keeps a few of them, which must be ignored).
		m2, db2, _, _, _ := c.Load()
		var preds []mln.PredID
		local, shared := mln.NewDatabase(m2), mln.NewDatabase(m2)
		for p := range m2.Preds {
			pid := mln.PredID(p)
			sh := r.IntN(2) == 0
			if sh {
				preds = append(preds, pid)
			}
			db2.Atoms(pid, func(args []mln.ConstID, v mln.Truth) {
				if !sh {
					local.Set(pid, args, v)
					return
				}
				shared.Set(pid, args, v)
				if r.IntN(4) == 0 {
					local.Set(pid, args, mln.Truth((int(v)+1)%3))
				}
			})
		}
		se := ground.NewSharedEvidence(shared, preds)
		opt2 := opt
		opt2.Shared = se
		for round := 0; round < 2; round++ {
			got, err := ground.Ground(ctx, m2, local, opt2)
			if err != nil {
				t.Fatalf("Ground with shared evidence: %v\n%v", err, c)
			}
			if d := diffNetworks(want, got); d != "" {
				t.Fatalf("round %d: shared evidence changes the network: %s\n%v", round, d, c)
			}
		}
		if len(preds) > 0 {
			cached++
		}
	}
	if cached < 50 {
		t.Errorf("only %d cases with shared predicates", cached)
	}
}
