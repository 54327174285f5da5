package mln

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompileIffChainRefused: a chain of <=> is refused before it is
// expanded, naming the formula and the chain.
func TestCompileIffChainRefused(t *testing.T) {
	for _, n := range []int{22, 1000} {
		src := "P(t)\nQ(t)\n1 P(x)" + strings.Repeat(" <=> Q(x)", n-1) + "\n"
		m, err := ParseModel("iff.mln", src)
		if err != nil {
			t.Fatal(err)
		}
		err = m.Compile()
		if err == nil {
			t.Fatalf("%d: compiled", n)
		}
		for _, want := range []string{"iff.mln:3:1: formula P(x) <=> Q(x)", fmt.Sprintf("the chain of %d formulas joined by <=> at iff.mln:3:8", n)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%d: error %q lacks %q", n, err, want)
			}
		}
	}
}

// TestCompileLongChains: long chains of => and v compile to one clause.
func TestCompileLongChains(t *testing.T) {
	for _, op := range []string{" => ", " v "} {
		var b strings.Builder
		b.WriteString("P(t)\n1 P(A0)")
		for i := 1; i < 20_000; i++ {
			fmt.Fprintf(&b, "%sP(A%d)", op, i)
		}
		m, err := ParseModel("chain.mln", b.String()+"\n")
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		if len(m.Clauses) != 1 || len(m.Clauses[0].Lits) != 20_000 {
			t.Fatalf("%q: %d clauses", op, len(m.Clauses))
		}
		neg := 0
		for _, l := range m.Clauses[0].Lits {
			if l.Neg {
				neg++
			}
		}
		if want := map[string]int{" => ": 19_999, " v ": 0}[op]; neg != want {
			t.Errorf("%q: %d negated literals, want %d", op, neg, want)
		}
	}
}

// TestCompileExistRefused: an existential quantifier over a conjunction
// expanded over a large domain is refused, naming the quantifier.
func TestCompileExistRefused(t *testing.T) {
	m, err := ParseModel("ex.mln", "t = {1,...,40}\nP(t,t)\n1 EXIST y (P(x,y) ^ P(y,x))\n")
	if err != nil {
		t.Fatal(err)
	}
	err = m.Compile()
	if err == nil || !strings.Contains(err.Error(), "the quantifier at ex.mln:3:3 is expanded over the domain of t (40 constants)") {
		t.Fatalf("err = %v", err)
	}
}

// TestCompileCancel: compilation returns within 2 s of the context's
// cancellation.
func TestCompileCancel(t *testing.T) {
	var b strings.Builder
	b.WriteString("t = {A, B}\nP(t)\nQ(t)\n")
	// Each formula: a disjunction of 14 conjunctions, 2^14 clauses.
	for range 1000 {
		b.WriteString("1 (P(x) ^ Q(x))")
		for range 13 {
			b.WriteString(" v (P(x) ^ Q(x))")
		}
		b.WriteString("\n")
	}
	m, err := ParseModel("slow.mln", b.String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.CompileContext(ctx) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		t.Logf("returned %v after the cancellation", time.Since(cancelled))
	case <-time.After(2 * time.Second):
		t.Fatal("compilation did not return within 2 s of the cancellation")
	}
}

// TestContradictoryEvidence: an atom true and false in the evidence is an
// error naming both lines, also across files.
func TestContradictoryEvidence(t *testing.T) {
	m, err := ParseModel("m.mln", "Smokes(person)\n")
	if err != nil {
		t.Fatal(err)
	}
	db := NewDatabase(m)
	if err := db.ReadFrom("a.db", []byte("Smokes(Ivan)\nSmokes(Ivan)\n")); err != nil {
		t.Fatalf("a repeated atom: %v", err)
	}
	err = db.ReadFrom("b.db", []byte("// x\n!Smokes(Ivan)\n"))
	if err == nil || err.Error() != "b.db:2:1: contradictory evidence: Smokes(Ivan) is false here but true at a.db:2:1" {
		t.Fatalf("err = %v", err)
	}
}

// TestWrongTypeWarning: a constant the model declares with one type, used
// as another, is accepted with a positioned warning.
func TestWrongTypeWarning(t *testing.T) {
	m, err := ParseModel("m.mln", "person = {Ann}\ncolor = {Red}\nLikes(person, color)\n")
	if err != nil {
		t.Fatal(err)
	}
	db, err := ParseDatabase(m, "e.db", "Likes(Ann, Red)\nLikes(Bob, Ann)\n")
	if err != nil {
		t.Fatal(err)
	}
	// Bob is new to person, whose constants the model lists: a warning
	// too.
	if len(db.Warnings) != 2 || !strings.HasPrefix(db.Warnings[1].Error(), "e.db:2:7: the evidence adds 1 constants to person, whose constants the model lists at m.mln:1:1 (Bob)") ||
		!strings.HasPrefix(db.Warnings[0].Error(), "e.db:2:12: constant Ann, declared in the model as a person, is used as a color") {
		t.Fatalf("warnings: %v", db.Warnings)
	}
	// A type the model does not list takes new constants silently.
	m, err = ParseModel("m.mln", "Likes(person, color)\n")
	if err != nil {
		t.Fatal(err)
	}
	if db, err = ParseDatabase(m, "e.db", "Likes(Ann, Red)\n"); err != nil || len(db.Warnings) != 0 {
		t.Fatalf("unlisted types: %v, warnings %v", err, db.Warnings)
	}
}

// TestWeightSumRefused: weights whose sum overflows are refused.
func TestWeightSumRefused(t *testing.T) {
	m, err := ParseModel("w.mln", "P(t)\n1e308 P(x)\n-1e308 !P(x)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err == nil || !strings.HasPrefix(err.Error(), "w.mln:2:1: weights too large") {
		t.Fatalf("err = %v", err)
	}
}

// TestReadInput: gzipped evidence is read directly; binary data is
// refused at its first bad byte; a file over the bound is refused.
func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	m, err := ParseModel("m.mln", "Smokes(person)\n")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("Smokes(Anna)\nSmokes(Bob)\n"))
	zw.Close()
	gz := filepath.Join(dir, "e.db.gz")
	os.WriteFile(gz, buf.Bytes(), 0o644)
	db, err := LoadDatabase(m, gz)
	if err != nil || db.Count(0) != 2 {
		t.Fatalf("gzipped: %v, %d atoms", err, db.Count(0))
	}
	bin := filepath.Join(dir, "bin.db")
	os.WriteFile(bin, []byte("Smokes(Anna)\nSm\x00kes(Bob)\n"), 0o644)
	if _, err := LoadDatabase(m, bin); err == nil || !strings.HasPrefix(err.Error(), bin+":2:3: binary data") {
		t.Fatalf("binary: %v", err)
	}
	defer func(old int64) { MaxInputBytes = old }(MaxInputBytes)
	MaxInputBytes = 10 << 10
	big := filepath.Join(dir, "big.db")
	os.WriteFile(big, bytes.Repeat([]byte("Smokes(Anna)\n"), 1000), 0o644)
	if _, err := LoadDatabase(m, big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("big: %v", err)
	}
}

// TestCompileNestedIffRefused: <=> nested in parentheses (each level
// doubling the work of a naive size estimate) is refused at once.
func TestCompileNestedIffRefused(t *testing.T) {
	n := 200
	src := "P(t)\n1 " + strings.Repeat("P(x) <=> (", n) + "P(x)" + strings.Repeat(")", n) + "\n"
	m, err := ParseModel("nested.mln", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err == nil || !strings.Contains(err.Error(), "would have more than 100000 clauses in CNF") {
		t.Fatalf("err = %v", err)
	}
}
