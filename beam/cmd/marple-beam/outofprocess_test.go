package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/marple-mln/marple/beam/pipeline"
)

// prismJobServer serves prism's job service on the port of
// MARPLE_BEAM_TEST_PRISM when the tests start the test binary as a
// stand-alone job server (see startProcess), and reports "ready" on
// stdout once it accepts jobs.
func prismJobServer() {
	port, err := strconv.Atoi(os.Getenv("MARPLE_BEAM_TEST_PRISM"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, err := prism.CreateJobServer(context.Background(), prism.Options{Port: port}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ready")
	select {}
}

// startProcess starts the test binary with env and args, and returns the
// first line it writes to stdout (or stderr) that starts with prefix, and
// the lines it writes after it (complete once the process is killed and
// lines.wait returns); the process is killed when the test ends.
func startProcess(t *testing.T, env string, stdout bool, prefix string, args ...string) (string, *lines, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env)
	var r io.Reader
	var err error
	if stdout {
		r, err = cmd.StdoutPipe()
	} else {
		r, err = cmd.StderrPipe()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, prefix) {
			rest := &lines{done: make(chan struct{})}
			go func() {
				defer close(rest.done)
				for sc.Scan() {
					rest.add(sc.Text())
				}
			}()
			return line, rest, cmd
		}
	}
	t.Fatalf("%s %v ended without printing %q", env, args, prefix)
	return "", nil, nil
}

// lines collects the lines of a process's output.
type lines struct {
	mu   sync.Mutex
	l    []string
	done chan struct{} // closed at the end of the output
}

// wait waits for the end of the output.
func (l *lines) wait() { <-l.done }

func (l *lines) add(s string) {
	l.mu.Lock()
	l.l = append(l.l, s)
	l.mu.Unlock()
}

// count returns the number of lines that start with prefix.
func (l *lines) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.l {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// TestOutOfProcessWorkers: a stand-alone prism job server and a worker
// pool (marple-beam --worker_pool, listening on 127.0.0.1), each a process
// of its own, run
// marple-beam learn from a launcher with --environment_type=EXTERNAL; the
// launcher is given the data files as a glob pattern, the workers read
// them by path through Beam's filesystems and write the model and state,
// and the learned weights and model equal those of the in-process run on
// prism given the files as a list.
func TestOutOfProcessWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a job server and a worker pool (-short)")
	}
	data, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	jobPort := strings.TrimPrefix(closedPort(t), "127.0.0.1:")
	startProcess(t, "MARPLE_BEAM_TEST_PRISM="+jobPort, true, "ready")
	pool, poolLog, poolCmd := startProcess(t, "MARPLE_BEAM_TEST_MAIN=1", false, "marple-beam: worker pool at ", "--worker_pool", "--worker_pool_port=0", "--worker_pool_addr=127.0.0.1")
	poolAddr := strings.TrimPrefix(pool, "marple-beam: worker pool at ")

	dir := t.TempDir()
	var files []string
	for i, db := range []string{"Smokes(Anna)\nFriends(Anna, Bob)\nCancer(Anna)\n", "Smokes(Bob)\nFriends(Bob, Chris)\nCancer(Bob)\n", "Friends(Chris, Anna)\nSmokes(Chris)\n"} {
		f := filepath.Join(dir, fmt.Sprintf("ex-%d.db", i))
		if err := os.WriteFile(f, []byte(db), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	learnArgs := func(name, train string) []string {
		return []string{"learn", "-i", filepath.Join(data, "smokers.mln"), "-t", train, "-ne", "Cancer",
			"-multipleDatabases", "-sigma", "0.1", "-shards", "2", "-passes", "2",
			"-o", filepath.Join(dir, name+".mln"), "-state", filepath.Join(dir, name+".json")}
	}
	cmd, stderr := marpleBeam(t, learnArgs("inprocess", strings.Join(files, ","))...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("in-process: %v\n%s", err, stderr)
	}
	cmd, stderr = marpleBeam(t, append(learnArgs("external", filepath.Join(dir, "ex-*.db")), "--runner=universal", "--endpoint=localhost:"+jobPort,
		"--environment_type=EXTERNAL", "--environment_config="+poolAddr, "--worker_binary="+os.Args[0])...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("out of process: %v\n%s", err, stderr)
	}
	poolCmd.Process.Kill()
	poolLog.wait()
	if n := poolLog.count("marple-beam: worker pool: started worker"); n == 0 {
		t.Errorf("the worker pool started no worker; the launcher's log:\n%s", stderr)
	}

	want, err := pipeline.ReadState(filepath.Join(dir, "inprocess.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := pipeline.ReadState(filepath.Join(dir, "external.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, g := want.Final(false), got.Final(false)
	if len(w.Names) == 0 || len(w.Names) != len(g.Names) {
		t.Fatalf("%d weights out of process, %d in process", len(g.Names), len(w.Names))
	}
	for i, k := range w.Names {
		if g.Get(k) != w.Values[i] {
			t.Errorf("weight %s: %v out of process, %v in process", k, g.Get(k), w.Values[i])
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "inprocess.mln"))
	b, _ := os.ReadFile(filepath.Join(dir, "external.mln"))
	if string(a) != string(b) {
		t.Errorf("the models differ:\n%s\nin process:\n%s", b, a)
	}
}
