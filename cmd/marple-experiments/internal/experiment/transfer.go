package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
	"github.com/marple-mln/marple/transfer"
)

// TransferSource is a source domain of the deep transfer experiment: a
// folder of the shared data with its declarations and data files (all
// of them: the source is another domain than the target).
type TransferSource struct {
	Name  string
	Model string
	Data  []string
}

func folds(pattern string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf(pattern, i))
	}
	return out
}

// TransferSources are the relational data sets templates are discovered
// in.
var TransferSources = []TransferSource{
	{"uw-cse", "uw.mln", []string{"ai.db", "graphics.db", "language.db", "systems.db", "theory.db"}},
	{"imdb", "empty.mln", []string{"imdb.1.db", "imdb.2.db", "imdb.3.db", "imdb.4.db", "imdb.5.db"}},
	{"kinship", "kinship.mln", folds("fold%d.db", 8)},
	{"umls", "umls.mln", folds("fold%d.db.gz", 8)},
	{"nations", "nations.mln", folds("fold%d.db", 8)},
}

// TransferConfig configures RunTransfer.
type TransferConfig struct {
	// MSL holds the targets (Datasets: uw-cse, imdb), test folds, search
	// and scoring settings, inference samples and progress, as for RunMSL.
	MSL MSLConfig
	// Sources and Modes restrict the rows (default: every source but the
	// target; seed, greedy and refine).
	Sources []string
	Modes   []structure.TransferMode
	// Top is the number of best source templates instantiated (0: 5).
	Top int
	// Templates is a folder of templates files named <source>.txt: a
	// source's file is read when present, else its templates are
	// discovered (with Discover) and written there.
	Templates string
	Discover  transfer.Options
}

// TransferResult is one target's table: the no-transfer baseline and a
// row per source and mode, and the templates transferred.
type TransferResult struct {
	*MSLResult
	Top       int
	Templates map[string][]transfer.Ranked // source -> ranked templates
	Clauses   map[string]int               // source -> clauses instantiated in the target
	Sources   []string
}

// BaselineRow is the no-transfer row of the transfer tables.
const BaselineRow = "MSL beam, from unit clauses (no transfer)"

// Check refuses a selection that names something unknown: a target of
// MSL.Datasets not in MSLDatasets, a test fold of MSL.Folds that is no
// fold of the targets selected, or a source not in TransferSources. The
// error names the flag: -targets, -folds or -sources.
func (cfg TransferConfig) Check() error {
	if err := (MSLConfig{Datasets: cfg.MSL.Datasets, Folds: cfg.MSL.Folds}).check("-targets"); err != nil {
		return err
	}
	var sources []string
	for _, src := range TransferSources {
		sources = append(sources, src.Name)
	}
	for _, name := range cfg.Sources {
		if !slices.Contains(sources, name) {
			return fmt.Errorf("-sources: %q is not a data set (%s)", name, strings.Join(sources, ", "))
		}
	}
	return nil
}

