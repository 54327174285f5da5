package experiment

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/marple-mln/marple/examples"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// The rows of Huynh & Mooney's max-margin slides (ECML-PKDD 2009): the
// max-margin learner with LP-relaxation MPE in training and testing
// against PSCG tested with MC-SAT, and the two cross rows of "where does
// the improvement come from?".
const (
	RowMMLP    = "MM-Hamming-LPRelax"
	RowMMMCSAT = "MM-Hamming-MCSAT"
	RowPSCG    = "PSCG-MCSAT"
	RowPSCGLP  = "PSCG-LPRelax"
)

// MaxMarginRows are the rows in table order.
var MaxMarginRows = []string{RowMMLP, RowMMMCSAT, RowPSCG, RowPSCGLP}

// Defaults of the max-margin experiment's PSCG and MC-SAT (chosen to fit the
// whole experiment in 15 minutes on two cores; Alchemy's defaults are 100
// iterations and, for these models, 100 MC-SAT steps per iteration).
const (
	DefaultMMPSCGIter    = 25
	DefaultMMPSCGSamples = 50
	DefaultMMTestSamples = 500
	// DefaultMMEpsilonPerAtom: 0.1% of the query atoms.
	DefaultMMEpsilonPerAtom = 0.001
	// DefaultMMMaxRounds bounds the rounds of loss-augmented LP per C
	// (planes from the constraint cache come on top). Each C starts from
	// the previous one's working set. CiteSeer converges well within it;
	// on WebKB the LP-relaxed oracle keeps the violation far above ε (see
	// the README), and 100 rounds per C is what fits 15 minutes.
	DefaultMMMaxRounds = 100
)

// MaxMarginConfig configures RunMaxMargin.
type MaxMarginConfig struct {
	// Data is the data root, holding citeseer/ and webkb/.
	Data string
	// Datasets names the data sets to run: "citeseer", "webkb" (default
	// both).
	Datasets []string
	// Folds restricts the test folds (CiteSeer topics, WebKB departments
	// "dept1".."dept4"; default all).
	Folds []string
	// Cs is the grid of C (default learn.CGrid): the max-margin learner is
	// trained with each and tested with the one best on training F1.
	Cs []float64
	// PSCGIter and PSCGSamples are PSCG's iterations and MC-SAT steps per
	// iteration; TestSamples the MC-SAT samples of testing (defaults
	// above).
	PSCGIter, PSCGSamples, TestSamples int
	// EpsilonPerAtom is the max-margin learner's stopping tolerance in
	// Hamming loss per query atom (ε per example is this times the mean
	// query atoms of an example: a CiteSeer citation has about 75, a WebKB
	// department about 1,800); MaxRounds bounds its cutting-plane rounds.
	EpsilonPerAtom float64
	MaxRounds      int
	// FoldWorkers is the number of folds run at once (0: GOMAXPROCS).
	FoldWorkers int
	// Seed seeds MC-SAT and the LP rounding.
	Seed int64
	// Progress receives a line per finished step (optional); Verbose adds
	// one per cutting-plane round.
	Progress io.Writer
	Verbose  bool
	// Journal, when set, records each completed fold and gives back the
	// folds a killed run completed.
	Journal *Journal
}

// MaxMarginResult is one data set's result.
type MaxMarginResult struct {
	Dataset string
	Folds   []string
	Cs      []float64
	// F1 holds, per row, the test F1 (percent) of each fold.
	F1 map[string][]float64
	// ChosenC is the C chosen on each fold; TrainF1 and TestF1 hold the
	// max-margin learner's F1 (LP-relaxation MPE) per fold and C.
	ChosenC         []float64
	TrainF1, TestF1 [][]float64
	// QueryAtoms and Clauses are the size of each fold's test network.
	QueryAtoms, Clauses []int
	// MMSeconds is the time of the max-margin runs of all Cs per fold
	// (with their training and test predictions), PSCGSeconds that of
	// PSCG's learning.
	MMSeconds, PSCGSeconds []float64
	// Unconverged counts the max-margin runs (fold and C) stopped by
	// MaxRounds before meeting ε.
	Unconverged int
}

