package invent

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/mrcgen"
	"github.com/marple-mln/marple/mln"
)

func load(t *testing.T, mlnText, dbText string, closed bool) *Data {
	t.Helper()
	m, err := mln.ParseModel("t.mln", mlnText)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "t.db", dbText)
	if err != nil {
		t.Fatal(err)
	}
	d, err := FromDatabases(m, []*mln.Database{db}, closed)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(a)+math.Abs(b)) }

func TestClosedFormWeight(t *testing.T) {
	// 3 true and 1 false atom, prior rate 0.5, beta 1: p = 3.5/5.
	if got := Rate(3, 1, 0.5, 1); !near(got, 0.7) {
		t.Errorf("Rate = %v, want 0.7", got)
	}
	if got, want := Weight(3, 1, 0.5, 1), math.Log(3.5/1.5); !near(got, want) {
		t.Errorf("Weight = %v, want %v", got, want)
	}
	if got, want := LogLik(3, 1, 0.5, 1), 3*math.Log(0.7)+math.Log(0.3); !near(got, want) {
		t.Errorf("LogLik = %v, want %v", got, want)
	}
	// The weight is the log-odds of the rate.
	p := Rate(7, 2, 0.2, 3)
	if got := Weight(7, 2, 0.2, 3); !near(got, math.Log(p/(1-p))) {
		t.Errorf("Weight %v is not the log-odds of Rate %v", got, p)
	}
	tb := newLLTable(10, 0.2, 3)
	if got, want := tb.ll(7, 2), LogLik(7, 2, 0.2, 3); !near(got, want) {
		t.Errorf("table %v, LogLik %v", got, want)
	}
	if LogLik(0, 0, 0.3, 1) != 0 {
		t.Error("an empty combination contributes")
	}
}

const tinyMLN = "A(person)\nB(person)\n"

// A holds for a and b, B for c and d (closed world: the rest false).
const tinyDB = "A(Pa)\nA(Pb)\nB(Pc)\nB(Pd)\n"

func TestLogPosteriorByHand(t *testing.T) {
	d := load(t, tinyMLN, tinyDB, true)
	if len(d.Groups) != 1 || d.Groups[0].Len() != 8 {
		t.Fatalf("groups %d, atoms %d; want 1 group of 8 atoms", len(d.Groups), d.Groups[0].Len())
	}
	// pi = (4+1)/(8+2).
	if d.Groups[0].Rate != 0.5 {
		t.Fatalf("rate %v, want 0.5", d.Groups[0].Rate)
	}
	opt := Options{Lambda: 2, Beta: 1, Seed: 1}.WithDefaults()
	pr := rootProblem(d, opt)
	p, err := newPrep(d, pr, opt)
	if err != nil {
		t.Fatal(err)
	}
	// One cluster per set: 4 true, 4 false atoms in one combination.
	st := newState(p, p.trivial())
	if want := 4*math.Log(4.5/9) + 4*math.Log(4.5/9); !near(st.ll, want) || !near(st.score(), want) {
		t.Errorf("trivial: ll %v score %v, want %v", st.ll, st.score(), want)
	}
	// {A},{B} x {a,b},{c,d}: four pure combinations of two atoms, each
	// 2·log(2.5/3); two clusters beyond one per set cost 2·lambda.
	sets := map[string]int{}
	for s, ps := range pr.sets {
		sets[d.Domains[ps.dom].Name] = s
	}
	assign := p.trivial()
	for x, sym := range pr.sets[sets["person"]].members {
		if n := d.SymbolName(pr.sets[sets["person"]].dom, sym); n == "Pc" || n == "Pd" {
			assign[sets["person"]][x] = 1
		}
	}
	for x, sym := range pr.sets[sets["pred(person)"]].members {
		if d.SymbolName(pr.sets[sets["pred(person)"]].dom, sym) == "B" {
			assign[sets["pred(person)"]][x] = 1
		}
	}
	st = newState(p, assign)
	ll := 4 * 2 * math.Log(2.5/3)
	if !near(st.ll, ll) || !near(st.score(), ll-2*2) {
		t.Errorf("planted: ll %v score %v, want %v and %v", st.ll, st.score(), ll, ll-4)
	}
	// MRC finds it, and the model's log-posterior is the same sum.
	m, err := Learn(context.Background(), d, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.LogPosterior(); !near(got, ll-4) {
		t.Errorf("LogPosterior %v, want %v", got, ll-4)
	}
	if got, want := m.Prob(m.Data.Model.Preds[0].ID, []mln.ConstID{mustConst(t, d, "Pa")}), 2.5/3; !near(got, want) {
		t.Errorf("P(A(Pa)) = %v, want %v", got, want)
	}
}

func mustConst(t *testing.T, d *Data, name string) mln.ConstID {
	c, ok := d.Model.Const(name)
	if !ok {
		t.Fatalf("no constant %s", name)
	}
	return c
}

// TestIncrementalCounts checks the counts and log-likelihood kept up to date
// by moves against a recount from scratch, on random binary data where a
// set fills two positions (reflexive atoms included).
func TestIncrementalCounts(t *testing.T) {
	var db strings.Builder
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"Pa", "Pb", "Pc", "Pd", "Pe"}
	for _, r := range []string{"R", "S", "T"} {
		for _, x := range names {
			for _, y := range names {
				if rng.IntN(3) == 0 {
					db.WriteString(r + "(" + x + "," + y + ")\n")
				}
			}
		}
	}
	d := load(t, "R(person,person)\nS(person,person)\nT(person,person)\n", db.String(), true)
	opt := Options{Seed: 1}.WithDefaults()
	p, err := newPrep(d, rootProblem(d, opt), opt)
	if err != nil {
		t.Fatal(err)
	}
	st := newState(p, p.trivial())
	for i := 0; i < 200; i++ {
		s := rng.IntN(len(st.assign))
		x := int32(rng.IntN(len(st.assign[s])))
		b := int32(rng.IntN(3))
		before := st.score()
		d := st.move(s, x, b)
		if !near(st.score()-before, d) {
			t.Fatalf("move %d: returned delta %v, score changed by %v", i, d, st.score()-before)
		}
		fresh := newState(p, cloneAssign(st.assign))
		if !near(fresh.ll, st.ll) || !near(fresh.score(), st.score()) {
			t.Fatalf("move %d: incremental ll %v, recount %v", i, st.ll, fresh.ll)
		}
	}
}