// RunTransfer runs the deep transfer experiment: for each target data
// set and test fold, structure learning (beam search from unit clauses)
// without transfer and with each source's best templates in each mode,
// evaluated as RunMSL does.
func RunTransfer(ctx context.Context, cfg TransferConfig) ([]*TransferResult, error) {
	if cfg.Top <= 0 {
		cfg.Top = 5
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	modes := cfg.Modes
	if len(modes) == 0 {
		modes = []structure.TransferMode{structure.TransferSeed, structure.TransferGreedy, structure.TransferRefine}
	}
	ranked := map[string][]transfer.Ranked{}
	var out []*TransferResult
	for _, ds := range MSLDatasets {
		if len(cfg.MSL.Datasets) > 0 && !slices.Contains(cfg.MSL.Datasets, ds.Name) {
			continue
		}
		res := &TransferResult{MSLResult: &MSLResult{Dataset: ds, Cells: map[string]map[string]*MSLCell{}},
			Top: cfg.Top, Templates: map[string][]transfer.Ranked{}, Clauses: map[string]int{}}
		res.Rows = append(res.Rows, MSLRow{Name: BaselineRow, Method: structure.MethodBeam})
		// foldChoice is the baseline's held-out choice on the current test
		// fold: the transfer searches admit clauses repeating a predicate
		// as it does (-repeatedPredicates true or false fixes it for all).
		var foldChoice *structure.Choice
		for _, src := range TransferSources {
			if src.Name == ds.Name || len(cfg.Sources) > 0 && !slices.Contains(cfg.Sources, src.Name) {
				continue
			}
			if _, ok := ranked[src.Name]; !ok {
				r, err := unit(cfg.MSL.Journal, "transfer/templates/"+src.Name, func() ([]transfer.Ranked, error) {
					return sourceTemplates(ctx, cfg, src)
				})
				if err != nil {
					return out, err
				}
				ranked[src.Name] = r
			}
			res.Sources = append(res.Sources, src.Name)
			res.Templates[src.Name] = ranked[src.Name]
			for _, mode := range modes {
				mode, src := mode, src
				res.Rows = append(res.Rows, MSLRow{Name: fmt.Sprintf("DTM %s, from %s", mode, src.Name), Method: structure.MethodBeam,
					Learn: func(ctx context.Context, dbs []*mln.Database, s structure.Settings, sc structure.Scoring) (*structure.Result, error) {
						switch {
						case cfg.MSL.Repeated == "true" || cfg.MSL.Repeated == "false":
							s.RepeatedPredicates = cfg.MSL.Repeated == "true"
						case foldChoice != nil:
							s.RepeatedPredicates = foldChoice.RepeatedPredicates
						}
						cl := transfer.TransferClauses(ranked[src.Name], cfg.Top, s.Model, s.Preds)
						res.Clauses[src.Name] = len(cl)
						return structure.LearnTransfer(ctx, mode, dbs, s, sc, cl)
					}})
			}
		}
		for _, r := range res.Rows {
			res.Cells[r.Name] = map[string]*MSLCell{}
		}
		rowSource := map[string]string{} // transfer row -> its source
		for _, src := range res.Sources {
			for _, mode := range modes {
				rowSource[fmt.Sprintf("DTM %s, from %s", mode, src)] = src
			}
		}
		for _, f := range ds.Folds {
			if len(cfg.MSL.Folds) == 0 || slices.Contains(cfg.MSL.Folds, f) || slices.Contains(cfg.MSL.Folds, strings.TrimSuffix(f, ".db")) {
				res.Folds = append(res.Folds, f)
			}
		}
		for _, test := range res.Folds {
			foldChoice = nil
			for _, r := range res.Rows {
				// A cell, with the number of clauses its source's
				// templates gave in the target (-1: not a transfer row).
				type done struct {
					Cell    *MSLCell
					Preds   []string
					Clauses int
				}
				d, err := unit(cfg.MSL.Journal, "transfer/"+ds.Name+"/"+test+"/"+r.Name, func() (done, error) {
					cell, preds, err := runMSLCell(ctx, cfg.MSL, ds, r, test)
					d := done{cell, preds, -1}
					if n, ok := res.Clauses[rowSource[r.Name]]; ok && rowSource[r.Name] != "" {
						d.Clauses = n
					}
					return d, err
				})
				if src := rowSource[r.Name]; src != "" && d.Clauses >= 0 {
					res.Clauses[src] = d.Clauses
				}
				cell, preds := d.Cell, d.Preds
				if err != nil {
					return out, fmt.Errorf("transfer: %s, %s, test %s: %w", ds.Name, r.Name, test, err)
				}
				if r.Name == BaselineRow {
					foldChoice = cell.Choice
				}
				res.Preds = preds
				res.Cells[r.Name][test] = cell
				if cfg.MSL.Progress != nil {
					fmt.Fprintf(cfg.MSL.Progress, "transfer: %s test %s %-34s CLL %.4f AUC-PR %.4f, learn %.1fs (%d clauses, %d candidates%s%s), inference %.1fs\n",
						ds.Name, test, r.Name, meanOf(cell.CLL), meanOf(cell.AUCPR), cell.LearnSeconds, cell.Clauses, cell.Scored, stoppedNote(cell.Stopped), choiceNote(cell.Choice), cell.InferenceSecs)
				}
			}
		}
		out = append(out, res)
	}
	return out, nil
}

// sourceTemplates reads a source's templates file from cfg.Templates, or
// discovers the templates and writes the file.
func sourceTemplates(ctx context.Context, cfg TransferConfig, src TransferSource) ([]transfer.Ranked, error) {
	path := filepath.Join(cfg.Templates, src.Name+".txt")
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		return transfer.ReadTemplates(f, path)
	}
	dir := filepath.Join(cfg.MSL.Dir, src.Name)
	var data []string
	for _, d := range src.Data {
		data = append(data, filepath.Join(dir, d))
	}
	t0 := time.Now()
	s, err := transfer.LoadSource([]string{filepath.Join(dir, src.Model)}, data, transfer.SourceOptions{})
	if err != nil {
		return nil, fmt.Errorf("transfer: source %s: %w", src.Name, err)
	}
	res, err := transfer.Discover(ctx, s, cfg.Discover)
	if err != nil {
		return nil, err
	}
	if cfg.MSL.Progress != nil {
		fmt.Fprintf(cfg.MSL.Progress, "transfer: %s: %d templates, %d cliques scored in %.1fs\n", src.Name, len(res.Templates), res.Cliques, time.Since(t0).Seconds())
	}
	if cfg.Templates != "" {
		if err := os.MkdirAll(cfg.Templates, 0o755); err != nil {
			return nil, err
		}
		header := []string{fmt.Sprintf("source %s (%s), discovered by marple-experiments transfer in %.1fs", src.Name, strings.Join(src.Data, ","), time.Since(t0).Seconds())}
		if err := atomicfile.Write(path, func(w io.Writer) error { return transfer.Write(w, res, header) }); err != nil {
			return nil, err
		}
	}
	var out []transfer.Ranked
	for _, sc := range res.Templates {
		out = append(out, transfer.Ranked{Template: sc.Template, Score: sc.Score})
	}
	return out, nil
}

// WriteMarkdown writes the target's table (as MSLResult's) and the
// templates each source transferred.
func (res *TransferResult) WriteMarkdown(w io.Writer) error {
	if err := res.MSLResult.WriteMarkdown(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nTemplates transferred to %s (the %d best of each source; score = mean KL of the best cliques, nats):\n\n| source | templates | clauses in %s |\n|---|---|---:|\n", res.Dataset.Name, res.Top, res.Dataset.Name)
	for _, s := range res.Sources {
		var ts []string
		for i, r := range res.Templates[s] {
			if i == res.Top {
				break
			}
			ts = append(ts, fmt.Sprintf("`%s` %.3g", r.Template, r.Score))
		}
		fmt.Fprintf(w, "| %s | %s | %d |\n", s, strings.Join(ts, "; "), res.Clauses[s])
	}
	return nil
}