// MaxMarginTable is the result of RunMaxMargin.
type MaxMarginTable struct {
	Results                            []*MaxMarginResult
	PSCGIter, PSCGSamples, TestSamples int
	EpsilonPerAtom                     float64
	MaxRounds                          int
	Seconds                            float64
}

// WebKBDepartments are the four departments of the shared WebKB data
// (SOURCE.txt does not say which number is which university).
var WebKBDepartments = []string{"dept1", "dept2", "dept3", "dept4"}

// RunMaxMargin runs the experiment of the max-margin slides: leave one
// topic (CiteSeer, ISM model) or one department (WebKB,
// examples/webkb/webkb.mln) out; the max-margin learner (1-slack
// structural SVM, Hamming loss, loss-augmented LP relaxation + ROUNDUP as
// the separation oracle) with each C of the grid, tested with the C best on
// training F1, by LP-relaxation MPE and by MC-SAT marginals ≥ 0.5; PSCG
// (learn.Discriminative) tested the same two ways.
func RunMaxMargin(ctx context.Context, cfg MaxMarginConfig) (*MaxMarginTable, error) {
	start := time.Now()
	if cfg.PSCGIter <= 0 {
		cfg.PSCGIter = DefaultMMPSCGIter
	}
	if cfg.PSCGSamples <= 0 {
		cfg.PSCGSamples = DefaultMMPSCGSamples
	}
	if cfg.TestSamples <= 0 {
		cfg.TestSamples = DefaultMMTestSamples
	}
	if len(cfg.Cs) == 0 {
		cfg.Cs = learn.CGrid
	}
	if cfg.EpsilonPerAtom <= 0 {
		cfg.EpsilonPerAtom = DefaultMMEpsilonPerAtom
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = DefaultMMMaxRounds
	}
	sets := cfg.Datasets
	if len(sets) == 0 {
		sets = []string{"citeseer", "webkb"}
	}
	table := &MaxMarginTable{PSCGIter: cfg.PSCGIter, PSCGSamples: cfg.PSCGSamples, TestSamples: cfg.TestSamples,
		EpsilonPerAtom: cfg.EpsilonPerAtom, MaxRounds: cfg.MaxRounds}
	for _, set := range sets {
		var all []string
		var load func(ctx context.Context, fold string) (*fold, error)
		switch set {
		case "citeseer":
			dir := filepath.Join(cfg.Data, "citeseer")
			if err := checkCiteSeer(dir); err != nil {
				return nil, err
			}
			all = Topics
			load = func(ctx context.Context, t string) (*fold, error) {
				return loadFold(ctx, CiteSeerConfig{Dir: dir}, t)
			}
		case "webkb":
			depts, err := readWebKB(filepath.Join(cfg.Data, "webkb"))
			if err != nil {
				return nil, err
			}
			all = WebKBDepartments
			load = func(ctx context.Context, d string) (*fold, error) { return loadWebKBFold(ctx, depts, d) }
		default:
			return nil, fmt.Errorf("maxmargin: unknown data set %q (citeseer or webkb)", set)
		}
		var names []string
		for _, name := range all {
			if len(cfg.Folds) == 0 || slices.Contains(cfg.Folds, name) {
				names = append(names, name)
			}
		}
		// The folds are independent: run FoldWorkers at a time, each
		// into its own result, merged in fold order.
		parts := make([]*MaxMarginResult, len(names))
		errs := eachFold(len(names), cfg.FoldWorkers, func(i int) (err error) {
			parts[i], err = unit(cfg.Journal, "maxmargin/"+set+"/"+names[i], func() (*MaxMarginResult, error) {
				part := &MaxMarginResult{Dataset: set, Cs: cfg.Cs, F1: map[string][]float64{}}
				f, err := load(ctx, names[i])
				if err != nil {
					return nil, err
				}
				return part, part.runFold(ctx, f, names[i], cfg)
			})
			return err
		})
		res := &MaxMarginResult{Dataset: set, Cs: cfg.Cs, F1: map[string][]float64{}}
		for i, part := range parts {
			if errs[i] != nil {
				return nil, fmt.Errorf("maxmargin: %s, test %s: %w", set, names[i], errs[i])
			}
			res.merge(part)
		}
		if len(res.Folds) == 0 {
			return nil, fmt.Errorf("maxmargin: no fold of %s among %v", set, cfg.Folds)
		}
		table.Results = append(table.Results, res)
	}
	table.Seconds = time.Since(start).Seconds()
	return table, nil
}

