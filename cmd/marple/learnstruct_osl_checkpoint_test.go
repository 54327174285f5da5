package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
)

// segTraining writes a training database in the shape of testdata/seg-train.db
// with n citations (bib constants), drawn from seed, and returns its path.
func segTraining(t *testing.T, dir string, n int, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	authors := []string{"Tsmith", "Tjones", "Tj", "Tbrown", "Tlee"}
	titles := []string{"Tlearning", "Tmarkov", "Tlogic", "Tnetworks", "Tgraphs", "Tmodels"}
	var b strings.Builder
	for p := 1; p < 8; p++ {
		fmt.Fprintf(&b, "Next(P%d,P%d)\n", p, p-1)
	}
	for c := 1; c <= n; c++ {
		na, nt := 1+r.IntN(3), 1+r.IntN(4)
		for i := 0; i < na+nt; i++ {
			tok, field := authors[r.IntN(len(authors))], "Fauthor"
			if i >= na {
				tok, field = titles[r.IntN(len(titles))], "Ftitle"
			}
			fmt.Fprintf(&b, "Token(%s,P%d,B%d)\nInField(B%d,%s,P%d)\n", tok, i, c, c, field, i)
			if i == na-1 || r.IntN(5) == 0 {
				fmt.Fprintf(&b, "HasPunc(B%d,P%d)\n", c, i)
			}
		}
	}
	path := filepath.Join(dir, "seg-train.db")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLearnstructOSLCheckpointKill kills learnstruct -method osl
// -checkpoint with SIGKILL at seeded random points, resumes it with -resume
// until it finishes, and checks that the model (with the clauses OSL added)
// is byte-identical to the uninterrupted run's.
func TestLearnstructOSLCheckpointKill(t *testing.T) {
	if testenv.Short() {
		t.Skip("builds marple and runs structure learning many times")
	}
	dir := t.TempDir()
	bin := marpleBinary(t)
	train := segTraining(t, dir, 20, 1)
	args := func(out string, extra ...string) []string {
		return append([]string{"learnstruct", "-method", "osl", "-i", "testdata/seg.mln", "-o", out, "-t", train,
			"-ne", "InField", "-exampleType", "bib", "-modes", "testdata/seg.modes", "-passes", "2", "-shuffle", "-seed", "2",
			"-checkpointEvery", "1"}, extra...)
	}
	run := func(args []string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stderr
	}
	whole := filepath.Join(dir, "whole.mln")
	t0 := time.Now()
	cmd, stderr := run(args(whole))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	took := time.Since(t0)
	want, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(want), "Next(") {
		t.Fatalf("no clause learned:\n%s", want)
	}
	r := rand.New(rand.NewPCG(5, 6))
	out := filepath.Join(dir, "killed.mln")
	ckpt := out + ".checkpoint"
	resumed := 0
	for point := 0; point < 2; point++ {
		os.Remove(out)
		os.Remove(ckpt)
		for try := 0; ; try++ {
			extra := []string{"-checkpoint"}
			if _, err := os.Stat(ckpt); err == nil {
				extra = append(extra, "-resume")
				resumed++
			}
			cmd, stderr := run(args(out, extra...))
			if try < 3 {
				// Killed at a seeded point within the uninterrupted run's
				// duration (three times at most).
				timer := time.AfterFunc(time.Duration(r.Float64()*float64(took)), func() { cmd.Process.Kill() })
				err := cmd.Wait()
				timer.Stop()
				if err == nil {
					break
				}
				continue
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			break
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("killed and resumed run differs from the uninterrupted one:\n%s\n---\n%s", got, want)
		}
		if _, err := os.Stat(ckpt); err == nil {
			t.Error("the checkpoint is left after the run finished")
		}
	}
	t.Logf("%d resumes", resumed)

	// -resume without a checkpoint.
	os.Remove(ckpt)
	if code, _, stderr := marple(t, args(out, "-resume")...); code != 1 || !strings.Contains(stderr, "no checkpoint") {
		t.Errorf("-resume without a checkpoint: exit %d, %s", code, stderr)
	}
	// A checkpoint of a run with other flags or data is refused, naming
	// what differs: a run killed once its first checkpoint is saved.
	os.Remove(out)
	cmd, _ = run(args(out, "-checkpoint"))
	for {
		if _, err := os.Stat(ckpt); err == nil {
			cmd.Process.Kill()
			break
		}
		time.Sleep(time.Millisecond)
		if _, err := os.Stat(out); err == nil {
			break
		}
	}
	cmd.Wait()
	if _, err := os.Stat(ckpt); err != nil {
		t.Skip("the run finished before its checkpoint could be used")
	}
	if code, _, stderr := marple(t, args(out, "-resume", "-minCountDiff", "2")...); code != 1 || !strings.Contains(stderr, "-minCountDiff") {
		t.Errorf("other flags: exit %d, %s", code, stderr)
	}
	data, _ := os.ReadFile(train)
	os.WriteFile(train, append(data, "HasPunc(B1,P7)\n"...), 0o644)
	if code, _, stderr := marple(t, args(out, "-resume")...); code != 1 || !strings.Contains(stderr, "differs") {
		t.Errorf("other training data: exit %d, %s", code, stderr)
	}
	os.WriteFile(ckpt, []byte("garbage"), 0o644)
	if code, _, stderr := marple(t, args(out, "-resume")...); code != 1 || !strings.Contains(stderr, "checkpoint") {
		t.Errorf("garbage checkpoint: exit %d, %s", code, stderr)
	}
}
