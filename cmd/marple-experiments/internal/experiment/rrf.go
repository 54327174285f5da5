package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/eval"
	"github.com/marple-mln/marple/internal/cputime"
	"github.com/marple-mln/marple/rrf"
)

// The recursive random field experiment (Lowd and Domingos, IJCAI 2007,
// "probabilistic integrity constraints"): a knowledge base of integrity
// constraints on UW-CSE's advisedBy relation (from the hand-built
// uw.mln), learned from four areas and queried on the fifth, as a Markov
// logic network (one weight per constraint) and as a recursive random
// field (the same constraints with a weight on every literal, conjunction
// and quantifier), both through package rrf: the same pseudo-likelihood
// learner and the same Gibbs sampler, so the two differ by their nested
// weights alone.

const rrfDecls = `professor(person)
student(person)
publication(title, person)
taughtBy(course, person, quarter)
courseLevel(course, level)
introCourse(course)
hasPosition(person, position)
projectMember(project, person)
advisedBy(person, person)
inPhase(person, phase)
tempAdvisedBy(person, person)
yearsInProgram(person, integer)
ta(course, person, quarter)
samePerson(person, person)
sameTitle(title, title)
sameCourse(course, course)
sameProject(project, project)
sameQuarter(quarter, quarter)
sameLevel(level, level)
samePosition(position, position)
samePhase(phase, phase)
sameInteger(integer, integer)
`

// RRFMLN is the knowledge base as a Markov logic network: each integrity
// constraint one formula, its weight to learn (0 to start).
const RRFMLN = rrfDecls + `
// An advisee is a student, an advisor a professor (not a visitor).
0 !advisedBy(s, p) v student(s)
0 !advisedBy(s, p) v professor(p)
0 !advisedBy(s, p) v !hasPosition(p, Faculty_visiting)
// At most one advisor; not both a temporary and a permanent one.
0 !advisedBy(s, p) v !advisedBy(s, q) v p = q
0 !(EXIST p tempAdvisedBy(s, p)) v !advisedBy(s, q)
// Not advised before the quals; a student past them has an advisor.
0 !inPhase(s, Pre_Quals) v !advisedBy(s, p)
0 !student(s) v inPhase(s, Pre_Quals) v EXIST p advisedBy(s, p)
// A student and a professor who write together are advisee and advisor.
0 !publication(t, s) v !publication(t, p) v !student(s) v !professor(p) v advisedBy(s, p)
// A student past the quals who assists a professor's graduate course is advised by them.
0 !inPhase(s, Post_Quals) v !taughtBy(c, p, q) v !ta(c, s, q) v courseLevel(c, Level_100) v advisedBy(s, p)
0 advisedBy(s, p)
`

// RRFNested is the same knowledge base as a recursive random field: every
// literal of a constraint weighted 2 (a soft disjunction that is 0.86 with
// one literal true), the existential "has an advisor" soft, and the shared
// papers and courses soft existentials over conjunctions weighted 5 (a
// conjunction with a false atom is e^-5 or less), each true one adding 1 to
// the existential's sum: they count.
const RRFNested = rrfDecls + `
0 (2 !advisedBy(s, p) v 2 student(s))
0 (2 !advisedBy(s, p) v 2 professor(p))
0 (2 !advisedBy(s, p) v 2 !hasPosition(p, Faculty_visiting))
0 (2 !advisedBy(s, p) v 2 !advisedBy(s, q) v 2 (p = q))
0 (2 !(EXIST p tempAdvisedBy(s, p)) v 2 !advisedBy(s, q))
0 (2 !inPhase(s, Pre_Quals) v 2 !advisedBy(s, p))
0 (2 !student(s) v 2 inPhase(s, Pre_Quals) v 2 (EXIST p 2 advisedBy(s, p)))
0 (2 !student(s) v 2 !professor(p) v -2 (EXIST t 1 (5 publication(t, s) ^ 5 publication(t, p))) v 2 advisedBy(s, p))
0 (2 !inPhase(s, Post_Quals) v -2 (EXIST c, q 1 (5 taughtBy(c, p, q) ^ 5 ta(c, s, q) ^ -5 courseLevel(c, Level_100))) v 2 advisedBy(s, p))
0 advisedBy(s, p)
`

