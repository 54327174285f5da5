package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/marple-mln/marple/eval"
	"github.com/marple-mln/marple/invent"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
	"github.com/marple-mln/marple/structure"
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
	Opt invent.Options
	// Tune, when set, chooses Opt.Lambda and Opt.Beta on every fold's
	// training atoms alone (invent.Tune over this grid) before learning.
	Tune *invent.TuneGrid
	// MSLTime, when positive, also runs the MSL baseline on every fold:
	// beam search from unit clauses (structure.LearnBatch, Alchemy's
	// defaults, clauses repeating a predicate admitted) on the training folds merged into one database, scoring
	// only the listed training atoms (the unknown ones are false in their
	// Markov blankets), ended after MSLTime (the model so far is kept). Each held-out atom is then predicted by its conditional
	// probability given all the training atoms (score.PLLData.LogOdds).
	MSLTime time.Duration
	// Orders is the number of orders the fold files are read in, each a
	// separate run (default 1: in number order); FoldReadOrder lists them.
	// MRC's model should not depend on it.
	Orders   int
	Progress io.Writer
	// Journal, when set, records each completed fold and gives back the
	// folds a killed run completed.
	Journal *Journal
}

// FoldReadOrder is read order i of the n fold files of a data set: 0 is
// number order, 1 the reverse, and each later one a shuffle drawn from i.
func FoldReadOrder(i, n int) []int {
	o := make([]int, n)
	for k := range o {
		o[k] = k
	}
	switch {
	case i == 1:
		slices.Reverse(o)
	case i > 1:
		rng := rand.New(rand.NewPCG(uint64(i), 0x6f72_6465)) // "orde"
		rng.Shuffle(n, func(a, b int) { o[a], o[b] = o[b], o[a] })
	}
	return o
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
	// Lambda and Beta are the options MRC learned with (chosen by tuning
	// when MRCConfig.Tune is set; tuning's time is part of Learn and CPU).
	Lambda, Beta float64
	// MSL is the MSL baseline's result (nil when not run).
	MSL *MSLFold
}

// MSLFold is the MSL baseline on one held-out fold.
type MSLFold struct {
	CLL, AUCPR float64
	Learn, CPU time.Duration
	Clauses    int // learned, unit clauses included
	Scored     int // candidates scored
	Stopped    string
}

// MRCRow is one data set's folds, read in one order.
type MRCRow struct {
	Set   string
	Paper float64
	// Order is the order the fold files were read in.
	Order []int
	Folds []MRCFold
}

// MRCTable is the experiment's result.
type MRCTable struct {
	Opt  invent.Options
	Tune *invent.TuneGrid
	Rows []MRCRow
}

// chosenText lists the (λ, β) pairs the folds learned with and how many
// folds chose each, in order of first use.
func chosenText(folds []MRCFold) string {
	var order []string
	n := map[string]int{}
	for _, f := range folds {
		k := fmt.Sprintf("%g, %g", f.Lambda, f.Beta)
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s (%d)", k, n[k])
	}
	return strings.Join(parts, "; ")
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
	t := &MRCTable{Opt: cfg.Opt.WithDefaults(), Tune: cfg.Tune}
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
		for o := 0; o < max(cfg.Orders, 1); o++ {
			row, err := runMRCSet(ctx, cfg, name, folds, FoldReadOrder(o, 8), prog)
			if err != nil {
				return nil, err
			}
			row.Paper = paper
			t.Rows = append(t.Rows, *row)
		}
	}
	return t, nil
}

