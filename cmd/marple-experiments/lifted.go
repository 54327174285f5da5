package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/lifted"
	"github.com/marple-mln/marple/internal/cputime"
	"github.com/marple-mln/marple/mln"
)

const liftedSynopsis = `lifted [-out results] [-sizes 100,1000,10000,100000] [-engines mcsat,bp,exact] [-cap 120s] [-seed N]

Friends and smokers (the model of examples/smokers/smoking-weighted.mln)
over n people, Friends open world, with no evidence and with Smokes and
Cancer given for a random tenth of the people: exact log Z and marginals by
lifted model counting (package infer/lifted), and the grounding engines
(-engines; "exact" is marple infer's default MAP engine) at the same sizes
until each stops (its time cap, the grounding's memory limit or an error).
CPU is the process's user+system time during each run, heap the peak of
the Go heap's live objects. Needs no data.`

func runLiftedExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, liftedSynopsis)
	var (
		out   = fs.String("out", "results", "folder for lifted.md")
		sizes = fs.String("sizes", "100,1000,10000,100000", "numbers of people, comma-separated")
		engs  = fs.String("engines", "mcsat,bp,"+engines.DefaultMAP, "grounding engines run at the same sizes, comma-separated (none: -engines '')")
		cap_  = fs.Duration("cap", 120*time.Second, "time limit of each grounding engine run (grounding included); an engine is not run at larger sizes once it stops")
		seed  = fs.Uint64("seed", 1, "seed of the evidence")
		mem   = fs.Int64("maxMem", 4096, "memory limit of each grounding in MB (ground.Options.MaxBytes): larger groundings are refused")
		fr    = fs.Bool("friends", false, "query Friends too (pair marginals; P(Friends) of two people without evidence in the notes)")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var ns []int
	for _, s := range splitList(*sizes) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 {
			return usagef("-sizes: %q is not a number of people (at least 2)", s)
		}
		ns = append(ns, n)
	}
	names := splitList(*engs)
	for _, name := range names {
		if _, err := engines.Memory(name); err != nil {
			return usagef("-engines: %v", err)
		}
	}
	if err := checkOut(*out, "lifted.md"); err != nil {
		return err
	}
	var rows []liftedRow
	for _, withEv := range []bool{false, true} {
		stopped := map[string]int{}
		for _, n := range ns {
			if err := ctx.Err(); err != nil {
				return err
			}
			m, db, opt, probe, err := smokersProblem(n, withEv, *seed, *fr)
			if err != nil {
				return err
			}
			ev := "none"
			if withEv {
				ev = "10%"
			}
			var res *lifted.Result
			row := liftedRow{n: n, evidence: ev, method: "lifted (exact)"}
			row.measure(func() error {
				var err error
				res, err = lifted.Exact(ctx, m, db, opt)
				return err
			})
			if row.err == nil {
				row.logZ = fmt.Sprintf("%.6f", res.LogZ)
				ps, _ := res.Prob(probe[0].pred, probe[0].args)
				pc, _ := res.Prob(probe[1].pred, probe[1].args)
				row.ps, row.pc = fmt.Sprintf("%.6f", ps), fmt.Sprintf("%.6f", pc)
				row.note = fmt.Sprintf("method %s, %d atom classes, work %d", res.Method, len(res.Classes), res.Work)
				if *fr {
					f, _ := m.Pred("Friends")
					pf, _ := res.Prob(f.ID, []mln.ConstID{probe[0].args[0], probe[2].args[0]})
					row.note += fmt.Sprintf(", P(Friends) %.6f", pf)
				}
			}
			fmt.Fprintln(e.stderr, row.line())
			rows = append(rows, row)
			for _, name := range names {
				if at, ok := stopped[name]; ok {
					rows = append(rows, liftedRow{n: n, evidence: ev, method: name, skipped: true, note: fmt.Sprintf("not run: stopped at %d people", at)})
					continue
				}
				row := groundRow(ctx, name, m, db, opt, probe, res, n, ev, *cap_, *mem<<20)
				fmt.Fprintln(e.stderr, row.line())
				rows = append(rows, row)
				if row.err != nil {
					stopped[name] = n
				}
			}
		}
	}
	table := func(w io.Writer) error {
		fmt.Fprintf(w, "Command: `marple-experiments %s`\n\n", strings.Join(shownArgs(append([]string{"lifted"}, args...)), " "))
		fmt.Fprintln(w, "| people | evidence | method | log Z | P(Smokes) | P(Cancer) | CPU s | wall s | peak heap MB | notes |")
		fmt.Fprintln(w, "|---:|---|---|---:|---:|---:|---:|---:|---:|---|")
		for _, r := range rows {
			fmt.Fprintln(w, r.line())
		}
		return nil
	}
	return writeResults(e, *out, table, []outFile{{"lifted.md", table}})
}

type probeAtom struct {
	pred mln.PredID
	args []mln.ConstID
}

