// Package experiment reproduces the papers' experiments on their real data
// sets. Each experiment takes the path of the data (../shared/data in a
// development checkout) and reports its numbers next to the paper's.
package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/marple-mln/marple/examples"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// Topics are the four CiteSeer topics, in the papers' order; each is a fold
// (train on the other three, test on it).
var Topics = []string{"constraint", "face", "reasoning", "reinforcement"}

// OnlineMethod is one row of Huynh & Mooney's (SDM 2011) CiteSeer table.
type OnlineMethod struct {
	Name string // the paper's row name, e.g. "CDA-ML-HM"
	// New returns the update rule for a given σ (ignored by rules without
	// one).
	New  func(sigma float64) learn.Method
	Loss learn.LabelLoss
	// Tune is set when the rule has a σ, chosen on training F1 as the
	// paper does for CiteSeer.
	Tune bool
	// Paper holds the paper's F1 per topic (NaN where it gives none), and
	// PaperMinutes its training time per fold.
	Paper        [4]float64
	PaperMinutes float64
	// Batch, when set, makes the row the batch learner learn.Batch with the
	// MaxMargin it returns (New is then unused; C keeps its default, 1000,
	// chosen by cross-validation inside the training topics: training F1
	// only grows with C).
	Batch func() learn.MaxMargin
	// Passes, when positive, overrides CiteSeerConfig.Passes for this row,
	// and the row then visits the examples of every pass in an order
	// shuffled from the seed (repeated passes in one fixed order cycle).
	Passes int
	// Sigma, when positive, fixes σ instead of tuning it.
	Sigma float64
}

var nan = math.NaN()

// OnlineMethods are the rows of Table 1 of Huynh & Mooney (SDM 2011): the
// batch max-margin learner MM-HM and the online ones, plus AdaGrad-FB on the
// ISM model (the OSL paper, which gives only the 4-topic average: 91.18).
var OnlineMethods = []OnlineMethod{
	{Name: "MM-HM", Batch: func() learn.MaxMargin { return learn.MaxMargin{} },
		Loss: learn.Hamming, Paper: [4]float64{93.187, 92.467, 92.581, 95.496}, PaperMinutes: 90.282},
	{Name: "1-best-MIRA-HM", New: func(float64) learn.Method { return &learn.MIRA{Inference: learn.Prediction} },
		Loss: learn.Hamming, Paper: [4]float64{90.982, 90.598, 93.124, 97.518}, PaperMinutes: 11.772},
	{Name: "1-best-MIRA-F1", New: func(float64) learn.Method { return &learn.MIRA{Inference: learn.Prediction} },
		Loss: learn.F1, Paper: [4]float64{89.764, 90.046, 93.200, 96.841}, PaperMinutes: 11.768},
	{Name: "Subgradient-HM", New: func(s float64) learn.Method { return &learn.Subgradient{Sigma: s, Inference: learn.MaxLoss} },
		Loss: learn.Hamming, Tune: true, Paper: [4]float64{90.957, 89.859, 91.505, 95.318}, PaperMinutes: nan},
	{Name: "CDA-PL-HM", New: func(s float64) learn.Method { return &learn.CDA{Sigma: s, Inference: learn.Prediction} },
		Loss: learn.Hamming, Tune: true, Paper: [4]float64{91.245, 90.992, 92.589, 96.516}, PaperMinutes: 11.869},
	{Name: "CDA-PL-F1", New: func(s float64) learn.Method { return &learn.CDA{Sigma: s, Inference: learn.Prediction} },
		Loss: learn.F1, Tune: true, Paper: [4]float64{91.742, 92.368, 92.726, 96.994}, PaperMinutes: 11.915},
	{Name: "CDA-ML-HM", New: func(s float64) learn.Method { return &learn.CDA{Sigma: s, Inference: learn.MaxLoss} },
		Loss: learn.Hamming, Tune: true, Paper: [4]float64{93.287, 93.204, 93.448, 97.560}, PaperMinutes: 12.887},
	// CDA-ML-HM run to convergence: 20 shuffled passes (the paper makes
	// one) with σ = 1/C = 0.001, the regularisation of MM-HM's objective
	// (½‖w‖² + C·average loss is (σ/2)‖w‖² + average loss scaled by C):
	// the online learner of the batch learner's objective.
	{Name: "CDA-ML-HM-20", New: func(s float64) learn.Method { return &learn.CDA{Sigma: s, Inference: learn.MaxLoss} },
		Loss: learn.Hamming, Passes: 20, Sigma: 0.001, Paper: [4]float64{93.287, 93.204, 93.448, 97.560}, PaperMinutes: 12.887},
	{Name: "AdaGrad-FB-ISM", New: func(float64) learn.Method { return learn.DefaultAdaGradFB() },
		Loss: learn.Hamming, Paper: [4]float64{nan, nan, nan, nan}, PaperMinutes: 11.20},
}

