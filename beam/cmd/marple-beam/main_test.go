package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// TestMain runs marple-beam's main instead of the tests when the tests
// start the test binary as the command (see marpleBeam).
func TestMain(m *testing.M) {
	if os.Getenv("MARPLE_BEAM_TEST_PRISM") != "" {
		prismJobServer()
	}
	if os.Getenv("MARPLE_BEAM_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// marpleBeam returns the command running marple-beam with args in
// testdata.
func marpleBeam(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "MARPLE_BEAM_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

// exitCode returns the exit status of a finished command.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// closedPort returns a local address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestBadInput: the launcher refuses bad flags and input before a pipeline
// starts, with one line naming the cause and the usual exit status; no
// output is written.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.mln")
	learn := []string{"learn", "-i", "smokers.mln", "-ne", "Cancer", "-multipleDatabases", "-o", out}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"sigma-nan", append(learn, "-t", "train.db", "-sigma", "NaN"), 2, "marple-beam learn: -sigma must be a finite number, not NaN (see marple-beam learn -h)"},
		{"sigma-word", append(learn, "-t", "train.db", "-sigma", "x"), 2, `marple-beam learn: -sigma must be a number or auto, not "x" (see marple-beam learn -h)`},
		{"eta-0", append(learn, "-t", "train.db", "-method", "adagrad", "-eta", "0"), 2, "marple-beam learn: -eta must be positive, not 0"},
		{"unknown-flag", append(learn, "-t", "train.db", "-foo"), 2, "marple-beam learn: flag provided but not defined: -foo (see marple-beam learn -h)"},
		{"output-dir", []string{"learn", "-i", "smokers.mln", "-ne", "Cancer", "-t", "train.db", "-o", filepath.Join(dir, "no", "x.mln")}, 2,
			"marple-beam learn: -o: cannot write " + filepath.Join(dir, "no", "x.mln") + ": the directory " + filepath.Join(dir, "no") + " does not exist"},
		{"empty-db", append(learn, "-t", "empty.db"), 1, "marple-beam learn: empty.db holds no ground atom"},
		{"binary-db", append(learn, "-t", "binary.db"), 1, "marple-beam learn: binary.db:2:1: binary data (byte 0x00 at offset 13)"},
		{"binary-model", []string{"infer", "-i", "binary.db", "-e", "train.db", "-q", "Cancer", "-r", filepath.Join(dir, "out.result")}, 1, "marple-beam infer: binary.db:2:1: binary data"},
		{"glob-no-match", append(learn, "-t", "train.db,nothing-*.db"), 1, "marple-beam learn: -t: nothing-*.db: no file matches the pattern"},
		{"glob-no-match-e", []string{"infer", "-i", "smokers.mln", "-e", "tr*.db,x/*.db", "-q", "Cancer", "-r", filepath.Join(dir, "out.result")}, 1, "marple-beam infer: -e: x/*.db: no file matches the pattern"},
		{"glob-no-match-i", []string{"infer", "-i", "nothing-*.mln", "-e", "train.db", "-q", "Cancer", "-r", filepath.Join(dir, "out.result")}, 1, "marple-beam infer: -i: nothing-*.mln: no file matches the pattern"},
		{"replicate-remote", []string{"replicate", "-i", "gs://bucket/m.mln", "-t", "train.db", "-type", "person", "-k", "2", "-o", filepath.Join(dir, "r.db")}, 2, "marple-beam replicate: -i gs://bucket/m.mln: these files are read from local paths"},
		{"resume-no-state", append(learn, "-t", "train.db", "-sigma", "0.1", "-resume"), 2, "marple-beam learn: -resume needs -state"},
		{"resume-sigma-auto", append(learn, "-t", "train.db", "-resume", "-state", filepath.Join(dir, "s.json")), 2, "marple-beam learn: -resume needs a number for -sigma"},
		{"runner-flink", append(learn, "-t", "train.db", "--runner=flink"), 2, `marple-beam learn: --runner must be prism, universal or dataflow, not "flink"`},
		{"no-job-server", append(learn, "-t", "train.db", "--runner=universal", "--environment_type=LOOPBACK", "--endpoint="+closedPort(t)), 1, "marple-beam learn: cannot reach the job server at --endpoint 127.0.0.1:"},
		{"universal-no-environment", append(learn, "-t", "train.db", "--runner=universal", "--endpoint="+closedPort(t)), 2,
			"marple-beam learn: --runner=universal needs --environment_type: LOOPBACK (workers in this process), EXTERNAL with --environment_config=HOST:PORT"},
		{"docker-no-binary", append(learn, "-t", "train.db", "--runner=universal", "--environment_type=DOCKER", "--endpoint="+closedPort(t)), 2,
			"marple-beam learn: --environment_type=DOCKER needs --worker_binary"},
		{"prism-endpoint-no-environment", append(learn, "-t", "train.db", "--runner=prism", "--endpoint="+closedPort(t)), 2,
			"marple-beam learn: --runner=prism needs --environment_type"},
		{"endpoint-timeout-0", append(learn, "-t", "train.db", "--runner=universal", "--environment_type=LOOPBACK", "--endpoint="+closedPort(t), "-endpointTimeout", "0s"), 2,
			"marple-beam learn: -endpointTimeout must be positive, not 0s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd, stderr := marpleBeam(t, c.args...)
			code := exitCode(t, cmd.Run())
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if code != c.code || len(lines) != 1 || !strings.HasPrefix(lines[0], c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and one line starting %q", code, stderr, c.code, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed run wrote %s", out)
			}
		})
	}
}