// merge appends the folds of p.
func (r *MaxMarginResult) merge(p *MaxMarginResult) {
	r.Folds = append(r.Folds, p.Folds...)
	r.ChosenC = append(r.ChosenC, p.ChosenC...)
	r.TrainF1 = append(r.TrainF1, p.TrainF1...)
	r.TestF1 = append(r.TestF1, p.TestF1...)
	for _, row := range MaxMarginRows {
		r.F1[row] = append(r.F1[row], p.F1[row]...)
	}
	r.QueryAtoms = append(r.QueryAtoms, p.QueryAtoms...)
	r.Clauses = append(r.Clauses, p.Clauses...)
	r.MMSeconds = append(r.MMSeconds, p.MMSeconds...)
	r.PSCGSeconds = append(r.PSCGSeconds, p.PSCGSeconds...)
	r.Unconverged += p.Unconverged
}

// runFold runs every row on one fold and appends its results.
func (r *MaxMarginResult) runFold(ctx context.Context, f *fold, name string, cfg MaxMarginConfig) error {
	logf := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "maxmargin: %s, test %s: "+format+"\n", append([]any{r.Dataset, name}, args...)...)
		}
	}
	lpMAP := mapEngine("lp", 1)
	predictLP := func(net *ground.Network) ([]bool, error) { return predict(ctx, mapEngine("lp", 0), net, cfg.Seed) }
	ms := engines.DefaultSettings()
	ms.Samples = cfg.TestSamples
	sampler, err := engines.NewMarginal("mcsat", ms)
	if err != nil {
		return err
	}
	predictMCSAT := func(net *ground.Network) ([]bool, error) {
		p, err := sampler.Marginals(ctx, net, infer.Options{Seed: cfg.Seed})
		if err != nil {
			return nil, err
		}
		y := make([]bool, len(p))
		for a, v := range p {
			y[a] = v >= 0.5
		}
		return y, nil
	}
	test := func(w []float64, predict func(*ground.Network) ([]bool, error)) (float64, error) {
		copyWeights(f.test, f.train, w)
		f.testNet.SetWeights()
		y, err := predict(f.testNet)
		if err != nil {
			return 0, err
		}
		f1, _, _ := maskedF1(y, f.testTruth, f.testMask)
		return f1, nil
	}
	zero := func() {
		for i := range f.train.Weights {
			f.train.Weights[i] = 0
		}
	}

	// The max-margin learner with each C; the C best on training F1. Its
	// stopping tolerance ε is per example: scale it to the examples' size.
	atoms := 0
	for _, mask := range f.trainMask {
		for _, m := range mask {
			if m {
				atoms++
			}
		}
	}
	eps := cfg.EpsilonPerAtom * float64(atoms) / float64(f.src.Len())
	t0 := time.Now()
	trainF1 := make([]float64, len(r.Cs))
	testF1 := make([]float64, len(r.Cs))
	var best []float64
	bestC := -1
	// Every C starts from the previous one's cutting planes and cached
	// labels (constraints of the 1-slack problem whatever C is): the grid
	// runs in the given order, ascending by default.
	ws := &learn.WorkingSet{}
	for i, c := range r.Cs {
		zero()
		n := f.src.Len()
		st, err := learn.Batch(ctx, f.train, f.src, learn.MaxMargin{C: c, Epsilon: eps, MaxIter: cfg.MaxRounds, Planes: ws, Cache: learn.DefaultMaxMarginCache}, learn.Settings{Solver: lpMAP, Seed: cfg.Seed, Progress: func(p learn.Progress) {
			if p.Done%n == 0 && cfg.Verbose {
				logf("MM C %g: round %d, loss %.3f (%.1fs)", c, p.Pass+1, p.Loss, time.Since(t0).Seconds())
			}
		}})
		if err != nil {
			return err
		}
		if trainF1[i], err = f.trainF1(ctx, mapEngine("lp", 0), cfg.Seed); err != nil {
			return err
		}
		if testF1[i], err = test(f.train.Weights, predictLP); err != nil {
			return err
		}
		if !st.Converged {
			r.Unconverged++
		}
		if bestC < 0 || trainF1[i] > trainF1[bestC] {
			bestC, best = i, append(best[:0], f.train.Weights...)
		}
		logf("MM C %g: %d rounds (+%d planes from the cache), converged %v, train F1 %.2f, test F1 %.2f (%.1fs so far)",
			c, st.Iterations, st.CachedRounds, st.Converged, trainF1[i], testF1[i], time.Since(t0).Seconds())
	}
	mmMCSAT, err := test(best, predictMCSAT)
	if err != nil {
		return err
	}
	r.MMSeconds = append(r.MMSeconds, time.Since(t0).Seconds())

	// PSCG, tested with MC-SAT and with the LP relaxation.
	zero()
	t0 = time.Now()
	st, err := learn.Discriminative(ctx, f.train, f.src, learn.DiscriminativeSettings{
		MaxIter: cfg.PSCGIter, Samples: cfg.PSCGSamples, Seed: cfg.Seed,
	})
	if err != nil {
		return err
	}
	r.PSCGSeconds = append(r.PSCGSeconds, time.Since(t0).Seconds())
	pscg := append([]float64(nil), f.train.Weights...)
	pscgMCSAT, err := test(pscg, predictMCSAT)
	if err != nil {
		return err
	}
	pscgLP, err := test(pscg, predictLP)
	if err != nil {
		return err
	}
	logf("PSCG: %d iterations (%.1fs): MC-SAT %.2f, LP %.2f; MM (C %g): LP %.2f, MC-SAT %.2f",
		st.Iterations, r.PSCGSeconds[len(r.PSCGSeconds)-1], pscgMCSAT, pscgLP, r.Cs[bestC], testF1[bestC], mmMCSAT)

	r.Folds = append(r.Folds, name)
	r.ChosenC = append(r.ChosenC, r.Cs[bestC])
	r.TrainF1 = append(r.TrainF1, trainF1)
	r.TestF1 = append(r.TestF1, testF1)
	r.F1[RowMMLP] = append(r.F1[RowMMLP], testF1[bestC])
	r.F1[RowMMMCSAT] = append(r.F1[RowMMMCSAT], mmMCSAT)
	r.F1[RowPSCG] = append(r.F1[RowPSCG], pscgMCSAT)
	r.F1[RowPSCGLP] = append(r.F1[RowPSCGLP], pscgLP)
	q := 0
	for _, m := range f.testMask {
		if m {
			q++
		}
	}
	r.QueryAtoms = append(r.QueryAtoms, q)
	r.Clauses = append(r.Clauses, f.testNet.NumClauses())
	return nil
}

