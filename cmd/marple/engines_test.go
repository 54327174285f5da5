package main

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
)

// TestEngineFlagsSettings checks that the inference flags become the
// engines' settings, and that their defaults are the registry's.
func TestEngineFlagsSettings(t *testing.T) {
	parse := func(args ...string) *engineFlags {
		t.Helper()
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var ef engineFlags
		ef.registerMAP(fs, "MAP engine")
		ef.registerSampling(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := ef.check(); err != nil {
			t.Fatal(err)
		}
		return &ef
	}
	want := engines.DefaultSettings()
	want.Workers = 3
	if got := parse().settings(3, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults: %+v, want %+v", got, want)
	}
	ef := parse("-solver", "lp", "-timeLimit", "7s", "-mwsMaxSteps", "1234", "-tries", "3", "-tabuLength", "5", "-breakHardClauses", "-prove", "-cpi", "-numSamples", "50", "-burnIn", "0")
	got := ef.settings(2, nil)
	d := engines.DefaultSettings()
	want = engines.Settings{Workers: 2, TimeLimit: 7 * time.Second, MaxSteps: 1234, Tries: 3, Tabu: 5, BreakHard: true, Prove: true, CPI: true, Samples: 50, BurnIn: 0,
		Chains: d.Chains, Replicas: d.Replicas, MinBeta: d.MinBeta, BlockWeight: d.BlockWeight, MaxBlock: d.MaxBlock}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("flags: %+v, want %+v", got, want)
	}
	m, err := ef.mapEngine(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "cpi(lp)" {
		t.Errorf("engine %q, want cpi(lp)", m.Name())
	}
}

// counting is an engine that counts its solves.
type counting struct {
	infer.MAP
	solves *atomic.Int64
}

func (c counting) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	c.solves.Add(1)
	return c.MAP.Solve(ctx, net, opt)
}

// watchEngines records the engines the commands build and counts their
// solves, until the test ends.
func watchEngines(t *testing.T) (built *[]string, settings *[]engines.Settings, solves *atomic.Int64) {
	built, settings, solves = new([]string), new([]engines.Settings), new(atomic.Int64)
	engineBuilt = func(m infer.MAP, s engines.Settings) infer.MAP {
		*built = append(*built, m.Name())
		*settings = append(*settings, s)
		return counting{m, solves}
	}
	t.Cleanup(func() { engineBuilt = nil })
	return built, settings, solves
}

// TestLearnInferenceFlagsReachLearning checks that the MAP engine inside
// weight learning is the one -solver names, with -workers, -timeLimit,
// -mwsMaxSteps and -tries as given, and that learning solves with it.
func TestLearnInferenceFlagsReachLearning(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		method, solver, name string
		extra                []string
	}{
		{"cda-ml", "lp", "lp", nil},
		{"mira", "mws", "cpi(mws)", []string{"-cpi"}},
		{"mm", "exact", "exact", []string{"-prove"}},
	} {
		built, settings, solves := watchEngines(t)
		args := append([]string{"learn", "-i", "testdata/seg.mln", "-o", filepath.Join(dir, c.method+".mln"), "-t", "testdata/seg-train.db",
			"-ne", "InField", "-method", c.method, "-sigma", "0.1", "-C", "1", "-solver", c.solver,
			"-workers", "2", "-timeLimit", "9s", "-mwsMaxSteps", "4321", "-tries", "2"}, c.extra...)
		if code, _, stderr := marple(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.method, code, stderr)
		}
		if len(*built) != 1 || (*built)[0] != c.name {
			t.Fatalf("%s: engines built %v, want one %s", c.method, *built, c.name)
		}
		s := (*settings)[0]
		if s.Workers != 2 || s.TimeLimit != 9*time.Second || s.MaxSteps != 4321 || s.Tries != 2 {
			t.Errorf("%s: the engine inside learning has settings %+v", c.method, s)
		}
		if s.Prove != (c.method == "mm") || s.CPI != (c.method == "mira") {
			t.Errorf("%s: -prove, -cpi: settings %+v", c.method, s)
		}
		if solves.Load() == 0 {
			t.Errorf("%s: learning never solved with the engine built from the flags", c.method)
		}
	}
}

// TestInferInferenceFlagsReachTheEngine is the same for marple infer.
func TestInferInferenceFlagsReachTheEngine(t *testing.T) {
	built, settings, solves := watchEngines(t)
	res := filepath.Join(t.TempDir(), "out.result")
	code, _, stderr := marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db",
		"-r", res, "-q", "Smokes,Cancer", "-solver", "lp", "-workers", "2", "-timeLimit", "5s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(*built) != 1 || (*built)[0] != "lp" || (*settings)[0].Workers != 2 || (*settings)[0].TimeLimit != 5*time.Second {
		t.Errorf("engines %v with settings %+v", *built, *settings)
	}
	if solves.Load() != 1 {
		t.Errorf("%d solves, want 1", solves.Load())
	}
}
