package experiment

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/eval"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
)

// MSLDataset is one data set of the batch structure learning experiment:
// a model file declaring the predicates (and, for UW-CSE, the hand-built
// knowledge base), and the folds, each a database; each fold in turn is
// the test set and the others are the training databases (each its own
// domain).
type MSLDataset struct {
	Name  string
	Model string   // file under the data set's folder
	Folds []string // database files under the folder
	// KB reports whether Model's formulas are a hand-built knowledge base
	// (rows starting from it are run).
	KB bool
	// Skip lists predicates not queried and not used in new literals
	// (identity relations given as evidence).
	Skip []string
}

// MSLDatasets are UW-CSE (five areas) and IMDB (five folds).
var MSLDatasets = []MSLDataset{
	{Name: "uw-cse", Model: "uw.mln", Folds: []string{"ai.db", "graphics.db", "language.db", "systems.db", "theory.db"}, KB: true,
		Skip: []string{"samePerson", "sameTitle", "sameCourse", "sameProject", "sameQuarter", "sameLevel", "samePosition", "samePhase", "sameInteger"}},
	{Name: "imdb", Model: "empty.mln", Folds: []string{"imdb.1.db", "imdb.2.db", "imdb.3.db", "imdb.4.db", "imdb.5.db"}},
}

// MSLRow is one system of the table.
type MSLRow struct {
	Name string
	// Method is structure.MethodWeights (learn the weights of the
	// starting clauses and the unit clauses only), MethodBeam or MethodSFS.
	Method structure.Method
	// FromKB starts from the knowledge base (else from unit clauses).
	FromKB bool
	// Learn, when set, learns instead of structure.LearnBatch (deep
	// transfer's rows: transfer.go).
	Learn func(ctx context.Context, dbs []*mln.Database, s structure.Settings, sc structure.Scoring) (*structure.Result, error)
}

// MSLRows are the systems compared.
var MSLRows = []MSLRow{
	{"Unit clauses (weights learned)", structure.MethodWeights, false, nil},
	{"KB (weights learned, -g)", structure.MethodWeights, true, nil},
	{"MSL beam, from unit clauses", structure.MethodBeam, false, nil},
	{"MSL SFS, from unit clauses", structure.MethodSFS, false, nil},
	{"MSL beam, from the KB", structure.MethodBeam, true, nil},
}

// MSLConfig configures RunMSL.
type MSLConfig struct {
	// Dir is the shared data folder (holding uw-cse/ and imdb/).
	Dir string
	// Datasets, Folds (test fold file names) and Rows restrict the run
	// (default: all).
	Datasets, Folds, Rows []string
	// Search holds the search settings (Model, Scorer, Start, NonEvidence
	// are set per fold); Scoring the scorer's.
	Search  structure.Settings
	Scoring structure.Scoring
	// Samples is the number of MC-SAT samples per inference (0: 1000).
	Samples int
	Seed    int64
	// Repeated says whether new clauses may repeat a predicate
	// (structure.Settings.RepeatedPredicates): "auto" (the default, "")
	// chooses per search on a held-out training database
	// (structure.LearnValidated), "true" and "false" fix it.
	Repeated string
	// NoJoins turns off the joins of the validated search
	// (structure.Validation.NoJoins).
	NoJoins bool
	// NoConstants turns off its per-constant refinements
	// (structure.Validation.NoConstants).
	NoConstants bool
	// DSAFromKB keeps Search.DomainScaled for the searches from the KB
	// (by default they are unscaled).
	DSAFromKB bool
	// ModelsDir, when set, receives each learned model as
	// dataset-fold-row.mln.
	ModelsDir string
	// Progress receives a line per fold and row (optional).
	Progress io.Writer
	// Journal, when set, records each completed cell (a row on a test
	// fold) and gives back the cells a killed run completed.
	Journal *Journal
}

// MSLCell is one row on one test fold.
type MSLCell struct {
	// CLL and AUCPR per query predicate.
	CLL, AUCPR     map[string]float64
	LearnSeconds   float64
	Clauses        int // in the learned model
	Scored         int // candidates scored
	Stopped        string
	InferenceSecs  float64
	CandidatesRate float64
	// Choice is the held-out choice of the search's settings (nil: none
	// made).
	Choice *structure.Choice
}

// MSLResult is one data set's table.
type MSLResult struct {
	Dataset MSLDataset
	Folds   []string
	Preds   []string
	Rows    []MSLRow
	Cells   map[string]map[string]*MSLCell // row name -> fold -> cell
}