// RRFAreas are UW-CSE's five areas, the folds.
var RRFAreas = []string{"ai", "graphics", "language", "systems", "theory"}

// RRFConfig configures the experiment.
type RRFConfig struct {
	Dir     string   // the data folder (holding uw-cse/)
	Folds   []string // test areas (default: all five)
	Samples int      // Gibbs samples per chain
	BurnIn  int
	Chains  int
	MaxIter int // L-BFGS iterations
	Seed    int64
	// Progress receives a line per stage.
	Progress io.Writer
}

// ErrNoData is returned when the data folder has no UW-CSE data.
var ErrNoData = errors.New("no UW-CSE data")

// RRFRow is one model's figures on one test area.
type RRFRow struct {
	Model, Area   string
	Atoms         int // advisedBy atoms scored
	True          int
	CLL, AUCPR    float64
	LearnCPU      time.Duration
	InferCPU      time.Duration
	PLL           float64 // training pseudo-log-likelihood
	Iterations    int
	Status        string
	MaxRhat       float64
	Converged     bool
	LearnedModel  string // the learned model (printed)
	Weights       int
	GroundFormula int
}

// RRFResult holds every row.
type RRFResult struct {
	Config RRFConfig
	Rows   []*RRFRow
}

// RunRRF runs the experiment: for each test area, learn each model on the
// other four (each its own database) and infer advisedBy on the test area
// given every other predicate.
func RunRRF(ctx context.Context, cfg RRFConfig) (*RRFResult, error) {
	dir := filepath.Join(cfg.Dir, "uw-cse")
	for _, a := range RRFAreas {
		if _, err := os.Stat(filepath.Join(dir, a+".db")); err != nil {
			return nil, fmt.Errorf("%w at %s", ErrNoData, dir)
		}
	}
	folds := cfg.Folds
	if len(folds) == 0 {
		folds = RRFAreas
	}
	for _, f := range folds {
		if !slices.Contains(RRFAreas, f) {
			return nil, fmt.Errorf("unknown fold %q (the areas are %s)", f, strings.Join(RRFAreas, ", "))
		}
	}
	tmp, err := os.MkdirTemp("", "marple-rrf")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	models := []struct{ name, text string }{{"MLN", RRFMLN}, {"RRF", RRFNested}}
	for _, m := range models {
		if err := os.WriteFile(filepath.Join(tmp, m.name+".mln"), []byte(m.text), 0o644); err != nil {
			return nil, err
		}
	}
	res := &RRFResult{Config: cfg}
	for _, test := range folds {
		var train []string
		for _, a := range RRFAreas {
			if a != test {
				train = append(train, filepath.Join(dir, a+".db"))
			}
		}
		for _, m := range models {
			row := &RRFRow{Model: m.name, Area: test}
			progress(cfg.Progress, "rrf: %s, test %s: learning", m.name, test)
			c0 := cputime.Now()
			run, err := rrf.LearnModel(ctx, rrf.LearnConfig{Models: []string{filepath.Join(tmp, m.name+".mln")}, Train: train,
				NonEvidence: []string{"advisedBy"}, Multiple: true, Options: rrf.LearnOptions{MaxIter: cfg.MaxIter, Progress: cfg.Progress}})
			if err != nil {
				return nil, fmt.Errorf("%s, test %s: %w", m.name, test, err)
			}
			row.LearnCPU = time.Duration(cputime.Now() - c0)
			row.PLL, row.Iterations, row.Status, row.Weights = run.Result.PLL, run.Result.Iterations, run.Result.Status, len(run.Result.Weights)
			var b strings.Builder
			if err := run.Write(&b); err != nil {
				return nil, err
			}
			row.LearnedModel = b.String()
			learned := filepath.Join(tmp, m.name+"-"+test+".mln")
			if err := os.WriteFile(learned, []byte(row.LearnedModel), 0o644); err != nil {
				return nil, err
			}

			progress(cfg.Progress, "rrf: %s, test %s: Gibbs sampling", m.name, test)
			c0 = cputime.Now()
			model, db, q, err := rrf.LoadProblem([]string{learned}, []string{filepath.Join(dir, test+".db")}, []string{"advisedBy"}, "q")
			if err != nil {
				return nil, err
			}
			// Training mode: every advisedBy atom is a variable, its value
			// in the database the truth; sampling ignores it.
			net, err := rrf.Ground(ctx, model, db, rrf.GroundOptions{Query: q, Train: true})
			if err != nil {
				return nil, err
			}
			mg, err := rrf.Gibbs(ctx, net, model.Weights(), rrf.GibbsOptions{Samples: cfg.Samples, BurnIn: cfg.BurnIn, Chains: cfg.Chains, Seed: cfg.Seed})
			if err != nil {
				return nil, err
			}
			row.InferCPU = time.Duration(cputime.Now() - c0)
			row.Atoms, row.GroundFormula = len(net.Atoms), net.NumGroundings()
			for _, v := range net.Init {
				if v {
					row.True++
				}
			}
			row.CLL = eval.CLL(mg.P, net.Init)
			row.AUCPR = eval.AUCPR(mg.P, net.Init)
			row.MaxRhat, row.Converged = mg.Diag.MaxRhat, mg.Converged()
			progress(cfg.Progress, "rrf: %s, test %s: CLL %.4f, AUC-PR %.4f, %s", m.name, test, row.CLL, row.AUCPR, mg.Summary())
			res.Rows = append(res.Rows, row)
		}
	}
	return res, nil
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// WriteMarkdown writes the table: per model and test area CLL, AUC-PR and
// CPU, then the averages, then the learned RRF of the last fold.
func (r *RRFResult) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "| model | test area | advisedBy atoms (true) | CLL | AUC-PR | learn CPU s | infer CPU s | L-BFGS iterations | max R-hat |\n")
	fmt.Fprintf(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	type sum struct {
		cll, auc, lcpu, icpu float64
		n                    int
	}
	sums := map[string]*sum{}
	var order []string
	for _, row := range r.Rows {
		conv := ""
		if !row.Converged {
			conv = " (not converged)"
		}
		fmt.Fprintf(w, "| %s | %s | %d (%d) | %.4f | %.4f | %.1f | %.1f | %d | %.3f%s |\n", row.Model, row.Area, row.Atoms, row.True,
			row.CLL, row.AUCPR, row.LearnCPU.Seconds(), row.InferCPU.Seconds(), row.Iterations, row.MaxRhat, conv)
		s, ok := sums[row.Model]
		if !ok {
			s = &sum{}
			sums[row.Model] = s
			order = append(order, row.Model)
		}
		s.cll += row.CLL
		s.auc += row.AUCPR
		s.lcpu += row.LearnCPU.Seconds()
		s.icpu += row.InferCPU.Seconds()
		s.n++
	}
	for _, m := range order {
		s := sums[m]
		n := float64(s.n)
		fmt.Fprintf(w, "| **%s, mean** | | | **%.4f** | **%.4f** | %.1f | %.1f | | |\n", m, s.cll/n, s.auc/n, s.lcpu/n, s.icpu/n)
	}
	for i := len(r.Rows) - 1; i >= 0; i-- {
		if row := r.Rows[i]; row.Model == "RRF" {
			fmt.Fprintf(w, "\nThe RRF learned with %s as the test area (%d weights):\n\n```\n%s```\n", row.Area, row.Weights, stripDecls(row.LearnedModel))
			break
		}
	}
	return nil
}

// stripDecls drops a printed model's declarations, keeping its formulas.
func stripDecls(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.Contains(rrfDecls, strings.TrimSpace(line)) {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
