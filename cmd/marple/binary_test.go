package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// removeBinary removes the binary marpleBinary built (TestMain calls it).
func removeBinary() {
	if binaryPath != "" {
		os.RemoveAll(filepath.Dir(binaryPath))
	}
}

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  string
)

// marpleBinary builds the marple command once per test run (for the tests
// that kill it with SIGKILL) and returns its path; it skips the test when
// there is no go tool to build it with.
func marpleBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goTool); err != nil {
			if goTool, err = exec.LookPath("go"); err != nil {
				binaryErr = "no go tool to build marple"
				return
			}
		}
		dir, err := os.MkdirTemp("", "marple-bin")
		if err != nil {
			binaryErr = err.Error()
			return
		}
		bin := filepath.Join(dir, "marple")
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
		if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
			binaryErr = "go build: " + err.Error() + "\n" + string(out)
			return
		}
		binaryPath = bin
	})
	if binaryPath == "" {
		t.Skip(binaryErr)
	}
	return binaryPath
}
