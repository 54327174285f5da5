package main

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/eval"
)

const evalSynopsis = `-r predicted.result -t truth.db -q Pred1,Pred2 [-e evidence.db -tokens] [-json]

Scores a result file against the truth: per query predicate and micro-averaged
precision, recall, F1 and Hamming loss; for marginal results ("atom
probability" lines) also CLL and AUC-PR. The truth's query predicates are
closed world: unlisted atoms are false. With -tokens (CiteSeer), only
InField(bib,field,position) atoms whose position carries a Token in the -e
evidence are scored, as in the segmentation papers.

Columns: atoms scored; TP, FP, FN, TN (true and false positives and
negatives at -threshold); prec, recall, F1; Hamming (FP+FN) and Ham/N
(Hamming over the atoms scored; "-" when the prediction does not list
every query atom, as a MAP result lists only the true ones, so N is
unknown); for marginals CLL (mean log-probability of the true value),
AUC-PR (area under the precision-recall curve, Davis & Goadrich) and AP
(average precision, tied atoms forming one step).`

func runEval(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "eval", evalSynopsis)
	var (
		result    = fs.String("r", "", "predicted result file(s), comma-separated (required)")
		truth     = fs.String("t", "", "truth database file(s), comma-separated (required)")
		query     = fs.String("q", "", "query predicates to score, comma-separated (default: all)")
		evidence  = fs.String("e", "", "evidence database file(s) for -tokens")
		tokens    = fs.Bool("tokens", false, "score only InField atoms at positions carrying a Token in -e (CiteSeer)")
		threshold = fs.Float64("threshold", 0.5, "probability from which a marginal counts as a true prediction")
		asJSON    = fs.Bool("json", false, "write the report as JSON")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *result == "" || *truth == "" {
		return usagef("give the prediction (-r) and the truth (-t)")
	}
	if *tokens && *evidence == "" {
		return usagef("-tokens needs the evidence (-e evidence.db)")
	}
	if !(*threshold > 0 && *threshold <= 1) {
		return usagef("-threshold must be above 0 and at most 1, not %v", *threshold)
	}
	pred, err := eval.LoadAtoms(splitList(*result)...)
	if err != nil {
		return err
	}
	gold, err := eval.LoadAtoms(splitList(*truth)...)
	if err != nil {
		return err
	}
	for _, q := range splitList(*query) {
		if pred.Count(q) == 0 && gold.Count(q) == 0 {
			return usagef("-q: unknown predicate %q: no atom of it in the prediction (-r) or the truth (-t)", q)
		}
		// A marginal result lists every query atom: one that lists none of
		// q's would score its true atoms alone (AUC-PR 1).
		if pred.Probabilistic() && pred.Count(q) == 0 {
			return fmt.Errorf("-q: the prediction (-r) has no atom of %s: a marginal result lists every query atom (was %s a query of the inference?)", q, q)
		}
	}
	opt := eval.Options{Query: splitList(*query), Threshold: *threshold}
	if *tokens {
		ev, err := eval.LoadAtoms(splitList(*evidence)...)
		if err != nil {
			return err
		}
		opt.Filter = eval.TokenFilter(ev)
	}
	rep, err := eval.Evaluate(pred, gold, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}