func runMRCSet(ctx context.Context, cfg MRCConfig, name string, folds, order []int, prog io.Writer) (*MRCRow, error) {
	dir := filepath.Join(cfg.Dir, name)
	m, err := mln.LoadModel(filepath.Join(dir, name+".mln"))
	if err != nil {
		return nil, err
	}
	// The files are read in the given order (which numbers the constants
	// in the order they first appear); the training databases are listed
	// in it too.
	dbs := make([]*mln.Database, len(order))
	for _, k := range order {
		p := filepath.Join(dir, fmt.Sprintf("fold%d.db", k))
		if _, err := os.Stat(p); err != nil {
			p += ".gz"
		}
		db, err := invent.LoadDatabase(m, p)
		if err != nil {
			return nil, err
		}
		dbs[k] = db
	}
	if cfg.Orders > 1 {
		fmt.Fprintf(prog, "mrc: %s: fold files read in the order %v\n", name, order)
	}
	row := &MRCRow{Set: name, Order: order}
	for _, k := range folds {
		if k < 0 || k >= len(dbs) {
			return nil, fmt.Errorf("mrc: fold %d is not a shared fold (0-7)", k)
		}
		f, err := unit(cfg.Journal, fmt.Sprintf("mrc/%s/%s/%d", name, orderText(order), k), func() (MRCFold, error) {
			var train []*mln.Database
			for _, j := range order {
				if j != k {
					train = append(train, dbs[j])
				}
			}
			data, err := invent.FromDatabases(m, train, false)
			if err != nil {
				return MRCFold{}, err
			}
			opt := cfg.Opt
			c0 := cpuTime()
			t0 := time.Now()
			if cfg.Tune != nil {
				var tried []invent.TuneResult
				if opt, tried, err = invent.Tune(ctx, data, opt, *cfg.Tune); err != nil {
					return MRCFold{}, err
				}
				fmt.Fprintf(prog, "mrc: %s fold %d: chose lambda %g beta %g on held-out slices of the training atoms (%s)\n", name, k, opt.Lambda, opt.Beta, invent.TuneText(tried))
			}
			model, err := invent.Learn(ctx, data, opt)
			if err != nil {
				return MRCFold{}, err
			}
			f := MRCFold{Fold: k, Learn: time.Since(t0), CPU: cpuTime() - c0, Problems: model.Stats.Problems, Lambda: model.Opt.Lambda, Beta: model.Opt.Beta}
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
			if cfg.MSLTime > 0 {
				if f.MSL, err = runMRCMSL(ctx, cfg, m, train, dbs[k]); err != nil {
					return MRCFold{}, fmt.Errorf("mrc: %s fold %d: MSL: %w", name, k, err)
				}
				fmt.Fprintf(prog, "mrc: %s fold %d: MSL CLL %.4f AUC-PR %.3f, %d clauses, %d candidates, learn %.1fs wall %.1fs CPU%s\n",
					name, k, f.MSL.CLL, f.MSL.AUCPR, f.MSL.Clauses, f.MSL.Scored, f.MSL.Learn.Seconds(), f.MSL.CPU.Seconds(), stoppedNote(f.MSL.Stopped))
			}
			return f, nil
		})
		if err != nil {
			return nil, err
		}
		row.Folds = append(row.Folds, f)
	}
	return row, nil
}

// runMRCMSL runs the MSL baseline on one fold: beam search from unit
// clauses on the training databases merged into one closed world, then
// each atom listed in test gets its conditional probability given the
// training atoms.
func runMRCMSL(ctx context.Context, cfg MRCConfig, m *mln.Model, train []*mln.Database, test *mln.Database) (*MSLFold, error) {
	world := mln.NewDatabase(m)
	for _, db := range train {
		world.Merge(db)
	}
	if err := m.Compile(); err != nil {
		return nil, err
	}
	s := structure.DefaultSettings()
	s.Model, s.TimeLimit = m, cfg.MSLTime
	s.DomainScaled = false // Alchemy's admission rules, as measured in results/mrc.md
	// Alchemy's learnstruct admits clauses that repeat a predicate, and
	// here each held-out atom is predicted given every training atom, its
	// own predicate's included, so such clauses use real evidence.
	s.RepeatedPredicates = true
	sc := structure.DefaultScoring()
	sc.Seed, sc.ListedOnly = cfg.Opt.Seed, true
	c0 := cpuTime()
	t0 := time.Now()
	r, err := structure.LearnBatch(ctx, structure.MethodBeam, []*mln.Database{world}, s, sc)
	if err != nil {
		return nil, err
	}
	out := &MSLFold{Learn: time.Since(t0), CPU: cpuTime() - c0, Clauses: len(r.Clauses), Scored: r.Scored, Stopped: r.Stopped}
	d, err := score.NewPLLData(m, []*mln.Database{world}, nil, score.CountOptions{Key: structure.CanonicalKey})
	if err != nil {
		return nil, err
	}
	var probs []float64
	var gold []bool
	for _, p := range m.Preds {
		var args [][]mln.ConstID
		test.Atoms(p.ID, func(a []mln.ConstID, v mln.Truth) {
			if v != mln.Unknown {
				args = append(args, slices.Clone(a))
				gold = append(gold, v == mln.True)
			}
		})
		lo, err := d.LogOdds(ctx, r.Clauses, r.Weights, 0, p.ID, args)
		if err != nil {
			return nil, err
		}
		for _, x := range lo {
			probs = append(probs, 1/(1+math.Exp(-x)))
		}
	}
	out.CLL, out.AUCPR = eval.CLL(probs, gold), eval.AUCPR(probs, gold)
	return out, nil
}

