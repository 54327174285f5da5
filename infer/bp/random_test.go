package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// randomCase is a random MLN whose hard clauses some world satisfies,
// ground, with its exact marginals.
type randomCase struct {
	name  string
	m     *mln.Model
	db    *mln.Database
	query []mln.PredID
	open  bool // open-world predicates: LiftModel does not apply
	net   *ground.Network
	want  []float64
	hard  bool // the network has a hard clause
}

// randomCases returns n satisfiable random MLNs (internal/testkit/randmln)
// of at most maxAtoms unknown ground atoms, at least half of them with
// hard clauses.
func randomCases(t *testing.T, n, maxAtoms int) []randomCase {
	var out []randomCase
	withHard := 0
	for seed := int64(0); len(out) < n; seed++ {
		c := randmln.GenerateConfig(seed, randmln.Config{MaxUnknown: maxAtoms})
		m, db, query, ow, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if net.NumAtoms() == 0 || net.NumAtoms() > maxAtoms || net.HardFalse > 0 {
			continue
		}
		if _, _, h := brute.MAP(net); h > 0 {
			continue // unsatisfiable
		}
		rc := randomCase{name: fmt.Sprintf("randmln seed %d", seed), m: m, db: db, query: query, open: len(ow) > 0, net: net}
		for c := 0; c < net.NumClauses(); c++ {
			rc.hard = rc.hard || math.IsInf(net.Weight(c), 1)
		}
		if rc.hard {
			withHard++
		} else if 2*(len(out)-withHard) >= n {
			continue // half the cases have hard clauses
		}
		rc.want = brute.Marginals(net)
		out = append(out, rc)
	}
	return out
}

// tally counts a variant's outcomes on the random cases.
type tally struct {
	agree, flagged, wrong, flaggedWrong int
	notConverged                        int // of the flagged
	worstFlagged                        float64
}

// add records one run: the largest error of marginals p, and whether
// the run said it did not converge or is unreliable.
func (ty *tally) add(t *testing.T, variant, name string, p, want []float64, st *Stats) {
	t.Helper()
	e := 0.0
	for a := range want {
		e = math.Max(e, math.Abs(p[a]-want[a]))
	}
	switch {
	case !st.Reliable():
		ty.flagged++
		if !st.Converged {
			ty.notConverged++
		}
		if e > 0.05 {
			ty.flaggedWrong++
			ty.worstFlagged = math.Max(ty.worstFlagged, e)
		}
	case e <= 0.05:
		ty.agree++
	default:
		ty.wrong++
		t.Errorf("%s: %s: largest error %.3f, and the run says converged and confirmed (%+v)", variant, name, e, *st)
	}
}

