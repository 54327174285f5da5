package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infinite"
	"github.com/marple-mln/marple/mln"
)

// analyzeInfinite runs the infinite-domain analysis of check -infinite:
// the query and open-world predicates are random.
func analyzeInfinite(m *mln.Model, db *mln.Database, query []mln.PredID, openWorld, fixed string) (*infinite.Report, error) {
	types, err := typeIDs(m, fixed, "fixed")
	if err != nil {
		return nil, err
	}
	ow, err := preds(m, openWorld, "ow")
	if err != nil {
		return nil, usagef("%v", err)
	}
	random := slices.Clone(query)
	for _, p := range ow {
		if !slices.Contains(random, p) {
			random = append(random, p)
		}
	}
	return infinite.Analyze(m, db, infinite.Options{Query: random, Fixed: types}), nil
}

// typeIDs resolves a comma-separated list of type names.
func typeIDs(m *mln.Model, list, flagName string) ([]mln.TypeID, error) {
	var out []mln.TypeID
	for _, name := range splitList(list) {
		t, ok := m.Type(name)
		if !ok {
			return nil, usagef("-%s: unknown type %q", flagName, name)
		}
		out = append(out, t.ID)
	}
	return out, nil
}

const growSynopsis = `-i model.mln [-graph Friends=ring:2] [-sizes 10,20,40] [-boundary auto|free|true|false|both]

Infers the marginals of the model's random predicates as its domains grow:
each growing type (every type the model does not list) gets the constants
0..n-1 for each size n, the -graph predicates a bounded-degree structure
over them, and every other predicate is random. Each instance is counted
exactly (wmc) while that stays within -exactNodes, then sampled (-solver).
It prints, at each size, the mean marginal over the central half of the
window and the marginal at its centre, then the limit estimated from the
sequence and whether it converged. A model that is not locally finite is
refused with the formulas that make it so; when the uniqueness condition
does not hold, the all-true and all-false boundaries are both run and a
phase transition is reported when their limits differ (docs/infinite.md).`

func runGrow(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "grow", growSynopsis)
	var (
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated")
		graphs     = fs.String("graph", "", "evidence predicates generated at each size, comma-separated: Pred=ring:K or Pred=chain:K, optionally :sym")
		query      = fs.String("q", "", "random predicates, comma-separated (default: every predicate -graph does not generate)")
		fixed      = fs.String("fixed", "", "types whose domains do not grow, comma-separated (listed types are fixed already)")
		sizes      = fs.String("sizes", "", "domain sizes of the window, increasing, comma-separated (default: 10,20,40,80,160, stopping when converged)")
		boundary   = fs.String("boundary", infinite.BoundaryAuto, "outside the window: free, true, false, both, or auto (free when the uniqueness condition holds, both otherwise)")
		border     = fs.Int("border", 1, "constants at each end of a growing type that a true or false boundary fixes")
		tol        = fs.Float64("tol", infinite.DefaultTolerance, "convergence tolerance on the change of a marginal between sizes")
		solver     = fs.String("solver", engines.DefaultMarginal, "marginal engine: "+strings.Join(engines.MarginalNames(), ", ")+", or lazy-mcsat")
		samples    = fs.Int("samples", 0, "samples per chain of mcsat and gibbs (0: the engine's default)")
		exactNodes = fs.Int64("exactNodes", infinite.DefaultExactNodes, "try exact marginals by weighted model counting (wmc) first, up to this many search nodes, before -solver (0: -solver alone); once out of reach, larger sizes go to -solver")
		seed       = fs.Int64("seed", 1, "random seed")
		maxMem     = fs.Int64("maxMem", 8<<10, "refuse groundings estimated above this many MiB")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	files := splitList(*modelFiles)
	if len(files) == 0 {
		return usagef("no model: give -i model.mln")
	}
	gs, err := infinite.ParseGraphs(*graphs)
	if err != nil {
		return usagef("-graph: %v", err)
	}
	var sz []int
	for _, s := range splitList(*sizes) {
		n, err := strconv.Atoi(s)
		if err != nil {
			return usagef("-sizes: %q is not an integer", s)
		}
		sz = append(sz, n)
	}
	set := engines.DefaultSettings()
	set.Samples = *samples
	var report bytes.Buffer
	set.Report = &report
	var eng infer.Marginal
	var lz infinite.LazyMarginal
	if *solver == "lazy-mcsat" {
		l, err := engines.NewLazy(*solver, set)
		if err != nil {
			return usagef("-solver: %v", err)
		}
		lz = l
	} else if eng, err = engines.NewMarginal(*solver, set); err != nil {
		return usagef("-solver: %v", err)
	}
	var exact infer.Marginal
	if *exactNodes < 0 {
		return usagef("-exactNodes: %d is negative", *exactNodes)
	}
	if *exactNodes > 0 && *solver != "wmc" {
		es := set
		es.WMCMaxNodes = *exactNodes
		if exact, err = engines.NewMarginal("wmc", es); err != nil {
			return err
		}
	}
	if _, err := mln.LoadModel(files...); err != nil { // positioned errors before any work
		return err
	}
	res, err := infinite.Grow(ctx, infinite.GrowOptions{
		Load:      func() (*mln.Model, error) { return mln.LoadModel(files...) },
		Query:     splitList(*query),
		Graphs:    gs,
		Fixed:     splitList(*fixed),
		Sizes:     sz,
		Boundary:  *boundary,
		Border:    *border,
		Tolerance: *tol,
		Engine:    eng,
		Lazy:      lz,
		Exact:     exact,
		Diagnostics: func() (string, bool) {
			s := strings.TrimSpace(report.String())
			report.Reset()
			return s, unreliableReport(s)
		},
		Seed:     *seed,
		MaxBytes: *maxMem << 20,
		Log:      e.stderr,
	})
	var refused *infinite.RefusedError
	if errors.As(err, &refused) {
		fmt.Fprintln(e.stdout, res.Analysis.LocalFinitenessVerdict())
		return err
	}
	if err != nil {
		return err
	}
	res.Write(e.stdout)
	if res.Verdict == infinite.VerdictNotConverged {
		fmt.Fprintf(e.stderr, "warning: %s\n", res.Note)
	}
	if w := res.Warning(); w != "" {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	return nil
}

// aboveRhat finds the count of atoms above the R-hat threshold in a
// sampler's report.
var aboveRhat = regexp.MustCompile(`\((\d+) atoms above`)

// unreliableReport reports whether an engine's report line flags its run:
// sampled atoms above the R-hat threshold, BP not converged or not
// confirmed.
func unreliableReport(s string) bool {
	if strings.Contains(s, "UNRELIABLE") || strings.Contains(s, "NOT CONVERGED") {
		return true
	}
	for _, m := range aboveRhat.FindAllStringSubmatch(s, -1) {
		if m[1] != "0" {
			return true
		}
	}
	return false
}
