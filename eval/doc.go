// Package eval scores the predictions of an inference run against the true
// ground atoms: precision, recall, F1 and Hamming loss for MAP results, and
// additionally conditional log-likelihood (CLL), area under the
// precision-recall curve (AUC-PR) and average precision for marginal
// results; per query predicate, micro- and macro-averaged.
//
// The package is independent of the model: it works on ground atoms as text
// (Pred(a1,...,an)), read from Alchemy-style result and database files by a
// small reader of its own (see ParseAtoms for the accepted syntax).
//
// # Result files
//
// A MAP result lists one true ground atom per line; unlisted atoms are
// predicted false. A marginal result lists every query atom with its
// probability, "Smokes(Anna) 0.734" (Alchemy) or "0.734 Smokes(Anna)"
// (Tuffy); "atom 0" / "atom 1" lines are accepted too. A set whose every
// entry carried a number is marked Complete: it is taken to list every
// query atom, which fixes the universe of scored atoms (see Options).
//
// # Truth
//
// Truth is a .db file in the same syntax; "!atom" is false and "?atom"
// unknown. The query predicates are closed-world: their unlisted atoms are
// false. Atoms whose gold or predicted value is unknown are not scored.
//
// # Conventions
//
// Every metric is a finite number (reports contain no NaN): a ratio with a
// zero denominator is 0 (precision with no predicted atom, recall with no
// true atom, F1 when both are 0, AUC-PR with no true atom). An atom is
// predicted true when its value is at least Options.Threshold (0.5 by
// default) and is gold true when its truth value is at least 0.5.
//
// # Usage
//
// What "marple eval -r predicted.result -t truth.db -q InField -e
// evidence.db" does, the evidence serving the CiteSeer token filter:
//
//	pred, err := eval.LoadAtoms("predicted.result")
//	truth, err := eval.LoadAtoms("truth.db")
//	ev, err := eval.LoadAtoms("evidence.db")
//	r, err := eval.Evaluate(pred, truth, eval.Options{
//		Query:  []string{"InField"},
//		Filter: eval.TokenFilter(ev),
//	})
//	r.WriteText(os.Stdout) // or r.WriteJSON(os.Stdout) for -json
//
// Learners can use F1, F1Loss and CountBool on []bool assignments, and
// Average and MeanStd build per-fold tables.
package eval