// PaperAverage returns the average of the paper's figures for a method
// (for AdaGrad-FB-ISM, the OSL paper's average).
func (m OnlineMethod) PaperAverage() float64 {
	if m.Name == "AdaGrad-FB-ISM" {
		return 91.18
	}
	return (m.Paper[0] + m.Paper[1] + m.Paper[2] + m.Paper[3]) / 4
}

// CiteSeerConfig configures the online-learning experiment on CiteSeer.
type CiteSeerConfig struct {
	// Dir is the CiteSeer folder (…/shared/data/citeseer).
	Dir string
	// Methods names the rows to run (default: all OnlineMethods).
	Methods []string
	// Topics names the test topics (default: all four).
	Topics []string
	// Sigmas is the grid σ is tuned on, by F1 on the training topics
	// (default 1, 0.1, 0.01, 0.001).
	Sigmas []float64
	// Passes over the training data (default 1, as in the paper).
	Passes int
	// Seed seeds the engines and, with Shuffle, the order of the examples
	// (otherwise they are visited in file order).
	Seed int64
	// Shuffle visits the training examples in a random order drawn from
	// Seed.
	Shuffle bool
	// NoAverage predicts with the last weights instead of the average.
	NoAverage bool
	// Model is the text of the model to learn (default: the ISM model,
	// examples/citeseer/ism.mln). It must declare InField(bib,field,position)
	// and Token(token,position,bib) as ISM does.
	Model string
	// Progress receives a line per finished run (optional).
	Progress io.Writer
	// Journal, when set, records each completed cell (a method on a test
	// topic) and gives back the cells a killed run completed.
	Journal *Journal
}

// CiteSeerCell is the result of one method on one test topic.
type CiteSeerCell struct {
	F1, Precision, Recall float64
	Sigma                 float64 // the σ used (0 when the method has none)
	Passes                int     // passes over the training examples (0 for the batch learner)
	GroundSeconds         float64 // grounding the training topics
	LearnSeconds          float64 // one learning run (the chosen σ)
	TuneSeconds           float64 // all runs of the σ grid, with their training-set evaluation
	TestSeconds           float64 // grounding and exact MPE on the test topic
	TrainF1               float64 // F1 on the training topics with the learned weights
}

// CiteSeerRow is one method over the test topics.
type CiteSeerRow struct {
	Method OnlineMethod
	Cells  map[string]*CiteSeerCell
}

// CiteSeerTable is the result of RunCiteSeer.
type CiteSeerTable struct {
	Topics []string
	Rows   []*CiteSeerRow
}

// Average returns the mean test F1 (in percent) of a row over the topics
// it has.
func (r *CiteSeerRow) Average(topics []string) float64 {
	s, n := 0.0, 0
	for _, t := range topics {
		if c, ok := r.Cells[t]; ok {
			s += c.F1
			n++
		}
	}
	if n == 0 {
		return nan
	}
	return s / float64(n)
}

// fold holds what every method shares on one test topic: the training
// network and its examples, and the test network.
type fold struct {
	train, test   *mln.Model
	src           learn.Examples // one per training citation, as marple learn -exampleType bib grounds them
	trainMask     [][]bool       // per example: InField atoms at token positions
	testNet       *ground.Network
	testTruth     []bool
	testMask      []bool
	groundSeconds float64
}

