package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/examples"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
)

// OSLMethod is one row of Table 1 of Huynh & Mooney (ECML 2011): a starting
// model and either weight learning alone (AdaGrad-FB) or OSL with a
// minCountDiff.
type OSLMethod struct {
	Name string
	// Model is the embedded example file of the starting model.
	Model string
	// MinCountDiff is OSL's threshold; 0 learns the weights only.
	MinCountDiff float64
	// The paper's average F1 over the four topics, training minutes per
	// fold and number of non-zero clauses.
	PaperF1, PaperMinutes, PaperClauses float64
}

// OSLMethods are the rows of the OSL paper's CiteSeer table.
var OSLMethods = []OSLMethod{
	{"AdaGrad-FB-LC_0", "citeseer/lc0.mln", 0, 82.62, 10.40, 2896},
	{"OSL-M2-LC_0", "citeseer/lc0.mln", 2, 92.05, 14.16, 2150},
	{"OSL-M1-LC_0", "citeseer/lc0.mln", 1, 94.47, 163.17, 9395},
	{"AdaGrad-FB-ISM", "citeseer/ism.mln", 0, 91.18, 11.20, 1250},
	{"OSL-M2-ISM", "citeseer/ism.mln", 2, 95.51, 12.93, 1548},
	{"OSL-M1-ISM", "citeseer/ism.mln", 1, 96.48, 148.98, 8476},
	{"OSL-M2-Empty", "citeseer/empty.mln", 2, 88.94, 23.18, 650},
	{"OSL-M1-Empty", "citeseer/empty.mln", 1, 94.03, 257.26, 15212},
}

// OSLConfig configures RunOSL.
type OSLConfig struct {
	// Dir is the CiteSeer folder (…/shared/data/citeseer).
	Dir string
	// Methods names the rows to run (default: all OSLMethods).
	Methods []string
	// Topics names the test topics (default: all four).
	Topics []string
	// Modes is the text of the mode declarations (default:
	// examples/citeseer/citeseer.modes).
	Modes string
	// MaxLen is OSL's maximum path length (default 4, the paper's).
	MaxLen int
	// Seed seeds the MAP engine.
	Seed int64
	// Progress receives a line per finished run (optional).
	Progress io.Writer
	// Journal, when set, records each completed cell (a row on a test
	// topic) and gives back the cells a killed run completed.
	Journal *Journal
}

// OSLCell is the result of one row on one test topic.
type OSLCell struct {
	F1, Precision, Recall float64
	LearnSeconds          float64 // grounding the examples one by one, inference, search, updates
	NonZero               int     // parameters with a non-zero weight at the end
	Added                 int     // clauses OSL added
	Candidates            int     // distinct clauses OSL evaluated
}

// OSLRow is one method over the test topics.
type OSLRow struct {
	Method OSLMethod
	Cells  map[string]*OSLCell
}

// OSLTable is the result of RunOSL.
type OSLTable struct {
	Topics []string
	Rows   []*OSLRow
}

// RunOSL reproduces Table 1 of the OSL paper on CiteSeer: for each test
// topic, each row learns on the other three topics (one pass, one citation
// per example ground when visited, exact MPE, averaged weights, λ = 0.001,
// η = 1, δ = 1, maxLen 4) and is tested with exact MPE, scoring InField
// atoms at token positions.
func RunOSL(ctx context.Context, cfg OSLConfig) (*OSLTable, error) {
	if err := checkCiteSeer(cfg.Dir); err != nil {
		return nil, err
	}
	topics := cfg.Topics
	if len(topics) == 0 {
		topics = Topics
	}
	modes := cfg.Modes
	if modes == "" {
		var err error
		if modes, err = examples.File("citeseer/citeseer.modes"); err != nil {
			return nil, err
		}
	}
	var methods []OSLMethod
	if len(cfg.Methods) == 0 {
		methods = OSLMethods
	}
	for _, name := range cfg.Methods {
		found := false
		for _, m := range OSLMethods {
			if m.Name == name {
				methods = append(methods, m)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("osl: unknown method %q", name)
		}
	}
	table := &OSLTable{Topics: topics}
	for _, m := range methods {
		table.Rows = append(table.Rows, &OSLRow{Method: m, Cells: map[string]*OSLCell{}})
	}
	for _, topic := range topics {
		for _, row := range table.Rows {
			cell, err := unit(cfg.Journal, "osl/"+topic+"/"+row.Method.Name, func() (*OSLCell, error) {
				return runOSLCell(ctx, cfg, row.Method, modes, topic)
			})
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", row.Method.Name, topic, err)
			}
			row.Cells[topic] = cell
			if cfg.Progress != nil {
				fmt.Fprintf(cfg.Progress, "osl: %-16s test %-13s F1 %6.2f (learn %.1fs, %d clauses added of %d tried, %d non-zero)\n",
					row.Method.Name, topic, cell.F1, cell.LearnSeconds, cell.Added, cell.Candidates, cell.NonZero)
			}
		}
	}
	return table, nil
}