// writeMSL writes the MSL baseline's table, when it was run.
func (t *MRCTable) writeMSL(b *strings.Builder) {
	has := false
	for _, r := range t.Rows {
		for _, f := range r.Folds {
			has = has || f.MSL != nil
		}
	}
	if !has {
		return
	}
	b.WriteString("\n### MSL baseline (beam search from unit clauses) on the same folds, mean ± std\n\n")
	b.WriteString("| data set | folds | MSL CLL | MSL AUC-PR | MRC AUC-PR | clauses | candidates | learn s/fold (wall) | CPU s/fold | folds ended by the time limit |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range t.Rows {
		var cll, auc, mrc, cl, sc, lw, lc []float64
		stopped := 0
		for _, f := range r.Folds {
			if f.MSL == nil {
				continue
			}
			cll = append(cll, f.MSL.CLL)
			auc = append(auc, f.MSL.AUCPR)
			mrc = append(mrc, f.AUCPR)
			cl = append(cl, float64(f.MSL.Clauses))
			sc = append(sc, float64(f.MSL.Scored))
			lw = append(lw, f.MSL.Learn.Seconds())
			lc = append(lc, f.MSL.CPU.Seconds())
			if f.MSL.Stopped != "" {
				stopped++
			}
		}
		if len(cll) == 0 {
			continue
		}
		ms := func(xs []float64, prec int) string {
			m, s := eval.MeanStd(xs)
			return fmt.Sprintf("%.*f ± %.*f", prec, m, prec, s)
		}
		mean := func(xs []float64) float64 { m, _ := eval.MeanStd(xs); return m }
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %.1f | %.0f | %.1f | %.1f | %d |\n",
			r.Set, len(cll), ms(cll, 4), ms(auc, 3), ms(mrc, 3), mean(cl), mean(sc), mean(lw), mean(lc), stopped)
	}
}

// orders reports whether the table holds runs of a data set with the fold
// files read in more than one order.
func (t *MRCTable) orders() bool {
	for _, r := range t.Rows {
		if len(r.Order) > 0 && !slices.Equal(r.Order, FoldReadOrder(0, len(r.Order))) {
			return true
		}
	}
	return false
}

// rowName is the data set's name, with the read order when the table
// holds several.
func (t *MRCTable) rowName(r MRCRow) string {
	if !t.orders() {
		return r.Set
	}
	return fmt.Sprintf("%s, read %s", r.Set, orderText(r.Order))
}

func orderText(o []int) string {
	parts := make([]string, len(o))
	for i, k := range o {
		parts[i] = fmt.Sprint(k)
	}
	return strings.Join(parts, "")
}

