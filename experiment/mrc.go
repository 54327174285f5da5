package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/marple-mln/marple/eval"
	"github.com/marple-mln/marple/invent"
	"github.com/marple-mln/marple/mln"
)

// MRCSets are the data sets of the MRC paper (Kok & Domingos, ICML 2007)
// with the AUC-PR it reports (second-hand, via Sutskever et al. 2009; NaN
// where no figure is known).
var MRCSets = []struct {
	Name  string
	Paper float64
}{
	{"animals", 0.81}, {"kinship", 0.85}, {"umls", 0.98}, {"nations", math.NaN()},
}

// MRCConfig configures the MRC experiment.
type MRCConfig struct {
	// Dir is the data folder holding animals/, kinship/, umls/, nations/.
	Dir string
	// Sets and Folds select data sets (default all four) and held-out
	// folds (default 0-7, the shared ones).
	Sets  []string
	Folds []int
	// Opt configures MRC.
	Opt      invent.Options
	Progress io.Writer
}

// MRCFold is one held-out fold's result.
type MRCFold struct {
	Fold             int
	Atoms, True      int
	CLL, AUCPR       float64
	BaseCLL, BaseAUC float64
	Learn            time.Duration // wall time of learning
	CPU              time.Duration // process CPU time during learning
	Problems, Leaves int
	Invented         int
}

// MRCRow is one data set's folds.
type MRCRow struct {
	Set   string
	Paper float64
	Folds []MRCFold
}

// MRCTable is the experiment's result.
type MRCTable struct {
	Opt  invent.Options
	Rows []MRCRow
}

// RunMRC runs the MRC protocol: for each data set and held-out fold, learn
// on the other shared folds' listed atoms (the held-out fold and folds 8-9
// are unknown, not false), predict the held-out atoms' probabilities, and
// score CLL and AUC-PR over them, with the per-relation training rate as
// the baseline.
func RunMRC(ctx context.Context, cfg MRCConfig) (*MRCTable, error) {
	sets := cfg.Sets
	if len(sets) == 0 {
		for _, s := range MRCSets {
			sets = append(sets, s.Name)
		}
	}
	folds := cfg.Folds
	if len(folds) == 0 {
		folds = []int{0, 1, 2, 3, 4, 5, 6, 7}
	}
	prog := cfg.Progress
	if prog == nil {
		prog = io.Discard
	}
	t := &MRCTable{Opt: cfg.Opt.WithDefaults()}
	for _, name := range sets {
		paper := math.NaN()
		known := false
		for _, s := range MRCSets {
			if s.Name == name {
				paper, known = s.Paper, true
			}
		}
		if !known {
			return nil, fmt.Errorf("mrc: unknown data set %q", name)
		}
		row, err := runMRCSet(ctx, cfg, name, folds, prog)
		if err != nil {
			return nil, err
		}
		row.Paper = paper
		t.Rows = append(t.Rows, *row)
	}
	return t, nil
}