// RunMSL runs the batch structure learning experiment: for each data set,
// each test fold and each row, learn on the other folds (each its own
// domain), then infer each query predicate in turn given all the others
// with MC-SAT on the test fold and score CLL and AUC-PR.
func RunMSL(ctx context.Context, cfg MSLConfig) ([]*MSLResult, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	var out []*MSLResult
	for _, ds := range MSLDatasets {
		if len(cfg.Datasets) > 0 && !slices.Contains(cfg.Datasets, ds.Name) {
			continue
		}
		dir := filepath.Join(cfg.Dir, ds.Name)
		if _, err := os.Stat(filepath.Join(dir, ds.Model)); err != nil {
			return nil, fmt.Errorf("msl: %w (give -data the shared data folder)", err)
		}
		res := &MSLResult{Dataset: ds, Cells: map[string]map[string]*MSLCell{}}
		for _, r := range MSLRows {
			if (len(cfg.Rows) > 0 && !slices.Contains(cfg.Rows, r.Name) && !slices.Contains(cfg.Rows, rowKey(r))) || r.FromKB && !ds.KB {
				continue
			}
			res.Rows = append(res.Rows, r)
			res.Cells[r.Name] = map[string]*MSLCell{}
		}
		for _, f := range ds.Folds {
			if len(cfg.Folds) == 0 || slices.Contains(cfg.Folds, f) || slices.Contains(cfg.Folds, strings.TrimSuffix(f, ".db")) {
				res.Folds = append(res.Folds, f)
			}
		}
		for _, test := range res.Folds {
			for _, r := range res.Rows {
				type done struct {
					Cell  *MSLCell
					Preds []string
				}
				d, err := unit(cfg.Journal, "msl/"+ds.Name+"/"+test+"/"+r.Name, func() (done, error) {
					cell, preds, err := runMSLCell(ctx, cfg, ds, r, test)
					return done{cell, preds}, err
				})
				cell, preds := d.Cell, d.Preds
				if err != nil {
					return out, fmt.Errorf("msl: %s, %s, test %s: %w", ds.Name, r.Name, test, err)
				}
				res.Preds = preds
				res.Cells[r.Name][test] = cell
				if cfg.Progress != nil {
					c, a := meanOf(cell.CLL), meanOf(cell.AUCPR)
					fmt.Fprintf(cfg.Progress, "msl: %s test %s %-34s CLL %.4f AUC-PR %.4f, learn %.1fs (%d clauses, %d candidates%s%s), inference %.1fs\n",
						ds.Name, test, r.Name, c, a, cell.LearnSeconds, cell.Clauses, cell.Scored, stoppedNote(cell.Stopped), choiceNote(cell.Choice), cell.InferenceSecs)
				}
			}
		}
		out = append(out, res)
	}
	return out, nil
}

// Check refuses a selection that names something unknown: a data set of
// Datasets not in MSLDatasets, a fold of Folds that is no fold (file name
// or stem) of the data sets selected, or a row of Rows not in MSLRows
// (name or key). The error names the flag: -datasets, -folds or -rows.
func (cfg MSLConfig) Check() error { return cfg.check("-datasets") }

// check is Check with the data sets' flag named setsFlag.
func (cfg MSLConfig) check(setsFlag string) error {
	var sets, folds, rows []string
	for _, ds := range MSLDatasets {
		sets = append(sets, ds.Name)
	}
	for _, name := range cfg.Datasets {
		if !slices.Contains(sets, name) {
			return fmt.Errorf("%s: %q is not a data set (%s)", setsFlag, name, strings.Join(sets, ", "))
		}
	}
	for _, ds := range MSLDatasets {
		if len(cfg.Datasets) == 0 || slices.Contains(cfg.Datasets, ds.Name) {
			for _, f := range ds.Folds {
				folds = append(folds, strings.TrimSuffix(f, ".db"))
			}
		}
	}
	for _, f := range cfg.Folds {
		if !slices.Contains(folds, strings.TrimSuffix(f, ".db")) {
			return fmt.Errorf("-folds: %q is not a fold of the data sets selected (%s)", f, strings.Join(folds, ", "))
		}
	}
	for _, r := range MSLRows {
		rows = append(rows, rowKey(r))
	}
	for _, name := range cfg.Rows {
		if !slices.Contains(rows, name) && !slices.ContainsFunc(MSLRows, func(r MSLRow) bool { return r.Name == name }) {
			return fmt.Errorf("-rows: %q is not a row (%s)", name, strings.Join(rows, ", "))
		}
	}
	return nil
}

// rowKey is a short name of a row for -rows: method-start.
func rowKey(r MSLRow) string {
	if r.FromKB {
		return r.Method.String() + "-kb"
	}
	return r.Method.String() + "-unit"
}

