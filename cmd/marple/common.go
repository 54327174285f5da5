package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// progress reports stages of long work on stderr: a stage that takes more
// than a second (or any stage, with -v) prints one line when it ends.
type progress struct {
	w       io.Writer
	verbose bool
	start   time.Time
}

func newProgress(w io.Writer, verbose bool) *progress {
	return &progress{w: w, verbose: verbose, start: time.Now()}
}

// stage starts a stage; the returned function ends it with a detail line.
func (p *progress) stage(name string) func(format string, args ...any) {
	t0 := time.Now()
	return func(format string, args ...any) {
		d := time.Since(t0)
		if p.verbose || d > time.Second {
			fmt.Fprintf(p.w, "marple: %s: %s (%.2fs)\n", name, fmt.Sprintf(format, args...), d.Seconds())
		}
	}
}

// heartbeatEvery is how often heartbeat reports a stage still running.
var heartbeatEvery = 5 * time.Second

// heartbeat reports every heartbeatEvery that stage name is still running,
// with the time elapsed and, when limit > 0, the time limit that ends it,
// for stages that report nothing of their own (a MAP solve). stop ends the
// reports; none is written after it returns.
func (p *progress) heartbeat(name string, limit time.Duration) (stop func()) {
	t0 := time.Now()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(heartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				bound := ""
				if limit > 0 {
					bound = fmt.Sprintf(" (each solve stops after -timeLimit %s with the best answer so far)", limit)
				}
				fmt.Fprintf(p.w, "marple: %s: still running, %s elapsed%s\n", name, time.Since(t0).Round(time.Second), bound)
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// watchedMAP is a MAP engine whose every solve that lasts longer than
// heartbeatEvery reports on w, every heartbeatEvery, that it is still
// running: the MAP solves inside the learners report nothing of their own.
type watchedMAP struct {
	infer.MAP
	w    io.Writer
	what string
}

func (m watchedMAP) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	t0 := time.Now()
	var mu sync.Mutex
	done := false
	var timer *time.Timer
	mu.Lock()
	timer = time.AfterFunc(heartbeatEvery, func() {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		fmt.Fprintf(m.w, "marple: %s: MAP (%s) of an example of %d atoms and %d clauses still running, %s elapsed\n",
			m.what, m.MAP.Name(), net.NumAtoms(), net.NumClauses(), time.Since(t0).Round(time.Second))
		timer.Reset(heartbeatEvery)
	})
	mu.Unlock()
	defer func() {
		mu.Lock()
		done = true
		mu.Unlock()
		timer.Stop()
	}()
	return m.MAP.Solve(ctx, net, opt)
}

// logf prints a line when verbose, or when the run has lasted over a second.
func (p *progress) logf(format string, args ...any) {
	if p.verbose || time.Since(p.start) > time.Second {
		fmt.Fprintf(p.w, "marple: "+format+"\n", args...)
	}
}

// worldFlags are the flags that decide which predicates are query
// (open-world) and which are closed-world, shared by infer and check.
type worldFlags struct {
	query       string
	openWorld   string
	closedWorld string
	// nonEvidenceOpen: the predicates the evidence does not mention are
	// open world (infer's -nonEvidenceOpen).
	nonEvidenceOpen bool
	maxMem          int64
	workers         int
	queryFlag       string            // the flag that names the query predicates: q or ne
	engine          ground.EngineCost // the memory of the engine that will run
	dialect         string            // the model files' language (syntax.Dialect)
}

func (w *worldFlags) register(fsQuery bool, fs interface {
	StringVar(*string, string, string, string)
	Int64Var(*int64, string, int64, string)
	IntVar(*int, string, int, string)
}) {
	w.queryFlag = "ne"
	if fsQuery {
		w.queryFlag = "q"
		fs.StringVar(&w.query, "q", "", "query predicates, comma-separated (open world)")
	}
	fs.StringVar(&w.openWorld, "ow", "", "predicates to treat as open world, comma-separated")
	fs.StringVar(&w.closedWorld, "cw", "", "predicates to treat as closed world, comma-separated")
	fs.Int64Var(&w.maxMem, "maxMem", 8<<10, "refuse groundings estimated above this many MiB")
	fs.IntVar(&w.workers, "workers", 0, "worker goroutines for grounding and inference (0: every core)")
	fs.StringVar(&w.dialect, "dialect", "", "the language of the model and evidence files: "+strings.Join(syntax.DialectNames(), ", ")+" (default: alchemy, or the one dialect whose own constructs the files use)")
}

// alchemyOnly returns a usage error unless -dialect is Alchemy's, for
// the modes (what) that read only Alchemy's dialect.
func (w *worldFlags) alchemyOnly(what string) error {
	if d, err := syntax.ParseDialect(w.dialect); err != nil || d != syntax.Alchemy {
		return usagef("%s reads Alchemy's dialect only, not -dialect %s", what, w.dialect)
	}
	return nil
}

// loadModel reads the model files in the dialect of the -dialect flag or,
// without it, in the dialect the files' own markers name
// (mln.DetectDialect), which it reports on stderr.
func (w *worldFlags) loadModel(stderr io.Writer, files, evidenceFiles []string) (*mln.Model, error) {
	d, err := syntax.ParseDialect(w.dialect)
	if err != nil {
		return nil, usagef("-dialect: %v", err)
	}
	if w.dialect == "" {
		dd, why, err := mln.DetectDialect(files, evidenceFiles)
		if err != nil {
			return nil, err
		}
		if dd != syntax.Alchemy {
			fmt.Fprintf(stderr, "marple: reading the files as -dialect %s: %s: has %s, a construct of that dialect only (give -dialect %s to pin the choice)\n", dd, why.Pos, why.Marker.Name, dd)
		}
		d = dd
	}
	return mln.LoadModelConfig(&mln.LoadConfig{Dialect: d}, files...)
}

// preds resolves a comma-separated list of predicate names.
func preds(m *mln.Model, list, flagName string) ([]mln.PredID, error) {
	var out []mln.PredID
	for _, name := range splitList(list) {
		p, ok := m.Pred(name)
		if !ok {
			return nil, fmt.Errorf("-%s: unknown predicate %q%s", flagName, name, m.PredHint(name))
		}
		out = append(out, p.ID)
	}
	return out, nil
}

// groundOptions builds the grounder's options from the world flags.
func (w *worldFlags) groundOptions(m *mln.Model, prog io.Writer) (ground.Options, error) {
	q, err := preds(m, w.query, w.queryFlag)
	if err != nil {
		return ground.Options{}, err
	}
	ow, err := preds(m, w.openWorld, "ow")
	if err != nil {
		return ground.Options{}, err
	}
	cw, err := preds(m, w.closedWorld, "cw")
	if err != nil {
		return ground.Options{}, err
	}
	return ground.Options{
		Query:           q,
		OpenWorld:       ow,
		ClosedWorld:     cw,
		NonEvidenceOpen: w.nonEvidenceOpen,
		MaxBytes:        w.maxMem << 20,
		Engine:          w.engine,
		Workers:         w.workers,
		Progress:        prog,
	}, nil
}

// swapHint adds to a load error a hint when the model and evidence files
// look swapped: a .db file given as the model or a .mln file as evidence.
func swapHint(err error, modelFiles, evidenceFiles []string) error {
	var odd []string
	for _, f := range modelFiles {
		if strings.HasSuffix(f, ".db") {
			odd = append(odd, "-i "+f)
		}
	}
	for _, f := range evidenceFiles {
		if strings.HasSuffix(f, ".mln") {
			odd = append(odd, "-e "+f)
		}
	}
	if len(odd) == 0 {
		return err
	}
	return fmt.Errorf("%w\n(%s: swapped? models (.mln) go to -i, evidence (.db) to -e)", err, strings.Join(odd, " and "))
}

// loadProblem reads the model and evidence files and compiles the model.
func loadProblem(ctx context.Context, p *progress, wf *worldFlags, modelFiles, evidenceFiles []string) (*mln.Model, *mln.Database, error) {
	if len(modelFiles) == 0 {
		return nil, nil, usagef("no model: give -i model.mln")
	}
	done := p.stage("parse")
	m, err := wf.loadModel(p.w, modelFiles, evidenceFiles)
	if err != nil {
		return nil, nil, swapHint(err, modelFiles, evidenceFiles)
	}
	db, err := mln.LoadDatabase(m, evidenceFiles...)
	if err != nil {
		return nil, nil, swapHint(err, modelFiles, evidenceFiles)
	}
	printWarnings(p.w, db)
	if err := m.CompileContext(ctx); err != nil {
		return nil, nil, err
	}
	if err := fitProbConstraints(ctx, p, m, db); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	done("%d predicates, %d formulas, %d clauses", len(m.Preds), len(m.Formulas), len(m.Clauses))
	return m, db, nil
}

// atomString writes ground atom p(args) in Alchemy syntax.
func atomString(m *mln.Model, p mln.PredID, args []mln.ConstID) string {
	b := make([]byte, 0, 64)
	b = append(b, m.Preds[p].Name...)
	b = append(b, '(')
	for i, c := range args {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m.ConstName(c)...)
	}
	b = append(b, ')')
	return string(b)
}

// groundProblem grounds m against db with the world flags, reporting the
// stage.
func groundProblem(ctx context.Context, p *progress, e *env, wf *worldFlags, m *mln.Model, db *mln.Database) (*ground.Network, ground.Options, error) {
	gopt, err := wf.groundOptions(m, e.stderr)
	if err != nil {
		return nil, gopt, usagef("%v", err)
	}
	done := p.stage("ground")
	net, err := ground.Ground(ctx, m, db, gopt)
	if errors.Is(err, ground.ErrTooLarge) {
		return nil, gopt, fmt.Errorf("%w; -maxMem (MiB) raises the limit if the machine has the memory", err)
	}
	if err != nil {
		return nil, gopt, err
	}
	done("%d atoms, %d clauses", net.NumAtoms(), net.NumClauses())
	return net, gopt, nil
}
