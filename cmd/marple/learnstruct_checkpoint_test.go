package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
)

// TestLearnstructCheckpointKill kills learnstruct -checkpoint (beam and
// sfs, with the held-out validation of -repeatedPredicates auto) with
// SIGKILL at several points, resumes it with -resume until it finishes,
// and checks that the model is byte-identical to the uninterrupted run's.
func TestLearnstructCheckpointKill(t *testing.T) {
	if testenv.Short() {
		t.Skip("builds marple and runs structure learning many times")
	}
	dir := t.TempDir()
	bin := marpleBinary(t)
	run := func(args []string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stderr
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, method := range []string{"beam", "sfs"} {
		args := func(out string, extra ...string) []string {
			return append([]string{"learnstruct", "-method", method, "-i", "testdata/planted.mln", "-o", out,
				"-t", "testdata/planted-a.db,testdata/planted-b.db", "-multipleDatabases", "-maxVars", "2", "-maxNumPredicates", "3"}, extra...)
		}
		whole := filepath.Join(dir, method+"-whole.mln")
		t0 := time.Now()
		cmd, stderr := run(args(whole))
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: %v: %s", method, err, stderr)
		}
		took := time.Since(t0)
		want, err := os.ReadFile(whole)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, method+"-killed.mln")
		ckpt := out + ".checkpoint"
		resumed := 0
		for point := 0; point < 4; point++ {
			os.Remove(out)
			os.Remove(ckpt)
			for try := 0; ; try++ {
				extra := []string{"-checkpoint"}
				if _, err := os.Stat(ckpt); err == nil {
					extra = append(extra, "-resume")
					resumed++
				}
				cmd, stderr := run(args(out, extra...))
				if try < 2 {
					// Killed at a seeded point within the uninterrupted
					// run's duration (twice at most).
					timer := time.AfterFunc(time.Duration(r.Float64()*float64(took)), func() { cmd.Process.Kill() })
					err := cmd.Wait()
					timer.Stop()
					if err == nil {
						break
					}
					continue
				}
				if err := cmd.Wait(); err != nil {
					t.Fatalf("%s: %v: %s", method, err, stderr)
				}
				break
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: killed and resumed run differs from the uninterrupted one:\n%s\n---\n%s", method, got, want)
			}
			if _, err := os.Stat(ckpt); err == nil {
				t.Errorf("%s: the checkpoint is left after the run finished", method)
			}
		}
		t.Logf("%s: %d resumes", method, resumed)
	}
	out := filepath.Join(dir, "errors.mln")
	ckpt := out + ".checkpoint"
	base := []string{"learnstruct", "-method", "beam", "-i", "testdata/planted.mln", "-o", out,
		"-t", "testdata/planted-a.db,testdata/planted-b.db", "-multipleDatabases", "-maxVars", "2", "-maxNumPredicates", "3"}
	// -resume without a checkpoint.
	if code, _, stderr := marple(t, append(base, "-resume")...); code != 1 || !strings.Contains(stderr, "no checkpoint") {
		t.Errorf("-resume without a checkpoint: exit %d, %s", code, stderr)
	}
	// A checkpoint of a run with other flags is refused, naming the flag:
	// a run killed once its first checkpoint is saved.
	cmd, _ := run(append(base, "-checkpoint", "-maxSteps", "1"))
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
	if code, _, stderr := marple(t, append(base, "-resume")...); code != 1 || !strings.Contains(stderr, "-maxSteps") {
		t.Errorf("other flags: exit %d, %s", code, stderr)
	}
	os.WriteFile(ckpt, []byte("garbage"), 0o644)
	if code, _, stderr := marple(t, append(base, "-resume")...); code != 1 || !strings.Contains(stderr, "checkpoint") {
		t.Errorf("garbage checkpoint: exit %d, %s", code, stderr)
	}
}

// cancelOn is a writer that cancels a context when what is written
// contains a string.
type cancelOn struct {
	bytes.Buffer
	s      string
	cancel func()
}

func (w *cancelOn) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), w.s) {
		w.cancel()
	}
	return n, err
}

// TestLearnstructInterruptedInValidation: learnstruct -checkpoint
// interrupted during the held-out validation searches writes the model so
// far, as -checkpoint's help says, and says whose it is.
func TestLearnstructInterruptedInValidation(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.mln")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOn{s: "beam step 0", cancel: cancel} // in the first validation search
	var stdout bytes.Buffer
	code := run(ctx, &env{stdout: &stdout, stderr: stderr}, []string{"learnstruct", "-i", "testdata/planted.mln", "-o", out,
		"-t", "testdata/planted-a.db,testdata/planted-b.db", "-multipleDatabases", "-maxVars", "2", "-maxNumPredicates", "3", "-checkpoint"})
	if code != 1 || !strings.Contains(stderr.String(), "interrupted during the validation searches") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "Smokes") {
		t.Errorf("no model written (%v):\n%s", err, b)
	}
}