// choiceNote describes a held-out choice for a progress line.
func choiceNote(ch *structure.Choice) string {
	if ch == nil {
		return ""
	}
	stopped := ""
	if ch.Stopped[0] != "" || ch.Stopped[1] != "" {
		stopped = ", a validation search stopped early (" + cmp.Or(ch.Stopped[0], ch.Stopped[1]) + ")"
	}
	more := ""
	if j := ch.Joins; j != nil {
		more = fmt.Sprintf("; %d learned joins capped at %g (held-out CLL / AUC-PR per cap %s)", j.Joins, j.Cap, capScores(j))
	}
	if c := ch.Constants; c != nil {
		kept := "none"
		if len(c.Kept) > 0 {
			kept = strings.Join(c.Kept, "; ")
		}
		more += fmt.Sprintf("; per-constant refinements kept %d of %d (%s), held-out CLL %.4f -> %.4f, AUC-PR %.4f -> %.4f, %.0fs", len(c.Kept), len(c.Tried), kept, c.CLL[0], c.CLL[1], c.AUCPR[0], c.AUCPR[1], c.Seconds)
	}
	at := ""
	if ch.Bounded {
		at = "at most "
	}
	if ch.Skipped > 0 {
		return fmt.Sprintf("; validated: repeated predicates %v, held-out CLL %.4f without (%d databases held out in turn), %s%.4f with (the first %d; the other searches with them could not change the choice), %.0fs%s%s", ch.RepeatedPredicates, ch.CLL[0], ch.Folds, at, ch.CLL[1], ch.Folds-ch.Skipped, ch.Seconds, stopped, more)
	}
	return fmt.Sprintf("; validated: repeated predicates %v, held-out CLL %.4f without, %s%.4f with (± %.4f, %d databases held out in turn), %.0fs%s%s", ch.RepeatedPredicates, ch.CLL[0], at, ch.CLL[1], ch.SE, ch.Folds, ch.Seconds, stopped, more)
}

// capScores lists the held-out scores of each join cap.
func capScores(j *structure.JoinChoice) string {
	var parts []string
	for k, c := range structure.JoinCaps {
		parts = append(parts, fmt.Sprintf("%g: %.4f / %.4f", c, j.CLL[k], j.AUCPR[k]))
	}
	return strings.Join(parts, ", ")
}