func cloneAssign(a [][]int32) [][]int32 {
	out := make([][]int32, len(a))
	for i := range a {
		out[i] = append([]int32(nil), a[i]...)
	}
	return out
}

// partition groups the symbols by the leaf combinations their atoms fall in
// for the given predicates (or, for predicates, for every person).
func partition(t *testing.T, m *Model, people []string, preds []string, byPerson bool) [][]string {
	t.Helper()
	d := m.Data
	sig := map[string][]string{}
	var buf [4]int32
	items := people
	if !byPerson {
		items = preds
	}
	for _, item := range items {
		var key strings.Builder
		others := preds
		if !byPerson {
			others = people
		}
		for _, o := range others {
			person, pred := item, o
			if !byPerson {
				person, pred = o, item
			}
			p, _ := d.Model.Pred(pred)
			g, local, ok := d.locate(p.ID, []mln.ConstID{mustConst(t, d, person)}, buf[:0])
			if !ok {
				t.Fatalf("cannot locate %s(%s)", pred, person)
			}
			leaf, ok := m.find(g, local)
			if !ok {
				t.Fatalf("%s(%s) has no leaf", pred, person)
			}
			key.WriteString(leafID(leaf))
		}
		sig[key.String()] = append(sig[key.String()], item)
	}
	var out [][]string
	for _, v := range sig {
		sort.Strings(v)
		out = append(out, v)
	}
	return canon(out)
}

// leafID identifies a leaf combination.
func leafID(l Leaf) string { return fmt.Sprintf("%p/%p|", l.Group, l.Combo) }

func canon(p [][]string) [][]string {
	for _, c := range p {
		sort.Strings(c)
	}
	sort.Slice(p, func(i, j int) bool { return p[i][0] < p[j][0] })
	return p
}

func samePartition(a, b [][]string) bool {
	a, b = canon(a), canon(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], ",") != strings.Join(b[i], ",") {
			return false
		}
	}
	return true
}