// RunCiteSeer runs the experiment: for each test topic, the ISM model is
// learned on the other three topics with each method (one pass, averaged
// weights, exact MPE inside training) and tested with exact MPE, scoring
// InField atoms at token positions (token-level F1).
func RunCiteSeer(ctx context.Context, cfg CiteSeerConfig) (*CiteSeerTable, error) {
	if err := checkCiteSeer(cfg.Dir); err != nil {
		return nil, err
	}
	topics := cfg.Topics
	if len(topics) == 0 {
		topics = Topics
	}
	sigmas := cfg.Sigmas
	if len(sigmas) == 0 {
		sigmas = []float64{1, 0.1, 0.01, 0.001}
	}
	var methods []OnlineMethod
	if len(cfg.Methods) == 0 {
		methods = OnlineMethods
	} else {
		for _, name := range cfg.Methods {
			found := false
			for _, m := range OnlineMethods {
				if m.Name == name {
					methods = append(methods, m)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("citeseer: unknown method %q", name)
			}
		}
	}
	table := &CiteSeerTable{Topics: topics}
	for _, m := range methods {
		table.Rows = append(table.Rows, &CiteSeerRow{Method: m, Cells: map[string]*CiteSeerCell{}})
	}
	for _, topic := range topics {
		var f *fold // loaded for the first cell not in the journal
		for _, row := range table.Rows {
			cell, err := unit(cfg.Journal, "citeseer/"+topic+"/"+row.Method.Name, func() (*CiteSeerCell, error) {
				if f == nil {
					var err error
					if f, err = loadFold(ctx, cfg, topic); err != nil {
						return nil, err
					}
				}
				return f.run(ctx, row.Method, sigmas, cfg)
			})
			if err != nil && f == nil {
				return nil, err
			}
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", row.Method.Name, topic, err)
			}
			row.Cells[topic] = cell
			if cfg.Progress != nil {
				train := "" // no train F1 when σ was not tuned
				if !math.IsNaN(cell.TrainF1) {
					train = fmt.Sprintf("train F1 %6.2f, ", cell.TrainF1)
				}
				fmt.Fprintf(cfg.Progress, "citeseer: %-15s test %-13s F1 %6.2f (%sσ %g, ground %.1fs, learn %.1fs, test %.1fs)\n",
					row.Method.Name, topic, cell.F1, train, cell.Sigma, cell.GroundSeconds, cell.LearnSeconds, cell.TestSeconds)
			}
		}
	}
	return table, nil
}

// checkCiteSeer checks that dir holds the CiteSeer data.
func checkCiteSeer(dir string) error {
	if dir == "" {
		return fmt.Errorf("citeseer: no data folder")
	}
	if _, err := os.Stat(filepath.Join(dir, "face.evidence.db")); err != nil {
		return fmt.Errorf("citeseer: %s does not hold the CiteSeer data (face.evidence.db): %w", dir, err)
	}
	return nil
}