func stoppedNote(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

func meanOf(m map[string]float64) float64 {
	if len(m) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range m {
		s += v
	}
	return s / float64(len(m))
}

func runMSLCell(ctx context.Context, cfg MSLConfig, ds MSLDataset, row MSLRow, test string) (*MSLCell, []string, error) {
	dir := filepath.Join(cfg.Dir, ds.Name)
	m, err := mln.LoadModel(filepath.Join(dir, ds.Model))
	if err != nil {
		return nil, nil, err
	}
	var dbs []*mln.Database
	for _, f := range ds.Folds {
		if f == test {
			continue
		}
		db, err := mln.LoadDatabase(m, filepath.Join(dir, f))
		if err != nil {
			return nil, nil, err
		}
		dbs = append(dbs, db)
	}
	if err := m.Compile(); err != nil {
		return nil, nil, err
	}
	s := cfg.Search
	s.Model = m
	s.NonEvidence = nil
	s.Start = nil
	s.StartFromEmpty = false
	if row.FromKB {
		s.Start = m.Clauses
		// From the KB, domain-size-aware clauses made UW-CSE worse
		// (results/dsa.md): only DSAFromKB asks for them.
		s.DomainScaled = s.DomainScaled && cfg.DSAFromKB
	}
	s.Preds = nil
	for _, p := range m.Preds {
		if !slices.Contains(ds.Skip, p.Name) {
			s.Preds = append(s.Preds, p.ID)
		}
	}
	t0 := time.Now()
	var choice *structure.Choice
	learn := row.Learn
	if learn == nil {
		learn = func(ctx context.Context, dbs []*mln.Database, s structure.Settings, sc structure.Scoring) (*structure.Result, error) {
			switch cfg.Repeated {
			case "true", "false":
				s.RepeatedPredicates = cfg.Repeated == "true"
				return structure.LearnBatch(ctx, row.Method, dbs, s, sc)
			case "", "auto":
			default:
				return nil, fmt.Errorf("repeated predicates %q: auto, true or false", cfg.Repeated)
			}
			r, ch, err := structure.LearnValidated(ctx, row.Method, dbs, s, sc, func() structure.Validation {
				v := structure.DefaultValidation()
				v.Samples, v.Seed, v.NoJoins, v.NoConstants, v.Log = cfg.Samples, cfg.Seed, cfg.NoJoins, cfg.NoConstants, cfg.Progress
				return v
			}())
			if ch != nil && ch.Folds > 0 {
				choice = ch
			}
			return r, err
		}
	}
	r, err := learn(ctx, dbs, s, cfg.Scoring)
	if err != nil {
		return nil, nil, err
	}
	cell := &MSLCell{LearnSeconds: time.Since(t0).Seconds(), Clauses: len(r.Clauses), Scored: r.Scored, Stopped: r.Stopped,
		CLL: map[string]float64{}, AUCPR: map[string]float64{}, Choice: choice}
	learned, err := r.Model(m)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := mln.WriteModel(&buf, learned); err != nil {
		return nil, nil, err
	}
	if cfg.ModelsDir != "" {
		name := fmt.Sprintf("%s-%s-%s.mln", ds.Name, strings.TrimSuffix(test, ".db"), rowKey(row))
		if err := os.WriteFile(filepath.Join(cfg.ModelsDir, name), buf.Bytes(), 0o644); err != nil {
			return nil, nil, err
		}
	}
	t1 := time.Now()
	var preds []string
	for _, p := range m.Preds {
		if slices.Contains(ds.Skip, p.Name) {
			continue
		}
		preds = append(preds, p.Name)
		cll, auc, err := inferPredicate(ctx, buf.String(), filepath.Join(dir, test), p.Name, cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("inferring %s: %w", p.Name, err)
		}
		cell.CLL[p.Name], cell.AUCPR[p.Name] = cll, auc
	}
	cell.InferenceSecs = time.Since(t1).Seconds()
	return cell, preds, nil
}

// inferPredicate reads the model text with the test database, grounds it
// with pred as the only query predicate (the test atoms of every other
// predicate are evidence, closed world), runs MC-SAT and scores the
// marginals of pred's atoms against the test database.
func inferPredicate(ctx context.Context, model, testDB, pred string, cfg MSLConfig) (cll, auc float64, err error) {
	m, err := mln.ParseModel("learned.mln", model)
	if err != nil {
		return 0, 0, err
	}
	db, err := mln.LoadDatabase(m, testDB)
	if err != nil {
		return 0, 0, err
	}
	if err := m.Compile(); err != nil {
		return 0, 0, err
	}
	p, ok := m.Pred(pred)
	if !ok {
		return 0, 0, fmt.Errorf("no predicate %s", pred)
	}
	samples := cfg.Samples
	if samples <= 0 {
		samples = mcsat.DefaultSamples
	}
	opt := mcsat.Options{Samples: samples}
	opt.Seed = cfg.Seed
	ps, gold, err := structure.InferHeldOut(ctx, m, db, p.ID, opt)
	if err != nil {
		return 0, 0, err
	}
	return eval.CLL(ps, gold), eval.AUCPR(ps, gold), nil
}

// WriteMarkdown writes the table: CLL and AUC-PR per query predicate
// averaged over the test folds, their average over predicates, and the
// learning time per fold, for each row.
func (res *MSLResult) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s: infer each predicate given all others (MC-SAT), test folds %s\n\n", res.Dataset.Name, strings.Join(res.Folds, ", "))
	b.WriteString("| system | CLL | AUC-PR | learn s/fold (each fold) | clauses | candidates/s |\n|---|---:|---:|---|---:|---:|\n")
	for _, r := range res.Rows {
		cells := res.Cells[r.Name]
		var cll, auc, clauses, rate float64
		var times []string
		n := 0
		stopped := false
		for _, f := range res.Folds {
			c, ok := cells[f]
			if !ok {
				continue
			}
			cll += meanOf(c.CLL)
			auc += meanOf(c.AUCPR)
			clauses += float64(c.Clauses)
			if c.LearnSeconds > 0 {
				rate += float64(c.Scored) / c.LearnSeconds
			}
			times = append(times, fmt.Sprintf("%.0f", c.LearnSeconds))
			stopped = stopped || c.Stopped != ""
			n++
		}
		if n == 0 {
			continue
		}
		fn := float64(n)
		note := ""
		if stopped {
			note = " (time limit)"
		}
		fmt.Fprintf(&b, "| %s%s | %.4f | %.4f | %s | %.1f | %.1f |\n", r.Name, note, cll/fn, auc/fn, strings.Join(times, ", "), clauses/fn, rate/fn)
	}
	b.WriteString("\nPer predicate (CLL / AUC-PR, mean over the test folds):\n\n| predicate |")
	for _, r := range res.Rows {
		fmt.Fprintf(&b, " %s |", r.Name)
	}
	b.WriteString("\n|---|")
	for range res.Rows {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, p := range res.Preds {
		fmt.Fprintf(&b, "| %s |", p)
		for _, r := range res.Rows {
			var cll, auc float64
			n := 0
			for _, f := range res.Folds {
				if c, ok := res.Cells[r.Name][f]; ok {
					cll += c.CLL[p]
					auc += c.AUCPR[p]
					n++
				}
			}
			if n == 0 {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %.3f / %.3f |", cll/float64(n), auc/float64(n))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