// smokersProblem builds friends and smokers over n people, with evidence
// on Smokes and Cancer of a random tenth of them when withEv, and returns
// the Smokes and Cancer atoms of a person without evidence.
func smokersProblem(n int, withEv bool, seed uint64, friends bool) (*mln.Model, *mln.Database, lifted.Options, [3]probeAtom, error) {
	var probe [3]probeAtom
	var b strings.Builder
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nFriends(person, person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n")
	m, err := mln.ParseModel("smokers.mln", b.String())
	if err != nil {
		return nil, nil, lifted.Options{}, probe, err
	}
	var ev strings.Builder
	free, free2 := -1, -1
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	for i := range n {
		if !withEv || r.IntN(10) != 0 {
			if free < 0 {
				free = i
			} else if free2 < 0 {
				free2 = i
			}
			continue
		}
		for _, p := range []string{"Smokes", "Cancer"} {
			if r.IntN(2) == 0 {
				ev.WriteString("!")
			}
			fmt.Fprintf(&ev, "%s(P%d)\n", p, i)
		}
	}
	db, err := mln.ParseDatabase(m, "smokers.db", ev.String())
	if err != nil {
		return nil, nil, lifted.Options{}, probe, err
	}
	if err := m.Compile(); err != nil {
		return nil, nil, lifted.Options{}, probe, err
	}
	q, _ := m.PredIDs("Smokes,Cancer")
	ow, _ := m.PredIDs("Friends")
	if friends {
		q, ow = append(q, ow...), nil
	}
	c, _ := m.Const(fmt.Sprintf("P%d", free))
	c2, _ := m.Const(fmt.Sprintf("P%d", free2))
	probe[0] = probeAtom{q[0], []mln.ConstID{c}}
	probe[1] = probeAtom{q[1], []mln.ConstID{c}}
	probe[2] = probeAtom{q[0], []mln.ConstID{c2}}
	return m, db, lifted.Options{Query: q, OpenWorld: ow}, probe, nil
}

type liftedRow struct {
	n                int
	evidence, method string
	logZ, ps, pc     string
	cpu, wall        time.Duration
	heap             uint64
	note             string
	err              error
	skipped          bool
}

func (r liftedRow) line() string {
	if r.skipped {
		return fmt.Sprintf("| %d | %s | %s | | | | | | | %s |", r.n, r.evidence, r.method, r.note)
	}
	note := r.note
	if r.err != nil {
		note = "stopped: " + strings.ReplaceAll(r.err.Error(), "|", "/")
	}
	heap := fmt.Sprintf("%.1f", float64(r.heap)/(1<<20))
	if r.heap < 1<<20/10 {
		heap = "< 0.1"
	}
	return fmt.Sprintf("| %d | %s | %s | %s | %s | %s | %.3f | %.3f | %s | %s |", r.n, r.evidence, r.method, r.logZ, r.ps, r.pc,
		r.cpu.Seconds(), r.wall.Seconds(), heap, note)
}

// measure runs f and records its CPU time, wall time, peak live heap and
// error.
func (r *liftedRow) measure(f func() error) {
	runtime.GC()
	debug.FreeOSMemory()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	read := func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	read()
	base := peak
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	c0, w0 := cputime.Now(), time.Now()
	r.err = f()
	r.cpu, r.wall = time.Duration(cputime.Now()-c0), time.Since(w0)
	close(stop)
	wg.Wait()
	read()
	r.heap = peak - min(base, peak)
}

// groundRow grounds the problem and runs engine name on it within limit.
func groundRow(ctx context.Context, name string, m *mln.Model, db *mln.Database, opt lifted.Options, probe [3]probeAtom, exact *lifted.Result, n int, ev string, limit time.Duration, maxBytes int64) liftedRow {
	row := liftedRow{n: n, evidence: ev, method: name}
	cost, _ := engines.Memory(name)
	s := engines.DefaultSettings()
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var net *ground.Network
	var marg []float64
	var mapRes *infer.Result
	row.measure(func() error {
		var err error
		net, err = ground.Ground(tctx, m, db, ground.Options{Query: opt.Query, OpenWorld: opt.OpenWorld, Engine: cost, MaxBytes: maxBytes})
		if err != nil {
			return err
		}
		if me, err := engines.NewMarginal(name, s); err == nil {
			marg, err = me.Marginals(tctx, net, infer.Options{Seed: 1})
			return err
		}
		me, err := engines.NewMAP(name, s)
		if err != nil {
			return err
		}
		mapRes, err = me.Solve(tctx, net, infer.Options{Seed: 1})
		return err
	})
	if row.err == nil && tctx.Err() != nil {
		row.err = tctx.Err()
	}
	if errors.Is(row.err, context.DeadlineExceeded) {
		row.err = fmt.Errorf("time cap of %v", limit)
	}
	if row.err != nil {
		return row
	}
	size := fmt.Sprintf("%d atoms, %d clauses", net.NumAtoms(), net.NumClauses())
	if mapRes != nil {
		row.note = fmt.Sprintf("MAP cost %.4g, proved optimal %v; %s", mapRes.Cost, mapRes.Optimal, size)
		return row
	}
	find := func(p probeAtom) string {
		for a := range net.NumAtoms() {
			if net.AtomPred[a] == p.pred && net.AtomArgs[a][0] == p.args[0] {
				return fmt.Sprintf("%.6f", marg[a])
			}
		}
		return ""
	}
	row.ps, row.pc = find(probe[0]), find(probe[1])
	if exact != nil {
		worst := 0.0
		for a := range net.NumAtoms() {
			if p, ok := exact.Prob(net.AtomPred[a], net.AtomArgs[a]); ok {
				worst = max(worst, math.Abs(p-marg[a]))
			}
		}
		row.note = fmt.Sprintf("max |P - exact| %.3g; %s", worst, size)
	} else {
		row.note = size
	}
	return row
}