// webkbDept is one department of the shared WebKB data, rewritten for
// examples/webkb/webkb.mln.
type webkbDept struct {
	lines []string        // the department's atoms: Has(Word,Page), PageClass(Class,Page), Linked(P1,P2)
	words map[string]bool // the words the department's files list
}

var (
	webkbHas   = regexp.MustCompile(`^Has([A-Za-z0-9_]+)\(([A-Za-z0-9_]+)\)$`)
	webkbClass = regexp.MustCompile(`^PageClass([A-Za-z0-9_]+)\(([A-Za-z0-9_]+)\)$`)
	webkbFile  = regexp.MustCompile(`-train([0-9]+)\.db$`)
)

// readWebKB reads the shared WebKB files: webkb-foldXY-trainN.db holds
// department N (each department is in two files, with different words).
// Every atom is rewritten for the binary predicates of webkb.mln, and only
// the words that every department's files list are kept (a word missing
// from a department's files is unknown there, not absent).
func readWebKB(dir string) (map[string]*webkbDept, error) {
	files, err := filepath.Glob(filepath.Join(dir, "webkb-fold*-train*.db"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("webkb: %s does not hold the WebKB data (webkb-fold*-train*.db)", dir)
	}
	sort.Strings(files)
	depts := map[string]*webkbDept{}
	seen := map[string]map[string]bool{}
	for _, file := range files {
		m := webkbFile.FindStringSubmatch(file)
		name := "dept" + m[1]
		d := depts[name]
		if d == nil {
			d = &webkbDept{words: map[string]bool{}}
			depts[name], seen[name] = d, map[string]bool{}
		}
		fh, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		for ln := 1; sc.Scan(); ln++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "//") {
				continue
			}
			out := line
			if h := webkbHas.FindStringSubmatch(line); h != nil {
				d.words[h[1]] = true
				out = "Has(" + h[1] + "," + h[2] + ")"
			} else if c := webkbClass.FindStringSubmatch(line); c != nil {
				out = "PageClass(" + c[1] + "," + c[2] + ")"
			} else if !strings.HasPrefix(line, "Linked(") {
				fh.Close()
				return nil, fmt.Errorf("%s:%d:1: unexpected atom %q", file, ln, line)
			}
			if !seen[name][out] {
				seen[name][out] = true
				d.lines = append(d.lines, out)
			}
		}
		err = sc.Err()
		fh.Close()
		if err != nil {
			return nil, err
		}
	}
	for _, name := range WebKBDepartments {
		if depts[name] == nil {
			return nil, fmt.Errorf("webkb: no file of department %s in %s", name, dir)
		}
	}
	common := WebKBWords(depts)
	for _, d := range depts {
		kept := d.lines[:0]
		for _, l := range d.lines {
			if h := strings.TrimPrefix(l, "Has("); h != l && !common[h[:strings.IndexByte(h, ',')]] {
				continue
			}
			kept = append(kept, l)
		}
		d.lines = kept
	}
	return depts, nil
}

