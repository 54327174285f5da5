package mln_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/hybrid"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// fuzzBudget is the time one input may take to load, compile and ground
// before the target reports a hang.
const fuzzBudget = 5 * time.Second

// FuzzLoadCompileGround loads a model and evidence from the fuzzer's text,
// compiles it and grounds it over its (small) domains. It checks that
// nothing panics, that every stage ends within fuzzBudget (the stages
// honour a context that expires earlier), and that every error of the
// model or evidence names a position.
func FuzzLoadCompileGround(f *testing.F) {
	for _, pat := range []string{"testdata/*.mln", "../cmd/marple/testdata/bad/*.mln", "../examples/smokers/*.mln"} {
		files, _ := filepath.Glob(pat)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && len(b) < 4<<10 {
				f.Add(b, []byte("Smokes(Anna)\nFriends(Anna, Bob)\n"))
			}
		}
	}
	f.Add([]byte("t = {A, B}\nP(t)\nQ(t,t)\n1 EXIST y (P(x) ^ Q(x,y)) <=> P(x)\n"), []byte("P(A)\n!Q(A,B)\n"))
	f.Add([]byte("P(t)\n1 P(x) <=> P(x) <=> P(x) <=> P(x)\n"), []byte("P(A)\n!P(A)\n"))
	f.Add([]byte("t = {1,...,3}\nP(t,t!)\n-2 P(x,+y) ^ x < y\n"), []byte("P(1,2)\n"))
	f.Add([]byte("t = {A, B}\nP(t)\nL(t)\n1 P(x) * -(L(x) - 2)^2\n0.5 L(x) = 1\n-1 * (L(A) - L(B))^2\n"), []byte("L(A) 1.5\nP(B)\n"))
	f.Fuzz(func(t *testing.T, model, evidence []byte) {
		if bytes.Contains(model, []byte("#include")) || len(model)+len(evidence) > 64<<10 {
			return // includes read other files; big inputs are the bad corpus's job
		}
		defer func(c, l int) { mln.MaxCNFClauses, mln.MaxCNFLiterals = c, l }(mln.MaxCNFClauses, mln.MaxCNFLiterals)
		mln.MaxCNFClauses, mln.MaxCNFLiterals = 2000, 100000
		// A range of millions of constants takes seconds to declare
		// (num={1,...5888888}), over the budget on a loaded machine.
		defer func(r int) { syntax.MaxRange = r }(syntax.MaxRange)
		syntax.MaxRange = 100_000
		ctx, cancel := context.WithTimeout(context.Background(), fuzzBudget/2)
		defer cancel()
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > fuzzBudget {
				t.Fatalf("took %v (budget %v)", d, fuzzBudget)
			}
		}()
		m, err := mln.ParseModel("fuzz.mln", string(model))
		if err != nil {
			checkPositioned(t, err)
			return
		}
		db, err := mln.ParseDatabase(m, "fuzz.db", string(evidence))
		if err != nil {
			checkPositioned(t, err)
			return
		}
		if err := m.CompileContext(ctx); err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				checkPositioned(t, err)
			}
			return
		}
		for _, ty := range m.Types {
			if ty.Size() > 6 {
				return // ground small domains only
			}
		}
		var query []mln.PredID
		for _, p := range m.Preds {
			if db.Count(p.ID) == 0 {
				query = append(query, p.ID)
			}
		}
		ground.Ground(ctx, m, db, ground.Options{Query: query, MaxBytes: 64 << 20, Workers: 1})
		if m.IsHybrid() {
			hybrid.Ground(context.Background(), m, db, hybrid.Options{Query: query})
		}
	})
}

// checkPositioned fails unless every error of err names a file position.
func checkPositioned(t *testing.T, err error) {
	t.Helper()
	var list syntax.ErrorList
	var one *syntax.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = syntax.ErrorList{one}
	default:
		t.Fatalf("error without a position: %v", err)
	}
	for _, e := range list {
		if !e.Pos.IsValid() {
			t.Fatalf("error without a position: %v", e)
		}
	}
}