func runOSLCell(ctx context.Context, cfg OSLConfig, method OSLMethod, modes, topic string) (*OSLCell, error) {
	var trainFiles []string
	for _, t := range Topics {
		if t != topic {
			trainFiles = append(trainFiles, filepath.Join(cfg.Dir, t+".evidence.db"), filepath.Join(cfg.Dir, t+".infield.db"))
		}
	}
	text, err := examples.File(method.Model)
	if err != nil {
		return nil, err
	}
	m, err := mln.ParseModel(method.Model, text)
	if err != nil {
		return nil, err
	}
	db, err := mln.LoadDatabase(m, trainFiles...)
	if err != nil {
		return nil, err
	}
	if err := m.Compile(); err != nil {
		return nil, err
	}
	inField, ok := m.Pred("InField")
	if !ok {
		return nil, fmt.Errorf("%s declares no InField", method.Model)
	}
	bib, _ := m.Type("bib")
	src, err := learn.NewPartitionSource(m, db, []mln.PredID{inField.ID}, bib.ID, ground.Options{Workers: 1})
	if err != nil {
		return nil, err
	}
	settings := learn.Settings{Solver: exactMAP(1), Loss: learn.Hamming, Seed: cfg.Seed}
	cell := &OSLCell{}
	t0 := time.Now()
	// With a journal, the learner's state is saved every 25 examples
	// beside it, and a cell killed under way continues from there (its
	// learning time adding the time saved with the state).
	var within string
	before := 0.0
	if cfg.Journal != nil {
		within = cfg.Journal.Within("osl/" + topic + "/" + method.Name)
		if c, err := learn.ReadCheckpointFile(within); err == nil {
			settings.Resume = c
			before, _ = strconv.ParseFloat(c.Meta["seconds"], 64)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		settings.CheckpointEvery = 25
		settings.Checkpoint = func(c *learn.Checkpoint) error {
			c.Meta = map[string]string{"seconds": strconv.FormatFloat(before+time.Since(t0).Seconds(), 'g', -1, 64)}
			return atomicfile.Write(within, func(w io.Writer) error { return c.Write(w) })
		}
	}
	if method.MinCountDiff == 0 {
		if _, err := learn.Online(ctx, m, src, learn.DefaultAdaGradFB(), settings); err != nil {
			return nil, err
		}
	} else {
		ms, err := structure.ParseModes(m, "citeseer.modes", []byte(modes))
		if err != nil {
			return nil, err
		}
		o := &structure.OSL{Modes: ms, MaxLen: cfg.MaxLen, MinCountDiff: method.MinCountDiff}
		st, err := o.Learn(ctx, src, settings)
		if err != nil {
			return nil, err
		}
		cell.Added, cell.Candidates = st.Added, st.Candidates
	}
	cell.LearnSeconds = before + time.Since(t0).Seconds()
	for _, w := range m.Weights {
		if w != 0 {
			cell.NonZero++
		}
	}
	// Test the learned model as a user would: written out, read back with
	// the test topic's evidence.
	var buf bytes.Buffer
	if err := mln.WriteModel(&buf, m); err != nil {
		return nil, err
	}
	_, net, truth, mask, err := groundCiteSeer(ctx, buf.String(),
		[]string{filepath.Join(cfg.Dir, topic+".evidence.db"), filepath.Join(cfg.Dir, topic+".infield.db")})
	if err != nil {
		return nil, err
	}
	y, err := predict(ctx, exactMAP(0), net, cfg.Seed)
	if err != nil {
		return nil, err
	}
	cell.F1, cell.Precision, cell.Recall = maskedF1(y, truth, mask)
	return cell, nil
}

// WriteMarkdown writes the table: average F1, training time and non-zero
// clauses per row next to the paper's, and F1 per topic.
func (t *OSLTable) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("### CiteSeer, OSL (Huynh & Mooney, ECML 2011, Table 1): train on three topics, test on the fourth\n\n| system |")
	for _, tp := range t.Topics {
		fmt.Fprintf(&b, " %s |", tp)
	}
	b.WriteString(" average F1 | paper | train s/fold | paper min/fold | non-zero clauses | paper |\n|---|")
	for range t.Topics {
		b.WriteString("---:|")
	}
	b.WriteString("---:|---:|---:|---:|---:|---:|\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "| %s |", r.Method.Name)
		var f1, sec, nz float64
		n := 0
		for _, tp := range t.Topics {
			c, ok := r.Cells[tp]
			if !ok {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %.2f |", c.F1)
			f1 += c.F1
			sec += c.LearnSeconds
			nz += float64(c.NonZero)
			n++
		}
		if n == 0 {
			b.WriteString(" – | – | – | – | – | – |\n")
			continue
		}
		fn := float64(n)
		fmt.Fprintf(&b, " **%.2f** | %.2f | %.1f | %.1f | %.0f | %.0f |\n", f1/fn, r.Method.PaperF1, sec/fn, r.Method.PaperMinutes, nz/fn, r.Method.PaperClauses)
	}
	b.WriteString("\nOne pass, averaged weights, exact MPE in training and testing, λ = 0.001, η = 1, δ = 1, maxLen 4, the mode declarations of examples/citeseer/citeseer.modes; train time includes grounding each citation when it is visited.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
