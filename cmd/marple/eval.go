package main

import (
	"context"

	"github.com/marple-mln/marple/eval"
)

const evalSynopsis = `-r predicted.result -t truth.db -q Pred1,Pred2 [-e evidence.db -tokens] [-json]

Scores a result file against the truth: per query predicate and micro-averaged
precision, recall, F1 and Hamming loss; for marginal results ("atom
probability" lines) also CLL and AUC-PR. The truth's query predicates are
closed world: unlisted atoms are false. With -tokens (CiteSeer), only
InField(bib,field,position) atoms whose position carries a Token in the -e
evidence are scored, as in the segmentation papers.`

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