// writeOrders writes, when data sets were run with the fold files read in
// several orders, each set's spread over the orders: of the mean AUC-PR
// and CLL, of each fold's AUC-PR, and the folds whose λ, β differ.
func (t *MRCTable) writeOrders(b *strings.Builder) {
	if !t.orders() {
		return
	}
	b.WriteString("\n### The same folds with the fold files read in different orders\n\n")
	b.WriteString("| data set | orders (files read) | MRC AUC-PR per order | spread of mean AUC-PR | spread of mean CLL | largest spread of a fold's AUC-PR | folds whose λ, β differ | identical predictions |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---|\n")
	var sets []string
	bySet := map[string][]MRCRow{}
	for _, r := range t.Rows {
		if _, ok := bySet[r.Set]; !ok {
			sets = append(sets, r.Set)
		}
		bySet[r.Set] = append(bySet[r.Set], r)
	}
	for _, set := range sets {
		rows := bySet[set]
		if len(rows) < 2 {
			continue
		}
		var ords, aucs []string
		var means, cllMeans []float64
		for _, r := range rows {
			ords = append(ords, orderText(r.Order))
			var a, c []float64
			for _, f := range r.Folds {
				a = append(a, f.AUCPR)
				c = append(c, f.CLL)
			}
			m, _ := eval.MeanStd(a)
			mc, _ := eval.MeanStd(c)
			means, cllMeans = append(means, m), append(cllMeans, mc)
			aucs = append(aucs, fmt.Sprintf("%.3f", m))
		}
		spread := func(xs []float64) float64 { return slices.Max(xs) - slices.Min(xs) }
		foldSpread, differ, same := 0.0, 0, true
		for i, f := range rows[0].Folds {
			a := []float64{f.AUCPR}
			choice := false
			for _, r := range rows[1:] {
				if i >= len(r.Folds) || r.Folds[i].Fold != f.Fold {
					continue
				}
				g := r.Folds[i]
				a = append(a, g.AUCPR)
				choice = choice || g.Lambda != f.Lambda || g.Beta != f.Beta
				same = same && g.AUCPR == f.AUCPR && g.CLL == f.CLL
			}
			foldSpread = max(foldSpread, spread(a))
			if choice {
				differ++
			}
		}
		ident := "yes (CLL and AUC-PR equal to the last digit on every fold)"
		if !same {
			ident = "no"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %.4f | %.5f | %.4f | %d of %d | %s |\n", set, strings.Join(ords, ", "), strings.Join(aucs, ", "),
			spread(means), spread(cllMeans), foldSpread, differ, len(rows[0].Folds), ident)
	}
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
	b.WriteString("| data set | folds | atoms/fold | MRC CLL | MRC AUC-PR | paper AUC-PR | baseline CLL | baseline AUC-PR | learn s/fold (wall) | CPU s/fold | problems | invented preds | λ, β (folds) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
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
		fmt.Fprintf(&b, "| %s | %d | %.0f | %s | **%s** | %s | %s | %s | %.1f | %.1f | %.0f | %.0f | %s |\n",
			t.rowName(r), len(r.Folds), mean(at), ms(cll, 4), ms(auc, 3), paper, ms(bc, 4), ms(ba, 3), mean(lw), mean(lc), mean(pr), mean(inv), chosenText(r.Folds))
	}
	t.writeMSL(&b)
	t.writeOrders(&b)
	fmt.Fprintf(&b, "\nMRC options: %d restarts, seed %d, at most %d clusters per set and node, lookahead %v, ", t.Opt.Restarts, t.Opt.Seed, t.Opt.MaxClusters, !t.Opt.NoLookahead)
	if t.Tune != nil {
		nsl := t.Tune.Slices
		if nsl <= 0 {
			nsl = 3
		}
		fmt.Fprintf(&b, "λ in %v and β in %v chosen per fold on the fold's training atoms: each of %d disjoint slices of %g of them (drawn from a hash of the atoms' names) held out in turn, MRC learning on the rest; the held-out log-likelihood and AUC-PR averaged over the slices; the pairs within one standard error of the best log-likelihood compared by AUC-PR, and of those within one standard error of the best AUC-PR the largest λ, then β, kept; then learned on all of them (tuning's time included in the learn columns). ",
			t.Tune.Lambdas, t.Tune.Betas, nsl, t.Tune.Holdout)
	} else {
		fmt.Fprintf(&b, "lambda %g, beta %g. ", t.Opt.Lambda, t.Opt.Beta)
	}
	b.WriteString("Baseline: each relation's training rate, (t+1)/(n+2). ")
	b.WriteString("Paper AUC-PR: Kok & Domingos (2007) as quoted by Sutskever et al. (2009, Table 1), second-hand; the paper's own CLL figures were not found. ")
	b.WriteString("CLL: mean log-probability of the held-out atoms' values, probabilities clipped to [1e-4, 1-1e-4]; AUC-PR pooled over all held-out atoms of a fold.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