// loadFold grounds the training topics (all but topic), one example per
// citation over its own constants as marple learn -exampleType bib does,
// and the test topic whole, as marple infer does.
func loadFold(ctx context.Context, cfg CiteSeerConfig, topic string) (*fold, error) {
	dir := cfg.Dir
	var trainFiles []string
	for _, t := range Topics {
		if t != topic {
			trainFiles = append(trainFiles, filepath.Join(dir, t+".evidence.db"), filepath.Join(dir, t+".infield.db"))
		}
	}
	f := &fold{}
	t0 := time.Now()
	var err error
	if f.train, f.src, f.trainMask, err = trainExamples(ctx, cfg.Model, trainFiles); err != nil {
		return nil, err
	}
	f.groundSeconds = time.Since(t0).Seconds()

	f.test, f.testNet, f.testTruth, f.testMask, err = groundCiteSeer(ctx,
		cfg.Model, []string{filepath.Join(dir, topic+".evidence.db"), filepath.Join(dir, topic+".infield.db")})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// trainExamples loads the model (ISM when empty) with the training files
// and grounds one example per citation over its own constants, as marple
// learn -exampleType bib does (each ground once and kept: the batch learner
// and the σ grid visit every example many times), with the masks of their
// InField atoms at token positions.
func trainExamples(ctx context.Context, model string, files []string) (*mln.Model, learn.Examples, [][]bool, error) {
	m, db, err := loadCiteSeer(model, files)
	if err != nil {
		return nil, nil, nil, err
	}
	inField, _ := m.Pred("InField")
	bib, _ := m.Type("bib")
	src, _, err := learn.NewExamples(ctx, m, []*mln.Database{db}, learn.ExampleOptions{
		Query: []mln.PredID{inField.ID}, Split: learn.SplitType, Type: bib.ID,
		Ground: ground.Options{Workers: runtime.GOMAXPROCS(0)},
	})
	if err != nil {
		return nil, nil, nil, err
	}
	exs, err := learn.Collect(ctx, src)
	if err != nil {
		return nil, nil, nil, err
	}
	tok := tokenPositions(m, db)
	masks := make([][]bool, len(exs))
	for i, ex := range exs {
		masks[i] = tok.mask(ex.Net)
	}
	return m, exs, masks, nil
}

// groundTopic is groundCiteSeer with the ISM model.
func groundTopic(ctx context.Context, files []string) (*mln.Model, *ground.Network, []bool, []bool, error) {
	return groundCiteSeer(ctx, "", files)
}

// loadCiteSeer loads the model (ISM when empty) with the given evidence
// and truth files, compiled.
func loadCiteSeer(model string, files []string) (*mln.Model, *mln.Database, error) {
	name := "model.mln"
	if model == "" {
		model, name = examples.CiteSeerISM(), "ism.mln"
	}
	m, err := mln.ParseModel(name, model)
	if err != nil {
		return nil, nil, err
	}
	db, err := mln.LoadDatabase(m, files...)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := m.Pred("InField"); !ok {
		return nil, nil, fmt.Errorf("%s declares no InField(bib,field,position)", name)
	}
	if _, ok := m.Pred("Token"); !ok {
		return nil, nil, fmt.Errorf("%s declares no Token(token,position,bib)", name)
	}
	return m, db, m.Compile()
}

// tokens holds the (bib, position) pairs carrying a Token.
type tokens struct {
	inField mln.PredID
	at      map[[2]mln.ConstID]bool
}

func tokenPositions(m *mln.Model, db *mln.Database) tokens {
	inField, _ := m.Pred("InField")
	token, _ := m.Pred("Token")
	tok := tokens{inField: inField.ID, at: map[[2]mln.ConstID]bool{}}
	db.Atoms(token.ID, func(args []mln.ConstID, v mln.Truth) {
		if v == mln.True {
			tok.at[[2]mln.ConstID{args[2], args[1]}] = true
		}
	})
	return tok
}

// mask marks the InField atoms of net at token positions: those scored
// (token-level F1, as marple eval -tokens).
func (tok tokens) mask(net *ground.Network) []bool {
	mask := make([]bool, net.NumAtoms())
	for a := range mask {
		if net.AtomPred[a] == tok.inField {
			args := net.AtomArgs[a]
			mask[a] = tok.at[[2]mln.ConstID{args[0], args[2]}]
		}
	}
	return mask
}

// groundCiteSeer loads the model (ISM when empty) with the given evidence
// and truth files, grounds it whole with InField as the query predicate,
// and returns the network, the true assignment and the mask of InField
// atoms at token positions.
func groundCiteSeer(ctx context.Context, model string, files []string) (*mln.Model, *ground.Network, []bool, []bool, error) {
	m, db, err := loadCiteSeer(model, files)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	inField, _ := m.Pred("InField")
	ev := db.Without(inField.ID)
	net, err := ground.Ground(ctx, m, ev, ground.Options{Query: []mln.PredID{inField.ID}, Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return m, net, net.Assignment(db), tokenPositions(m, db).mask(net), nil
}

// run learns with method m (tuning σ on the training F1 when the method has
// one) and tests the learned weights.
func (f *fold) run(ctx context.Context, m OnlineMethod, sigmas []float64, cfg CiteSeerConfig) (*CiteSeerCell, error) {
	grid := []float64{0}
	switch {
	case m.Sigma > 0:
		grid = []float64{m.Sigma}
	case m.Tune:
		grid = sigmas
	}
	passes, shuffle := cfg.Passes, cfg.Shuffle
	if m.Passes > 0 {
		passes, shuffle = m.Passes, true
	}
	if passes < 1 {
		passes = 1
	}
	cell := &CiteSeerCell{GroundSeconds: f.groundSeconds, TrainF1: -1}
	if m.Batch == nil {
		cell.Passes = passes
	}
	var best []float64
	tune0 := time.Now()
	for _, s := range grid {
		for i := range f.train.Weights {
			f.train.Weights[i] = 0
		}
		t0 := time.Now()
		var err error
		if m.Batch != nil {
			_, err = learn.Batch(ctx, f.train, f.src, m.Batch(), learn.Settings{Solver: exactMAP(1), Loss: m.Loss, Seed: cfg.Seed})
		} else {
			_, err = learn.Online(ctx, f.train, f.src, m.New(s), learn.Settings{
				Solver:    exactMAP(1),
				Loss:      m.Loss,
				Passes:    passes,
				Seed:      cfg.Seed,
				Shuffle:   shuffle,
				NoAverage: cfg.NoAverage,
			})
		}
		if err != nil {
			return nil, err
		}
		learnSec := time.Since(t0).Seconds()
		trainF1 := 0.0
		if len(grid) > 1 {
			if trainF1, err = f.trainF1(ctx, exactMAP(1), cfg.Seed); err != nil {
				return nil, err
			}
		}
		if trainF1 > cell.TrainF1 {
			cell.TrainF1, cell.Sigma, cell.LearnSeconds = trainF1, s, learnSec
			best = append(best[:0], f.train.Weights...)
		}
	}
	cell.TuneSeconds = time.Since(tune0).Seconds()
	if len(grid) == 1 {
		cell.TrainF1 = math.NaN()
	}

	t0 := time.Now()
	copyWeights(f.test, f.train, best)
	f.testNet.SetWeights()
	y, err := predict(ctx, exactMAP(0), f.testNet, cfg.Seed)
	if err != nil {
		return nil, err
	}
	cell.F1, cell.Precision, cell.Recall = maskedF1(y, f.testTruth, f.testMask)
	cell.TestSeconds = time.Since(t0).Seconds()
	return cell, nil
}

// trainF1 returns the token-level F1 (percent) on the training examples
// under the current weights of f.train: each example's network is predicted
// by engine (with seed) and the masked counts are pooled over the examples.
func (f *fold) trainF1(ctx context.Context, engine infer.MAP, seed int64) (float64, error) {
	var c f1Counts
	for i, ex := range f.src {
		ex.Net.SetWeights()
		y, err := predict(ctx, engine, ex.Net, seed)
		if err != nil {
			return 0, err
		}
		c.add(y, ex.Truth, f.trainMask[i])
	}
	f1, _, _ := c.f1()
	return f1, nil
}

// exactMAP is the experiments' MAP engine: exact MPE without a time
// limit, on workers goroutines (0: all cores), failing when a state is
// not proved optimal.
func exactMAP(workers int) infer.MAP { return infer.Proved(mapEngine("exact", workers)) }

// mapEngine returns the registry's engine called name without a time
// limit, on workers goroutines (0: all cores).
func mapEngine(name string, workers int) infer.MAP {
	m, err := engines.NewMAP(name, engines.Settings{Workers: workers})
	if err != nil {
		panic(err) // the names are fixed
	}
	return m
}

// predict returns the MAP state of net by engine, seeded with seed.
func predict(ctx context.Context, engine infer.MAP, net *ground.Network, seed int64) ([]bool, error) {
	r, err := engine.Solve(ctx, net, infer.Options{Seed: seed})
	if err != nil {
		return nil, err
	}
	return r.Assign, nil
}

// copyWeights sets each parameter of dst (allocated by grounding dst) to the
// weight w of the same formula and "+" binding in src, matched by constant
// names; parameters src never saw get 0, the weight a learner starting from
// 0 gives a feature it never met.
func copyWeights(dst, src *mln.Model, w []float64) {
	for p := range dst.Weights {
		f := dst.ParamFormula[p]
		binding := dst.ParamBinding[p]
		ids := make([]mln.ConstID, len(binding))
		ok := true
		for i, c := range binding {
			id, found := src.Const(dst.ConstName(c))
			if !found {
				ok = false
				break
			}
			ids[i] = id
		}
		dst.Weights[p] = 0
		if !ok {
			continue
		}
		if sp, found := src.Formulas[f].Params[mln.BindingKey(ids)]; found && sp < len(w) {
			dst.Weights[p] = w[sp]
		}
	}
}

// maskedF1 returns token-level F1, precision and recall (in percent) of y
// against truth over the masked atoms.
func maskedF1(y, truth, mask []bool) (f1, prec, rec float64) {
	var c f1Counts
	c.add(y, truth, mask)
	return c.f1()
}

// f1Counts accumulates true positives, false positives and false
// negatives.
type f1Counts struct{ tp, fp, fn int }

// add counts y against truth over the masked atoms.
func (c *f1Counts) add(y, truth, mask []bool) {
	for a, m := range mask {
		if !m {
			continue
		}
		switch {
		case y[a] && truth[a]:
			c.tp++
		case y[a]:
			c.fp++
		case truth[a]:
			c.fn++
		}
	}
}

// f1 returns F1, precision and recall in percent.
func (c f1Counts) f1() (f1, prec, rec float64) {
	tp, fp, fn := c.tp, c.fp, c.fn
	if tp+fp > 0 {
		prec = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		rec = float64(tp) / float64(tp+fn)
	}
	if prec+rec > 0 {
		f1 = 2 * prec * rec / (prec + rec)
	}
	return 100 * f1, 100 * prec, 100 * rec
}