func flat(groups [][]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// TestRecoversCrossCuttingClusterings plants the slides' example: friend
// groups decide hobbies, teams of co-workers decide skills, and the two
// cross-cut. MRC must separate hobbies from skills at the top and cluster
// the people by friend group among the hobby atoms and by team among the
// skill atoms: the partitions of the people induced by the leaf
// combinations of the hobby atoms and of the skill atoms are exactly the
// planted ones, and so are the partitions of the predicates. (Hobbies and
// skills have different rates of true atoms in these configurations: that
// is what lets the top level split the predicates alone first.) The
// options are the defaults (λ 3, β 3, up to 6 clusters per set and node).
// On the default configuration the split of the predicates alone does not
// pay for its cluster at the root (its gain is below λ): the lookahead
// weighs it, with its combinations' gains, against clustering everything
// at the root, which reaches a log-posterior of -52.3 against the planted
// structure's -34.6.
func TestRecoversCrossCuttingClusterings(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		for _, cfg := range []mrcgen.Config{mrcgen.Default, {Friends: 4, Teams: 2, PerCell: 2, Hobbies: 2, Skills: 3, Seed: 5}} {
			g := mrcgen.Generate(cfg)
			d := load(t, g.MLN, g.DB, true)
			m, err := Learn(context.Background(), d, Options{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			hobbies, skills := flat(g.HobbyGroups), flat(g.SkillGroups)
			checks := []struct {
				what      string
				got, want [][]string
			}{
				{"people by hobbies", partition(t, m, g.People, hobbies, true), g.Friends},
				{"people by skills", partition(t, m, g.People, skills, true), g.Teams},
				{"hobbies", partition(t, m, g.People, hobbies, false), g.HobbyGroups},
				{"skills", partition(t, m, g.People, skills, false), g.SkillGroups},
			}
			for _, c := range checks {
				if !samePartition(c.got, c.want) {
					var rep bytes.Buffer
					m.WriteReport(&rep, 5)
					t.Errorf("seed %d %+v: %s: got %v, want %v\n%s", seed, cfg, c.what, c.got, c.want, rep.String())
				}
			}
			// Every node's rules shrink toward the group's rate; an empty
			// combination predicts the rate of the combination refined.
			var walk func(n *Node, parent float64)
			walk = func(n *Node, parent float64) {
				for _, ng := range n.Groups {
					if ng.Prior != d.Groups[ng.Group].Rate || ng.Parent != parent {
						t.Errorf("node prior %v parent %v, want %v and %v", ng.Prior, ng.Parent, d.Groups[ng.Group].Rate, parent)
					}
					for _, c := range ng.Combos {
						if c.Child != nil {
							walk(c.Child, Rate(c.True, c.False, ng.Prior, m.Opt.Beta))
						}
					}
				}
			}
			walk(m.Root, d.Groups[0].Rate)
			// The root clusters the predicates only: the people's two
			// clusterings live in different combinations.
			for _, s := range m.Root.Sets {
				if !d.Domains[s.Domain].Pred && len(s.Clusters) != 1 {
					t.Errorf("seed %d: the root splits the people: %v", seed, s.Clusters)
				}
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	g := mrcgen.Generate(mrcgen.Config{Friends: 3, Teams: 2, PerCell: 3, Hobbies: 3, Skills: 3, Noise: 0.1, Seed: 9})
	var outs []string
	for _, workers := range []int{1, 2, 4, 1} {
		d := load(t, g.MLN, g.DB, true)
		m, err := Learn(context.Background(), d, Options{Seed: 7, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.WriteMLN(&b, "C"); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteDB(&b, "C"); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.String())
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] {
			t.Fatalf("run %d differs from run 0", i)
		}
	}
}

// TestOpenWorldSkipsUnlisted: with closed false only listed atoms train,
// and an unlisted atom is predicted from its combination.
func TestOpenWorld(t *testing.T) {
	d := load(t, tinyMLN, "A(Pa)\n!A(Pc)\nB(Pc)\n!B(Pa)\n!B(Pb)\n", false)
	if n := d.Groups[0].Len(); n != 5 {
		t.Fatalf("%d training atoms, want 5", n)
	}
	m, err := Learn(context.Background(), d, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := d.Model.Pred("A")
	if got := m.Prob(p.ID, []mln.ConstID{mustConst(t, d, "Pb")}); got <= 0 || got >= 1 {
		t.Errorf("P(A(Pb)) = %v", got)
	}
}

// TestTune: Tune scores every grid point on held-out slices that are
// disjoint from the atoms they learn on and from each other, keeps the most
// regularised point within one standard error of the best, and is
// deterministic.
func TestTune(t *testing.T) {
	g := mrcgen.Generate(mrcgen.Config{Friends: 3, Teams: 2, PerCell: 3, Hobbies: 3, Skills: 3, Noise: 0.1, Seed: 9})
	d := load(t, g.MLN, g.DB, true)
	seen := map[string]int{}
	for s := 0; s < 3; s++ {
		train, held := d.split(0.2, s, 1)
		n, h := 0, 0
		for gi := range d.Groups {
			n += train.Groups[gi].Len()
			h += len(held.truth[gi])
			w := d.Groups[gi].Arity() + 1
			for a := range held.truth[gi] {
				k := fmt.Sprint(gi, held.atoms[gi][a*w:(a+1)*w])
				if prev, ok := seen[k]; ok {
					t.Fatalf("atom %s held out in slices %d and %d", k, prev, s)
				}
				seen[k] = s
			}
		}
		if n+h != d.Groups[0].Len() || h == 0 || n == 0 {
			t.Fatalf("split %d: %d + %d atoms of %d", s, n, h, d.Groups[0].Len())
		}
	}
	grid := TuneGrid{Lambdas: []float64{1, 10}, Betas: []float64{3, 30}, Holdout: 0.2, Slices: 3}
	var first Options
	for run := 0; run < 2; run++ {
		opt, rs, err := Tune(context.Background(), d, Options{Seed: 3, Restarts: 4}, grid)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 4 {
			t.Fatalf("%d results", len(rs))
		}
		best := rs[0]
		for _, r := range rs {
			if r.CLL > 0 || r.CLL < math.Log(1e-4) || len(r.SliceCLL) != 3 {
				t.Fatalf("held-out CLL %v", r)
			}
			if r.CLL > best.CLL {
				best = r
			}
		}
		var chosen *TuneResult
		for i, r := range rs {
			if r.Lambda == opt.Lambda && r.Beta == opt.Beta {
				chosen = &rs[i]
			}
		}
		if chosen == nil || chosen.Gap > chosen.SE {
			t.Fatalf("chose %v/%v, not within noise of the best of %v", opt.Lambda, opt.Beta, rs)
		}
		if chosen.AUCGap > chosen.AUCSE {
			t.Fatalf("chose %v/%v, not within noise of the best AUC-PR: %v", opt.Lambda, opt.Beta, rs)
		}
		for _, r := range rs {
			if r.Gap <= r.SE && r.AUCGap <= r.AUCSE && (r.Lambda > opt.Lambda || r.Lambda == opt.Lambda && r.Beta > opt.Beta) {
				t.Fatalf("chose %v/%v, but %v/%v is within noise and more regularised: %v", opt.Lambda, opt.Beta, r.Lambda, r.Beta, rs)
			}
		}
		if run == 0 {
			first = opt
		} else if opt != first {
			t.Fatalf("not deterministic: %+v then %+v", first, opt)
		}
	}
}

// TestChooseTuned: the best mean CLL wins unless other points are within
// one standard error (paired per atom) of it; among those, the best
// AUC-PR, unless more regularised points are within one standard error of
// it.
func TestChooseTuned(t *testing.T) {
	mk := func(l, b float64, slices ...[]float64) TuneResult {
		r := TuneResult{Lambda: l, Beta: b, logProbs: slices}
		for _, s := range slices {
			r.SliceCLL = append(r.SliceCLL, meanOf(s))
		}
		return r
	}
	rng := rand.New(rand.NewPCG(1, 1))
	base := make([][]float64, 3)
	worse := make([][]float64, 3)
	noisy := make([][]float64, 3)
	for s := range base {
		for i := 0; i < 200; i++ {
			x := -rng.Float64()
			base[s] = append(base[s], x)
			worse[s] = append(worse[s], x-0.01)
			noisy[s] = append(noisy[s], x-0.001+0.1*rng.NormFloat64())
		}
	}
	// λ 10 is worse on every atom: λ 3 kept.
	rs := []TuneResult{mk(3, 3, base...), mk(10, 3, worse...)}
	if i := chooseTuned(rs); i != 0 || rs[1].Gap <= rs[1].SE {
		t.Errorf("consistent gap: chose %d (%+v)", i, rs)
	}
	// λ 10 is slightly worse on average, far within the atoms' noise.
	rs = []TuneResult{mk(3, 3, base...), mk(10, 3, noisy...)}
	if i := chooseTuned(rs); i != 1 {
		t.Errorf("gap within noise: chose %d (%+v)", i, rs)
	}
	// β 10 within noise too: the largest λ still comes first.
	rs = []TuneResult{mk(3, 10, noisy...), mk(3, 3, base...), mk(10, 3, noisy...)}
	if i := chooseTuned(rs); i != 2 {
		t.Errorf("two within noise: chose %d (%+v)", i, rs)
	}
	// Within the CLL's noise, λ 3 ranks the atoms better on every slice.
	rs = []TuneResult{mk(3, 3, base...), mk(10, 3, noisy...)}
	rs[0].SliceAUCPR = []float64{0.85, 0.83, 0.86}
	rs[1].SliceAUCPR = []float64{0.80, 0.79, 0.82}
	if i := chooseTuned(rs); i != 0 || rs[1].AUCGap <= rs[1].AUCSE {
		t.Errorf("AUC-PR breaks the tie: chose %d (%+v)", i, rs)
	}
	// Not on every slice: within noise again, λ 10.
	rs[1].SliceAUCPR = []float64{0.80, 0.85, 0.86}
	if i := chooseTuned(rs); i != 1 {
		t.Errorf("AUC-PR within noise: chose %d (%+v)", i, rs)
	}
}

// TestReadOrder: the same planted data split into four databases, read
// with the databases, the atoms within them and so the constants in
// different orders, gives the same tuning and a byte-identical model.
func TestReadOrder(t *testing.T) {
	g := mrcgen.Generate(mrcgen.Config{Friends: 3, Teams: 2, PerCell: 3, Hobbies: 2, Skills: 2, Noise: 0.1, Seed: 5})
	m0, err := mln.ParseModel("t.mln", g.MLN)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string]bool{}
	for _, l := range strings.Split(g.DB, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			truth[l] = true
		}
	}
	// Every ground atom, listed true or false, dealt to four folds.
	folds := make([][]string, 4)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range m0.Preds {
		for _, x := range g.People {
			a := p.Name + "(" + x + ")"
			if !truth[a] {
				a = "!" + a
			}
			k := rng.IntN(4)
			folds[k] = append(folds[k], a)
		}
	}
	run := func(order []int, shuffle uint64) (string, Options) {
		m, err := mln.ParseModel("t.mln", g.MLN)
		if err != nil {
			t.Fatal(err)
		}
		var dbs []*mln.Database
		for _, k := range order {
			lines := append([]string(nil), folds[k]...)
			if shuffle > 0 {
				r := rand.New(rand.NewPCG(shuffle, uint64(k)))
				r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			}
			db, err := mln.ParseDatabase(m, fmt.Sprintf("fold%d.db", k), strings.Join(lines, "\n")+"\n")
			if err != nil {
				t.Fatal(err)
			}
			dbs = append(dbs, db)
		}
		d, err := FromDatabases(m, dbs, false)
		if err != nil {
			t.Fatal(err)
		}
		opt, _, err := Tune(context.Background(), d, Options{Seed: 2, Restarts: 3}, TuneGrid{Lambdas: []float64{1, 3}, Betas: []float64{1, 3}, Holdout: 0.2, Slices: 3})
		if err != nil {
			t.Fatal(err)
		}
		model, err := Learn(context.Background(), d, opt)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := model.WriteMLN(&b, "C"); err != nil {
			t.Fatal(err)
		}
		if err := model.WriteDB(&b, "C"); err != nil {
			t.Fatal(err)
		}
		if err := model.WriteReport(&b, 10); err != nil {
			t.Fatal(err)
		}
		return b.String(), opt
	}
	want, wopt := run([]int{0, 1, 2, 3}, 0)
	for i, order := range [][]int{{3, 2, 1, 0}, {2, 0, 3, 1}, {1, 3, 0, 2}} {
		got, opt := run(order, uint64(i+1))
		if opt != wopt {
			t.Errorf("order %v: tuned λ %g β %g, not λ %g β %g", order, opt.Lambda, opt.Beta, wopt.Lambda, wopt.Beta)
		}
		if got != want {
			t.Errorf("order %v: the model differs:\n%s\nwant:\n%s", order, got, want)
		}
	}
}