// WebKBWords returns the words every department lists.
func WebKBWords(depts map[string]*webkbDept) map[string]bool {
	common := map[string]bool{}
	first := true
	for _, name := range WebKBDepartments {
		d := depts[name]
		if d == nil {
			continue
		}
		for w := range d.words {
			if first {
				common[w] = true
			}
		}
		for w := range common {
			if !d.words[w] {
				delete(common, w)
			}
		}
		first = false
	}
	return common
}

// loadWebKBFold grounds the WebKB model on the three departments other
// than test (one example per department) and on test.
func loadWebKBFold(ctx context.Context, depts map[string]*webkbDept, test string) (*fold, error) {
	var train []string
	deptOf := map[string]int{}
	for i, name := range WebKBDepartments {
		if name == test {
			continue
		}
		for _, l := range depts[name].lines {
			train = append(train, l)
			if strings.HasPrefix(l, "PageClass(") || strings.HasPrefix(l, "Has(") {
				deptOf[l[strings.IndexByte(l, ',')+1:len(l)-1]] = i
			}
		}
	}
	f := &fold{}
	t0 := time.Now()
	m, net, truth, mask, err := groundWebKB(ctx, strings.Join(train, "\n"))
	if err != nil {
		return nil, err
	}
	key := func(a int32) int64 {
		if d, ok := deptOf[m.ConstName(net.AtomArgs[a][1])]; ok {
			return int64(d)
		}
		return -1
	}
	// One example per department, cut out of the whole training network
	// and kept (the cutting-plane rounds and PSCG visit each many times);
	// an example's mask is its PageClass atoms.
	f.train = m
	if f.src, err = learn.Collect(ctx, learn.NewComponentSource(net, truth, mask, key)); err != nil {
		return nil, err
	}
	f.trainMask = make([][]bool, len(f.src))
	for i, ex := range f.src {
		f.trainMask[i] = ex.Query
	}
	f.groundSeconds = time.Since(t0).Seconds()
	f.test, f.testNet, f.testTruth, f.testMask, err = groundWebKB(ctx, strings.Join(depts[test].lines, "\n"))
	return f, err
}