// TestHelp: -h prints the usage once, on stdout, and exits 0.
func TestHelp(t *testing.T) {
	cmd, stderr := marpleBeam(t, "learn", "-h")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	code := exitCode(t, cmd.Run())
	if n := strings.Count(stdout.String(), "usage: marple-beam learn"); code != 0 || n != 1 || !strings.Contains(stdout.String(), "-sigma") || stderr.Len() != 0 {
		t.Errorf("exit %d, usage printed %d times, stderr %q", code, n, stderr)
	}
}

// TestInterrupt: an interrupt while the launcher waits for its job server
// ends the run with "interrupted" (exit status 1), not a cancellation
// error.
func TestInterrupt(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		var conns []net.Conn // held open, silent: a job server that never answers
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			accepted <- struct{}{}
		}
	}()
	cmd, stderr := marpleBeam(t, "learn", "-i", "smokers.mln", "-t", "train.db", "-ne", "Cancer", "-multipleDatabases", "-o", filepath.Join(t.TempDir(), "out.mln"),
		"--runner=universal", "--endpoint="+l.Addr().String(), "--worker_binary="+os.Args[0])
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-accepted // the launcher's check of the endpoint
	<-accepted // its request to the job service, which waits for an answer
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := exitCode(t, cmd.Wait())
	if code != 1 || !strings.HasSuffix(strings.TrimSpace(stderr.String()), "marple-beam learn: interrupted") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestResumeCommand: learn -passes 1 -state s, then learn -passes 2
// -resume -state s, gives the weights and model of learn -passes 2; the
// runs leave no file in the temporary directory.
func TestResumeCommand(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	learn := func(name string, passes string, extra ...string) {
		t.Helper()
		args := append([]string{"learn", "-i", "smokers.mln", "-t", "train.db", "-ne", "Cancer", "-multipleDatabases", "-sigma", "0.1",
			"-shards", "2", "-passes", passes, "-o", filepath.Join(dir, name+".mln"), "-state", filepath.Join(dir, name+".json")}, extra...)
		cmd, stderr := marpleBeam(t, args...)
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
	}
	learn("straight", "2")
	learn("resumed", "1")
	learn("resumed", "2", "-resume")
	a, _ := os.ReadFile(filepath.Join(dir, "straight.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "resumed.json"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("resumed state:\n%s\nstraight:\n%s", b, a)
	}
	a, _ = os.ReadFile(filepath.Join(dir, "straight.mln"))
	b, _ = os.ReadFile(filepath.Join(dir, "resumed.mln"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("resumed model:\n%s\nstraight:\n%s", b, a)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("files left in the temporary directory: %v", left)
	}
}

// TestFilesystemsLinked: marple-beam reads and writes local paths, gs://
// and s3:// (the schemes are registered; no bucket is reached).
func TestFilesystemsLinked(t *testing.T) {
	for _, p := range []string{"data/a.db", "gs://bucket/a.db", "s3://bucket/a.db"} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", p, r)
				}
			}()
			filesystem.ValidateScheme(p)
		}()
	}
}

