package structure

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

const seqModesSrc = `
modep(2, InField(., ., -))
modep(2, Token(., +, .))
modep(1, Next(-, -))
modec(InField(v, c, v))
modec(Token(c, v, v))
`

// seqData returns n random sequences: words from a small vocabulary,
// field A up to and including the first Tdot, B after it; the evidence
// (Token, Next) and the truth (InField) in Alchemy syntax.
func seqData(seed int64, n, first int) string {
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	words := []string{"Ta", "Tb", "Tc", "Tdot"}
	var b strings.Builder
	for k := 0; k < 9; k++ {
		fmt.Fprintf(&b, "Next(P%d, P%d)\n", k+1, k)
	}
	for s := first; s < first+n; s++ {
		l := 4 + rng.IntN(6)
		field := "A"
		for k := 0; k < l; k++ {
			w := words[rng.IntN(len(words))]
			fmt.Fprintf(&b, "Token(%s, P%d, S%d)\nInField(S%d, %s, P%d)\n", w, k, s, s, field, k)
			if w == "Tdot" {
				field = "B"
			}
		}
	}
	return b.String()
}

var exactMAP = exact.Engine{Options: exact.Options{Workers: 1}}

func seqSource(t testing.TB, src string, seed int64, n int) (*mln.Model, *learn.PartitionSource, *Modes) {
	t.Helper()
	m, err := mln.ParseModel("seq.mln", src)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "train.db", seqData(seed, n, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	ms, err := ParseModes(m, "seq.modes", []byte(seqModesSrc))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := m.Pred("InField")
	seq, _ := m.Type("seq")
	ps, err := learn.NewPartitionSource(m, db, []mln.PredID{in.ID}, seq.ID, ground.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m, ps, ms
}

// accuracy tests the model's weights on fresh sequences: the fraction of
// tokens whose field is predicted exactly.
func accuracy(t testing.TB, m *mln.Model, seed int64) float64 {
	t.Helper()
	var buf bytes.Buffer
	if err := mln.WriteModel(&buf, m); err != nil {
		t.Fatal(err)
	}
	tm, err := mln.ParseModel("learned.mln", buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	data := seqData(seed, 30, 1000)
	var ev, truth strings.Builder
	for _, line := range strings.Split(data, "\n") {
		if strings.HasPrefix(line, "InField") {
			truth.WriteString(line + "\n")
		} else {
			ev.WriteString(line + "\n")
		}
	}
	edb, err := mln.ParseDatabase(tm, "test.db", ev.String())
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := mln.ParseDatabase(tm, "truth.db", truth.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := tm.Compile(); err != nil {
		t.Fatal(err)
	}
	in, _ := tm.Pred("InField")
	net, err := ground.Ground(context.Background(), tm, edb, ground.Options{Query: []mln.PredID{in.ID}})
	if err != nil {
		t.Fatal(err)
	}
	net.SetWeights()
	res, err := exactMAP.Solve(context.Background(), net, infer.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	y := res.Assign
	gold := net.Assignment(tdb)
	right, tokens := 0, 0
	tdb.Atoms(in.ID, func(args []mln.ConstID, v mln.Truth) {
		tokens++
		ok := true
		for _, f := range tm.Types[in.Args[1]].Consts {
			a, found := net.AtomID(in.ID, []mln.ConstID{args[0], f, args[2]})
			if found && y[a] != gold[a] {
				ok = false
			}
		}
		if ok {
			right++
		}
	})
	return float64(right) / float64(tokens)
}

// TestOSLLearnsChain: from a model with only the mutual exclusion, OSL
// finds the clauses of the labelling rule (A up to the first Tdot, B
// after) and labels fresh sequences well.
func TestOSLLearnsChain(t *testing.T) {
	ctx := context.Background()
	m, src, ms := seqSource(t, seqMLN, 1, 60)
	o := &OSL{Modes: ms, MinCountDiff: 1}
	st, err := o.Learn(ctx, src, learn.Settings{Solver: exactMAP, Loss: learn.Hamming, Passes: 2, Seed: 1, Shuffle: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Added == 0 || st.Candidates < st.Added || st.NonZero == 0 {
		t.Fatalf("stats %+v", st)
	}
	acc := accuracy(t, m, 2)
	t.Logf("OSL: %d candidates, %d added, %d non-zero, mistakes per pass %v, test accuracy %.3f", st.Candidates, st.Added, st.NonZero, st.PassMistakes, acc)
	if acc < 0.9 {
		t.Errorf("test accuracy %.3f after OSL", acc)
	}
	if st.PassMistakes[1] >= st.PassMistakes[0] {
		t.Errorf("mistakes per pass %v: no progress", st.PassMistakes)
	}

	// Determinism: the same run gives the same model.
	m2, src2, ms2 := seqSource(t, seqMLN, 1, 60)
	if _, err := (&OSL{Modes: ms2, MinCountDiff: 1}).Learn(ctx, src2, learn.Settings{Solver: exactMAP, Loss: learn.Hamming, Passes: 2, Seed: 1, Shuffle: true}); err != nil {
		t.Fatal(err)
	}
	var b1, b2 bytes.Buffer
	mln.WriteModel(&b1, m)
	mln.WriteModel(&b2, m2)
	if b1.String() != b2.String() {
		t.Fatal("two runs with the same seed learned different models")
	}
}

// TestOSLCountDiff: the Δn with which each new clause is selected and
// first updated equals n(x,y) − n(x,ŷ) of the grounder, recomputed on the
// example ground again with the clause in the model.
func TestOSLCountDiff(t *testing.T) {
	ctx := context.Background()
	for seed := int64(1); seed <= 5; seed++ {
		m, src, ms := seqSource(t, seqMLN, seed, 8)
		r := &oslRun{o: &OSL{Modes: ms}, m: m, src: src, maxLen: 4, minDiff: -1e9,
			known: map[string]bool{}, st: &OSLStats{}}
		for _, c := range m.Clauses {
			r.known[CanonicalKey(c)] = true
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 3))
		for i := 0; i < src.Len(); i++ {
			ex, err := src.Example(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			// A random prediction on the query atoms.
			yhat := make([]bool, len(ex.Truth))
			for a := range yhat {
				yhat[a] = ex.Query[a] && rng.IntN(2) == 0
			}
			before := len(m.Formulas)
			d, err := r.revise(i, ex, yhat)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Idx) != len(m.Formulas)-before {
				t.Fatalf("%d new parameters for %d new formulas", len(d.Idx), len(m.Formulas)-before)
			}
			ex2, err := src.Example(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			// Map the random prediction onto the new network's atoms.
			y2 := make([]bool, ex2.Net.NumAtoms())
			for a := range yhat {
				if yhat[a] {
					b, ok := ex2.Net.AtomID(ex.Net.AtomPred[a], ex.Net.AtomArgs[a])
					if !ok {
						t.Fatal("atom lost")
					}
					y2[b] = true
				}
			}
			ct, cp := ex2.Net.Counts(ex2.Truth), ex2.Net.Counts(y2)
			for k, p := range d.Idx {
				if got := ct[p] - cp[p]; got != d.Val[k] {
					t.Fatalf("seed %d example %d: clause %s: OSL Δn %v, grounder %v", seed, i,
						m.ClauseString(m.Clauses[m.Formulas[m.ParamFormula[p]].Clauses[0]]), d.Val[k], got)
				}
			}
		}
		if r.st.Added == 0 {
			t.Fatalf("seed %d: no clause added", seed)
		}
	}
}

// TestOSLResume: a run resumed from any of its checkpoints (through
// Write and ReadCheckpoint) on a fresh model learns the uninterrupted
// run's model, clauses and weights, and counts the same candidates.
func TestOSLResume(t *testing.T) {
	ctx := context.Background()
	settings := func() learn.Settings {
		return learn.Settings{Solver: exactMAP, Loss: learn.Hamming, Passes: 2, Seed: 3, Shuffle: true, CheckpointEvery: 7}
	}
	m, src, ms := seqSource(t, seqMLN, 4, 20)
	var saved [][]byte
	s := settings()
	s.Checkpoint = func(c *learn.Checkpoint) error {
		var b bytes.Buffer
		if err := c.Write(&b); err != nil {
			return err
		}
		saved = append(saved, b.Bytes())
		return nil
	}
	st, err := (&OSL{Modes: ms}).Learn(ctx, src, s)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	mln.WriteModel(&want, m)
	if len(saved) < 3 || st.Added == 0 {
		t.Fatalf("%d checkpoints, %d clauses added", len(saved), st.Added)
	}
	for k, b := range saved {
		c, err := learn.ReadCheckpoint(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		m2, src2, ms2 := seqSource(t, seqMLN, 4, 20)
		s := settings()
		s.Resume = c
		st2, err := (&OSL{Modes: ms2}).Learn(ctx, src2, s)
		if err != nil {
			t.Fatalf("checkpoint %d: %v", k, err)
		}
		var got bytes.Buffer
		mln.WriteModel(&got, m2)
		if got.String() != want.String() {
			t.Fatalf("resumed from checkpoint %d (step %d): the model differs:\n%s\n---\n%s", k, c.Steps, got.String(), want.String())
		}
		if st2.Candidates != st.Candidates || st2.Added != st.Added || st2.Steps != st.Steps {
			t.Errorf("checkpoint %d: stats %d/%d/%d, uninterrupted %d/%d/%d", k, st2.Candidates, st2.Added, st2.Steps, st.Candidates, st.Added, st.Steps)
		}
	}
	// A checkpoint of a run without Revise is refused by OSL, and OSL's is
	// refused by a plain learn.Online run.
	c, _ := learn.ReadCheckpoint(bytes.NewReader(saved[0]))
	m3, src3, _ := seqSource(t, seqMLN, 4, 20)
	s = settings()
	s.Resume = c
	if _, err := learn.Online(ctx, m3, src3, learn.DefaultAdaGradFB(), s); err == nil {
		t.Error("learn.Online resumed OSL's checkpoint")
	}
}