// groundWebKB grounds examples/webkb/webkb.mln with PageClass as the query
// predicate against the atoms db (PageClass atoms are the truth).
func groundWebKB(ctx context.Context, db string) (*mln.Model, *ground.Network, []bool, []bool, error) {
	text, err := examples.File("webkb/webkb.mln")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	m, err := mln.ParseModel("webkb.mln", text)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	truth, err := mln.ParseDatabase(m, "webkb.db", db)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := m.Compile(); err != nil {
		return nil, nil, nil, nil, err
	}
	pc, _ := m.Pred("PageClass")
	ev := truth.Without(pc.ID)
	net, err := ground.Ground(ctx, m, ev, ground.Options{Query: []mln.PredID{pc.ID}, Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	mask := make([]bool, net.NumAtoms())
	for a := range mask {
		mask[a] = net.AtomPred[a] == pc.ID
	}
	return m, net, net.Assignment(truth), mask, nil
}

// Average returns the mean of xs (NaN when empty).
func average(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// WriteMarkdown writes the F1 tables, the chosen C, the sensitivity to C
// and the times.
func (t *MaxMarginTable) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	for _, r := range t.Results {
		unit := "topic"
		if r.Dataset == "webkb" {
			unit = "department"
		}
		fmt.Fprintf(&b, "### %s, F1 (train on the other %ss, test on one %s)\n\n| method |", r.Dataset, unit, unit)
		for _, f := range r.Folds {
			fmt.Fprintf(&b, " %s |", f)
		}
		b.WriteString(" average |\n|---|")
		for range r.Folds {
			b.WriteString("---:|")
		}
		b.WriteString("---:|\n")
		for _, row := range MaxMarginRows {
			fmt.Fprintf(&b, "| %s |", row)
			for _, v := range r.F1[row] {
				fmt.Fprintf(&b, " %.2f |", v)
			}
			fmt.Fprintf(&b, " **%.2f** |\n", average(r.F1[row]))
		}
		b.WriteString("| C chosen on training F1 |")
		for _, c := range r.ChosenC {
			fmt.Fprintf(&b, " %g |", c)
		}
		b.WriteString(" |\n| test query atoms, ground clauses |")
		for i := range r.Folds {
			fmt.Fprintf(&b, " %d, %d |", r.QueryAtoms[i], r.Clauses[i])
		}
		b.WriteString(" |\n\n")
		fmt.Fprintf(&b, "Sensitivity to C (MM-Hamming-LPRelax, average over the %ss):\n\n| C | train F1 | test F1 |\n|---:|---:|---:|\n", unit)
		tr, te := r.perC()
		for i, c := range r.Cs {
			fmt.Fprintf(&b, "| %g | %.2f | %.2f |\n", c, tr[i], te[i])
		}
		fmt.Fprintf(&b, "\nTime per fold: max-margin, all %d values of C with their predictions %.1f s; PSCG learning %.1f s. Max-margin runs stopped by the round limit before ε: %d of %d.\n\n",
			len(r.Cs), average(r.MMSeconds), average(r.PSCGSeconds), r.Unconverged, len(r.Cs)*len(r.Folds))
	}
	fmt.Fprintf(&b, "Max-margin: ε %g Hamming loss per query atom, at most %d cutting-plane rounds. PSCG: %d iterations of %d MC-SAT steps; MC-SAT testing: %d samples; marginals ≥ 0.5 are true. Whole run: %.0f s.\n",
		t.EpsilonPerAtom, t.MaxRounds, t.PSCGIter, t.PSCGSamples, t.TestSamples, t.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}

// perC returns the max-margin learner's train and test F1 per C averaged
// over the folds.
func (r *MaxMarginResult) perC() (train, test []float64) {
	for i := range r.Cs {
		var a, b []float64
		for k := range r.Folds {
			a = append(a, r.TrainF1[k][i])
			b = append(b, r.TestF1[k][i])
		}
		train, test = append(train, average(a)), append(test, average(b))
	}
	return train, test
}

// SensitivityChart is the F1-against-C chart of one data set: the
// max-margin learner's train and test F1 per C, with PSCG-MCSAT's test F1
// as a reference line.
func (r *MaxMarginResult) SensitivityChart() *LineChart {
	tr, te := r.perC()
	pscg := make([]float64, len(r.Cs))
	var xs []string
	for i, c := range r.Cs {
		pscg[i] = average(r.F1[RowPSCG])
		xs = append(xs, fmt.Sprintf("%g", c))
	}
	return &LineChart{
		Title:  fmt.Sprintf("%s: F1 of MM-Hamming-LPRelax against C (average over %d folds)", r.Dataset, len(r.Folds)),
		XLabel: "C", YLabel: "F1 (%)", X: xs,
		Series: []Series{{Name: "MM test F1", Y: te}, {Name: "MM train F1", Y: tr}, {Name: "PSCG-MCSAT test", Y: pscg, Dashed: true}},
	}
}