// TestExperimentUsage: the scaling table's flags are checked before any
// run, as usage errors naming the flag.
func TestExperimentUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"-n", "5000,x"}, "-n"},
		{[]string{"-n", "0"}, "-n"},
		{[]string{"-repeat", "0"}, "-repeat"},
		{[]string{"-marple", "no-such-marple-binary"}, "-marple"},
	} {
		cmd, stderr := marpleBeam(t, append([]string{"experiment", "-noCiteSeer", "-out", ""}, c.args...)...)
		if code := exitCode(t, cmd.Run()); code != 2 || !strings.Contains(stderr.String(), c.flag) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", c.args, code, stderr.String(), c.flag)
		}
	}
}

// TestMedianAndChild: median takes the middle (the lower of an even
// count), and a child process's run is measured without error.
func TestMedianAndChild(t *testing.T) {
	if m := median([]time.Duration{3, 1, 2}); m != 2 {
		t.Errorf("median of 3,1,2 = %d", m)
	}
	if m := median([]time.Duration{4, 1, 3, 2}); m != 2 {
		t.Errorf("median of 4,1,3,2 = %d", m)
	}
	if _, err := runChild(context.Background(), os.Args[0], "-test.run=^$"); err != nil {
		t.Fatal(err)
	}
	if _, err := runChild(context.Background(), os.Args[0], "-test.run=^$", "-no-such-flag"); err == nil {
		t.Error("a failing child gave no error")
	}
}

// silentServer listens on 127.0.0.1 and accepts connections but never
// answers; it reports each connection it accepts.
func silentServer(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{}, 16)
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	return l.Addr().String(), accepted
}

// TestSilentJobServer: a job server that accepts connections but never
// answers is refused after -endpointTimeout, with one line saying so.
func TestSilentJobServer(t *testing.T) {
	addr, _ := silentServer(t)
	cmd, stderr := marpleBeam(t, "learn", "-i", "smokers.mln", "-t", "train.db", "-ne", "Cancer", "-multipleDatabases", "-o", filepath.Join(t.TempDir(), "out.mln"),
		"--runner=universal", "--environment_type=LOOPBACK", "--endpoint="+addr, "-endpointTimeout", "1s")
	code := exitCode(t, cmd.Run())
	want := "marple-beam learn: the job server at --endpoint " + addr + " accepted a connection but did not answer within 1s (-endpointTimeout)"
	if code != 1 || !strings.HasPrefix(strings.TrimSpace(stderr.String()), want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and one line starting %q", code, stderr, want)
	}
}

// TestRemoveLoopbackFiles: the empty loopback files created during a run
// are removed, and no other file.
func TestRemoveLoopbackFiles(t *testing.T) {
	dir := t.TempDir()
	defer func(p string) { loopbackPattern = p }(loopbackPattern)
	loopbackPattern = filepath.Join(dir, "beamloopbackworker-*")
	touch := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := touch("beamloopbackworker-1", "")
	old := loopbackFiles()
	created := touch("beamloopbackworker-2", "")
	full := touch("beamloopbackworker-3", "not empty")
	other := touch("other-4", "")
	removeLoopbackFiles(old)
	for _, p := range []string{before, full, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed", filepath.Base(p))
		}
	}
	if _, err := os.Stat(created); err == nil {
		t.Error("the empty loopback file created during the run is left")
	}
}