// TestRandomMLNsAgreeOrSay checks every BP variant with the engine
// registry's settings (merged clauses, damping after 50 iterations, the
// MC-SAT check) on
// satisfiable random MLNs with hard clauses against enumeration: each
// either agrees with the exact marginals within 0.05 on every atom, or
// says that it did not converge or that the check did not confirm it.
// The check enumerates components this small exactly; the "sampled" runs
// make it sample them, as it does larger components.
func TestRandomMLNsAgreeOrSay(t *testing.T) {
	n, maxAtoms := 60, 10
	if testenv.Long() {
		n, maxAtoms = 300, 12
	}
	cases := randomCases(t, n, maxAtoms)
	ctx := context.Background()
	base := Options{Merge: true, DampAfter: 50, Check: 1000, Workers: 1}
	sampled := base
	sampled.checkExact = -1
	var ground, groundSampled, plain, lifted, model, frontier tally
	hard, unchecked := 0, tally{}
	for i, c := range cases {
		if c.hard {
			hard++
		}
		opt := base
		opt.Seed = int64(i)
		p, st, err := Marginals(ctx, c.net, opt)
		if err != nil {
			t.Fatal(err)
		}
		ground.add(t, "ground BP", c.name, p, c.want, st)

		// Unchecked, undamped, unmerged (the library's zero Options), and
		// merged and damped but unchecked: only counted, to show what
		// merging and the check add.
		p, st, err = Marginals(ctx, c.net, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if e := maxErr(p, c.want); st.Converged && e > 0.05 {
			unchecked.wrong++
		}
		opt = base
		opt.Check = 0
		p, st, err = Marginals(ctx, c.net, opt)
		if err != nil {
			t.Fatal(err)
		}
		if e := maxErr(p, c.want); st.Converged && e > 0.05 {
			unchecked.flaggedWrong++
		}

		opt = sampled
		opt.Seed = int64(i)
		p, st, err = Marginals(ctx, c.net, opt)
		if err != nil {
			t.Fatal(err)
		}
		groundSampled.add(t, "ground BP, check sampled", c.name, p, c.want, st)

		// Merged and checked but not damped.
		opt = base
		opt.DampAfter = 0
		p, st, err = Marginals(ctx, c.net, opt)
		if err != nil {
			t.Fatal(err)
		}
		plain.add(t, "ground BP undamped", c.name, p, c.want, st)

		var lst *LiftedStats
		le := LiftedEngine{Options: base, Stats: func(s *LiftedStats) { lst = s }}
		le.DampAfter = 0
		p, err = le.Marginals(ctx, c.net, infer.Options{Seed: int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		lifted.add(t, "lifted BP (network)", c.name, p, c.want, &lst.Stats)

		f, err := Start(ctx, c.net, base)
		if err != nil {
			t.Fatal(err)
		}
		frontier.add(t, "expanding frontier BP", c.name, f.Marginals(), c.want, &f.Stats)

		if !c.open {
			mm, mst, err := LiftModel(ctx, c.m, c.db, c.query, Options{})
			if errors.Is(err, ErrNotLiftable) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			p := make([]float64, c.net.NumAtoms())
			for a := range p {
				p[a] = mm.Prob(c.net.AtomPred[a], c.net.AtomArgs[a])
			}
			st := mst.Stats
			st.Checked = true
			if st.Unreliable, st.CheckDiff, err = Check(ctx, c.net, p, Options{Options: infer.Options{Seed: int64(i)}, Workers: 1}); err != nil {
				t.Fatal(err)
			}
			model.add(t, "lifted BP (model)", c.name, p, c.want, &st)
		}
	}
	t.Logf("%d satisfiable random MLNs of at most %d atoms, %d with hard clauses", len(cases), maxAtoms, hard)
	t.Logf("converged more than 0.05 off: %d with the library's zero Options (no merging, damping or check), %d merged and damped", unchecked.wrong, unchecked.flaggedWrong)
	for _, r := range []struct {
		name string
		t    tally
	}{{"ground BP", ground}, {"ground BP, check sampled", groundSampled}, {"ground BP undamped", plain},
		{"lifted BP (network)", lifted}, {"lifted BP (model)", model}, {"expanding frontier BP", frontier}} {
		t.Logf("%-26s agree %3d, flagged %3d (%d not converged; %d more than 0.05 off, worst %.3f), wrong and not flagged %d",
			r.name, r.t.agree, r.t.flagged, r.t.notConverged, r.t.flaggedWrong, r.t.worstFlagged, r.t.wrong)
	}
	if hard < len(cases)/2 {
		t.Errorf("only %d of %d cases have hard clauses", hard, len(cases))
	}
}

func maxErr(p, want []float64) float64 {
	e := 0.0
	for a := range want {
		e = math.Max(e, math.Abs(p[a]-want[a]))
	}
	return e
}

// TestStrongNetworksAgreeOrSay is TestRandomMLNsAgreeOrSay on harder
// ground networks: 8 to 10 atoms, 12 to 20 clauses of one to three
// literals with weights up to ±5, one in four hard (satisfiable ones
// only), where loopy BP is often far off; the check enumerates them, or
// samples them ("check sampled").
func TestStrongNetworksAgreeOrSay(t *testing.T) {
	n := 60
	if testenv.Long() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(21, 22))
	ctx := context.Background()
	base := Options{Merge: true, DampAfter: 50, Check: 1000, Workers: 1}
	var groundBP, sampled, frontier, lifted tally
	offConverged := 0
	for i := 0; i < n; {
		na := 8 + rng.IntN(3)
		net := randomLoopy(rng, na, 12+rng.IntN(9), 5)
		hardNet := ground.NewNetwork(na)
		for c := 0; c < net.NumClauses(); c++ {
			w := net.Weight(c)
			if rng.IntN(4) == 0 {
				w = math.Inf(1)
			}
			hardNet.AddClause(net.Clause(c), w, -1, -1, 1)
		}
		if _, _, h := brute.MAP(hardNet); h > 0 {
			continue
		}
		i++
		want := brute.Marginals(hardNet)
		opt := base
		opt.Seed = int64(i)
		p, st, err := Marginals(ctx, hardNet, opt)
		if err != nil {
			t.Fatal(err)
		}
		groundBP.add(t, "ground BP", fmt.Sprint("network ", i), p, want, st)
		if st.Converged && maxErr(p, want) > 0.05 {
			offConverged++
		}
		so := opt
		so.checkExact = -1
		p, st, err = Marginals(ctx, hardNet, so)
		if err != nil {
			t.Fatal(err)
		}
		sampled.add(t, "ground BP, check sampled", fmt.Sprint("network ", i), p, want, st)
		f, err := Start(ctx, hardNet, opt)
		if err != nil {
			t.Fatal(err)
		}
		frontier.add(t, "expanding frontier BP", fmt.Sprint("network ", i), f.Marginals(), want, &f.Stats)
		var lst *LiftedStats
		le := LiftedEngine{Options: opt, Stats: func(s *LiftedStats) { lst = s }}
		le.DampAfter = 0
		p, err = le.Marginals(ctx, hardNet, infer.Options{Seed: int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		lifted.add(t, "lifted BP (network)", fmt.Sprint("network ", i), p, want, &lst.Stats)
	}
	t.Logf("%d satisfiable strong networks: %d converged more than 0.05 off (before the check)", n, offConverged)
	for _, r := range []struct {
		name string
		t    tally
	}{{"ground BP", groundBP}, {"ground BP, check sampled", sampled}, {"expanding frontier BP", frontier}, {"lifted BP (network)", lifted}} {
		t.Logf("%-26s agree %3d, flagged %3d (%d not converged; %d more than 0.05 off, worst %.3f), wrong and not flagged %d",
			r.name, r.t.agree, r.t.flagged, r.t.notConverged, r.t.flaggedWrong, r.t.worstFlagged, r.t.wrong)
	}
}