func runMRCSet(ctx context.Context, cfg MRCConfig, name string, folds []int, prog io.Writer) (*MRCRow, error) {
	dir := filepath.Join(cfg.Dir, name)
	m, err := mln.LoadModel(filepath.Join(dir, name+".mln"))
	if err != nil {
		return nil, err
	}
	var dbs []*mln.Database
	for k := 0; k < 8; k++ {
		p := filepath.Join(dir, fmt.Sprintf("fold%d.db", k))
		if _, err := os.Stat(p); err != nil {
			p += ".gz"
		}
		db, err := invent.LoadDatabase(m, p)
		if err != nil {
			return nil, err
		}
		dbs = append(dbs, db)
	}
	row := &MRCRow{Set: name}
	for _, k := range folds {
		if k < 0 || k >= len(dbs) {
			return nil, fmt.Errorf("mrc: fold %d is not a shared fold (0-7)", k)
		}
		var train []*mln.Database
		for j, db := range dbs {
			if j != k {
				train = append(train, db)
			}
		}
		data, err := invent.FromDatabases(m, train, false)
		if err != nil {
			return nil, err
		}
		opt := cfg.Opt
		c0 := cpuTime()
		t0 := time.Now()
		model, err := invent.Learn(ctx, data, opt)
		if err != nil {
			return nil, err
		}
		f := MRCFold{Fold: k, Learn: time.Since(t0), CPU: cpuTime() - c0, Problems: model.Stats.Problems}
		inv, rules := model.Rules("C")
		f.Invented, f.Leaves = len(inv), len(rules)
		// Baseline: each relation's training rate (Laplace-smoothed).
		rate := make([]float64, len(m.Preds))
		for _, p := range m.Preds {
			t, n := 0, 0
			for _, db := range train {
				db.Atoms(p.ID, func(_ []mln.ConstID, v mln.Truth) {
					if v != mln.Unknown {
						n++
						if v == mln.True {
							t++
						}
					}
				})
			}
			rate[p.ID] = (float64(t) + 1) / (float64(n) + 2)
		}
		var probs, base []float64
		var gold []bool
		for _, p := range m.Preds {
			dbs[k].Atoms(p.ID, func(args []mln.ConstID, v mln.Truth) {
				if v == mln.Unknown {
					return
				}
				probs = append(probs, model.Prob(p.ID, args))
				base = append(base, rate[p.ID])
				gold = append(gold, v == mln.True)
			})
		}
		f.Atoms = len(gold)
		for _, g := range gold {
			if g {
				f.True++
			}
		}
		f.CLL, f.AUCPR = eval.CLL(probs, gold), eval.AUCPR(probs, gold)
		f.BaseCLL, f.BaseAUC = eval.CLL(base, gold), eval.AUCPR(base, gold)
		fmt.Fprintf(prog, "mrc: %s fold %d: %d atoms (%d true), CLL %.4f AUC-PR %.3f (baseline %.4f / %.3f), learn %.1fs wall %.1fs CPU, %d problems, %d invented predicates\n",
			name, k, f.Atoms, f.True, f.CLL, f.AUCPR, f.BaseCLL, f.BaseAUC, f.Learn.Seconds(), f.CPU.Seconds(), f.Problems, f.Invented)
		row.Folds = append(row.Folds, f)
	}
	return row, nil
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// WriteMarkdown writes the table: per data set the mean (± std over folds)
// CLL and AUC-PR of MRC and of the baseline, the paper's AUC-PR, and the
// learning time per fold.
func (t *MRCTable) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("### MRC: held-out atoms, mean ± std over folds\n\n")
	b.WriteString("| data set | folds | atoms/fold | MRC CLL | MRC AUC-PR | paper AUC-PR | baseline CLL | baseline AUC-PR | learn s/fold (wall) | CPU s/fold | problems | invented preds |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range t.Rows {
		var cll, auc, bc, ba, lw, lc, pr, inv, at []float64
		for _, f := range r.Folds {
			cll = append(cll, f.CLL)
			auc = append(auc, f.AUCPR)
			bc = append(bc, f.BaseCLL)
			ba = append(ba, f.BaseAUC)
			lw = append(lw, f.Learn.Seconds())
			lc = append(lc, f.CPU.Seconds())
			pr = append(pr, float64(f.Problems))
			inv = append(inv, float64(f.Invented))
			at = append(at, float64(f.Atoms))
		}
		ms := func(xs []float64, prec int) string {
			m, s := eval.MeanStd(xs)
			return fmt.Sprintf("%.*f ± %.*f", prec, m, prec, s)
		}
		mean := func(xs []float64) float64 { m, _ := eval.MeanStd(xs); return m }
		paper := "–"
		if !math.IsNaN(r.Paper) {
			paper = fmt.Sprintf("%.2f", r.Paper)
		}
		fmt.Fprintf(&b, "| %s | %d | %.0f | %s | **%s** | %s | %s | %s | %.1f | %.1f | %.0f | %.0f |\n",
			r.Set, len(r.Folds), mean(at), ms(cll, 4), ms(auc, 3), paper, ms(bc, 4), ms(ba, 3), mean(lw), mean(lc), mean(pr), mean(inv))
	}
	fmt.Fprintf(&b, "\nMRC options: %d restarts, seed %d, lambda %g, beta %g, lookahead %v. Baseline: each relation's training rate, (t+1)/(n+2). ",
		t.Opt.Restarts, t.Opt.Seed, t.Opt.Lambda, t.Opt.Beta, !t.Opt.NoLookahead)
	b.WriteString("Paper AUC-PR: Kok & Domingos (2007) as quoted by Sutskever et al. (2009, Table 1), second-hand; the paper's own CLL figures were not found. ")
	b.WriteString("CLL: mean log-probability of the held-out atoms' values, probabilities clipped to [1e-4, 1-1e-4]; AUC-PR pooled over all held-out atoms of a fold.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
