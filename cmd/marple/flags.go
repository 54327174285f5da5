package main

import (
	"fmt"
	"github.com/marple-mln/marple/infer/engines"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/flagcheck"
	"github.com/marple-mln/marple/mln"
)

// The checks of flag values shared by the commands: each returns a usage
// error (exit status 2) naming the flag, or nil.

// check checks the world flags: -maxMem and -workers must be
// positive.
func (w *worldFlags) check() error {
	if w.maxMem <= 0 {
		return usagef("-maxMem must be positive (MiB), not %d", w.maxMem)
	}
	if w.workers < 0 {
		return usagef("-workers must not be negative, not %d", w.workers)
	}
	if w.workers == 0 {
		w.workers = engines.DefaultSettings().Workers // every core
	}
	return nil
}

// atLeast returns a usage error unless every flag's value is at least
// min.
func atLeast(min int, flags map[string]int) error {
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if v := flags[name]; v < min {
			return usagef("-%s must be at least %d, not %d", name, min, v)
		}
	}
	return nil
}

// checkDuration returns a usage error for a negative duration flag.
func checkDuration(name string, d time.Duration) error {
	if d < 0 {
		return usagef("-%s must not be negative, not %v", name, d)
	}
	return nil
}

// checkFinite returns a usage error unless every flag's value is a finite
// number.
func checkFinite(flags map[string]float64) error {
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if v := flags[name]; math.IsNaN(v) || math.IsInf(v, 0) {
			return usagef("-%s must be a finite number, not %v", name, v)
		}
	}
	return nil
}

// nonNegative returns a usage error unless v, the value of flag name, is a
// finite number at least 0.
func nonNegative(name string, v float64) error {
	return usage(flagcheck.NonNegative(name, v))
}

// positive returns a usage error unless v, the value of flag name, is a
// finite number above 0.
func positive(name string, v float64) error {
	return usage(flagcheck.Positive(name, v))
}

// checkOutput returns a usage error naming flag name unless path can be
// written: its directory exists and takes new files, and path is not a
// directory (flagcheck.Output). The commands check their outputs before
// any work.
func checkOutput(name, path string) error {
	return usage(flagcheck.Output(name, path))
}

// usage turns a flag check's error into a usage error.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err.Error()}
}

// needModel returns a usage error when no model file is given.
func needModel(files string) error {
	if len(splitList(files)) == 0 {
		return usagef("no model: give -i model.mln")
	}
	return nil
}

// needPreds returns a usage error when a predicate list flag names no
// predicate ("-ne ," included).
func needPreds(name, list string) error {
	if len(splitList(list)) == 0 {
		return usagef("no non-evidence predicates: give -%s Pred1,Pred2", name)
	}
	return nil
}

// checkTraining refuses training databases without any atom (learning
// from them would write all-zero weights, or a model without structure).
func checkTraining(m *mln.Model, dbs []*mln.Database, names []string) error {
	for i, db := range dbs {
		n := 0
		for p := range m.Preds {
			n += db.Count(mln.PredID(p))
		}
		if n == 0 {
			name := "the training data"
			if len(dbs) == len(names) {
				name = names[i]
			} else if len(names) > 0 {
				name = fmt.Sprint(names)
			}
			return fmt.Errorf("%s holds no ground atom: nothing to learn from", name)
		}
	}
	return nil
}

// checkWeights refuses learned weights that are not finite numbers,
// naming the formula.
func checkWeights(m *mln.Model) error {
	for i, w := range m.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || math.Abs(w) > maxWeight {
			where := fmt.Sprintf("parameter %d", i)
			if i < len(m.ParamFormula) {
				where = "the formula at " + m.Formulas[m.ParamFormula[i]].Pos.String()
			}
			return fmt.Errorf("learning diverged: the weight of %s is %v (lower the learning rate -eta, or raise the regularisation)", where, w)
		}
	}
	return nil
}

// maxWeight is the largest learned weight magnitude accepted: past it,
// sums of weights overflow to infinity in inference.
const maxWeight = 1e150

// writeCheckpoint writes the model learned so far after an interruption
// when at least one step (an example, an iteration) was learned, saying
// how many; otherwise it leaves out untouched and says so.
func writeCheckpoint(stderr io.Writer, cmd, out string, m *mln.Model, steps int, unit string) error {
	if steps <= 0 {
		fmt.Fprintf(stderr, "marple %s: interrupted before any %s was learned; %s left untouched\n", cmd, unit, out)
		return nil
	}
	if err := checkWeights(m); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "marple %s: interrupted after %d %ss; writing the weights learned so far to %s\n", cmd, steps, unit, out)
	return atomicfile.Write(out, func(w io.Writer) error { return mln.WriteModel(w, m) })
}

// printWarnings prints the evidence's warnings on stderr.
func printWarnings(stderr io.Writer, dbs ...*mln.Database) {
	for _, db := range dbs {
		for _, w := range db.Warnings {
			fmt.Fprintf(stderr, "marple: warning: %v\n", w)
		}
	}
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
