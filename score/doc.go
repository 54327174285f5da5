// Package score computes the weighted pseudo-log-likelihood (WPLL) of
// Markov logic networks on training databases, and fits its weights, from
// first-order clause counts: no clause is ever ground. Structure search
// (packages structure, transfer, invent) scores candidate clauses with it,
// and generative weight learning (learn.GenerativeCounts, `marple learn
// -g`) fits a model's weights with it.
//
// # What it computes
//
// The training data (PLLData) are a compiled model, one or more databases,
// each a closed world (atoms not listed true are false, "?"-listed atoms
// too), and the scored predicates (nil: all). For weights w of clauses c,
//
//	WPLL(w) = Σ_db Σ_a c_a · log P_w(X_a = x_a | MB_x(X_a)),
//
// the sum running over the scored ground atoms a of each database, the
// others fixed at their values in the Markov blankets. The atom weight c_a
// is 1/(number of groundings of a's predicate) in that database, so that
// each predicate, and each database, weighs the same (or 1 with
// PLLOptions.Unweighted). With the count of clause c at atom a,
//
//	Δ_c(a) = n_c(x) − n_c(x with a flipped),
//
// n_c the number of true groundings of c, and s_a = Σ_c w_c·Δ_c(a) (plus
// HardWeight times the counts of hard clauses), an atom's term is
// log σ(s_a) and its gradient σ(−s_a)·Δ_c(a). Fits maximise
// WPLL(w) − Σ w²/(2σ²) (a Gaussian prior, σ = DefaultPLLPriorStdDev unless
// FitOptions say otherwise) with L-BFGS. The structure penalty of a search
// is the caller's.
//
// # How
//
// Counts: PLLData.Counts returns Δ_c(a) for every scored atom of every
// database, as one sparse integer column per database (ClauseCounts),
// computed by joins over the true atoms: a grounding changes with a flip of
// atom a only when every literal of it not on a is false, so the counter
// enumerates exactly those (grounding, atom) pairs, joining negative
// literals over the true atoms and checking positive literals and
// comparisons (see count.go). Counts are cached by CountOptions.Key (nil:
// the literals in their order, variables renamed; structure search passes
// structure.CanonicalKey so that clauses equal up to literal order and
// variable names share their counts), never recomputed for a cached
// clause, and bounded by CountOptions.CacheMB (DefaultCacheMB, Alchemy's
// -cacheSize). PLLData is safe for concurrent use.
//
// Rows: a WPLL holds, per scored atom some clause touches, its row
// (Δ_c(a) over the clauses' parameters, and the hard clauses' offset);
// atoms with equal rows are merged into one row with the summed c_a
// (Alchemy's "compress"), and the untouched atoms, Δ = 0, into a constant.
// An evaluation is one pass over the distinct rows, in fixed blocks
// evaluated concurrently and reduced in block order, so the result does
// not depend on the number of workers. NewWPLL builds the same rows from a
// ground network (learn.Generative); ModelRows from a model's clauses,
// with one parameter per binding of a "+" clause.
//
// Scorer: an immutable base of clauses, each with its own weight (hard
// clauses at HardWeight), with its per-atom rows kept. Score fits base
// plus candidate clauses without touching the base: only the atoms the
// candidates touch are rebuilt, as an overlay over the base's merged rows.
// ScoreReplace also takes base clauses out (a refinement replacing its
// original); ScoreEach scores candidates one by one in parallel,
// deterministically; Add and Remove return new bases. Scorers are safe for
// concurrent use. LooseFit (Alchemy's -looseMaxIter 10, -looseConvThresh
// 1e-3) is for candidates during search, warm-started at the base's
// weights; TightFit (-tightMaxIter 10000, -tightConvThresh 1e-5) for the
// model kept. A loose fit sometimes stops after two iterations with most
// of a candidate's gain still to come (the relative change of the whole
// objective is small), as in Alchemy: rescore the best few with TightFit.
//
// Screen: a base at fixed weights with each atom's log-odds cached.
// Screen.Gain maximises the objective over one candidate's weight alone,
// every other weight fixed (a one-dimensional concave problem over the
// atoms the candidate touches, solved by Newton's method): a lower bound on
// the gain of refitting every weight, from one pass over the candidate's
// counts. Structure search ranks all candidates by it and refits only the
// best.
//
// LogOdds gives the Markov-blanket log-odds of atoms under weighted
// clauses, for predicting held-out atoms.
//
// # Options
//
// CountOptions.OwnDomains gives each database its own domains, the model
// files' constants and those its atoms mention (Alchemy's
// -multipleDatabases; OwnDomains lists them); by default every database
// ranges over the model's domains. ListedOnly scores only the atoms a
// database lists, true or false, for data whose unlisted atoms are unknown
// (they stay false in the Markov blankets). FractAtoms, MinAtomSamples and
// MaxAtomSamples sample each scored predicate's atoms (Alchemy's
// -fractAtoms...; Seed draws the sample; by default every atom is scored,
// exactly): only the sampled atoms' rows are kept, which saves fitting
// time and memory; counting still joins over every atom. MaxGroundings
// bounds the groundings one count may examine per database: beyond it the
// count fails with an error wrapping ErrTooManyGroundings, so a search can
// skip such a candidate.
//
// # Complexity
//
// Counting a clause costs the critical groundings its joins enumerate,
// roughly the true atoms of its negative literals joined on shared
// variables times the domains of the variables only positive literals
// mention; a clause whose positive-only variables range over large
// domains costs the most (MaxGroundings bounds it). The groundings a count
// examines (what MaxGroundings bounds; ClauseCounts.Examined) are those of
// that enumeration, but the counter visits far fewer: variables bound
// after the pivot atom that no later literal joins on are counted in
// closed form from the true atoms (the domain minus the values a true
// atom or the pivot's atom excludes), a step whose new variables nothing
// later mentions, or a step binding the pivot whose continuation does not
// depend on it, enumerates its continuation once and multiplies, and the
// counts, the number of groundings examined and the bound's decision are
// the enumeration's (TestCountSuffixExact). Its column has one
// entry per atom with Δ ≠ 0. Building a base's rows is linear in its
// columns' entries; an evaluation is linear in the distinct rows' entries;
// scoring a candidate rebuilds only the rows of the atoms its column
// touches, then fits by L-BFGS over every row, while a screen gain is
// linear in the candidate's column. For the hand-built UW-CSE model (94
// clauses) on its AI area, counting every clause and fitting the weights
// takes about a second and 22 MB on two cores, against two minutes and
// 3 GB from the ground clauses (BenchmarkModelFit).
//
// # Limits
//
// Supported: comparisons (=, != ...) between universal variables, a
// predicate in several literals of either sign, constants, hard clauses,
// existential clauses. Refused with an error: existential literals sharing
// a predicate with another literal, comparisons over existential
// variables, and "+" variables in a Scorer (ModelRows handles them).
// Alchemy's clause sampling (estimating a clause's true groundings from a
// sample, -noSampleClauses -delta -epsilon) is not done: the scorer needs
// Δ_c(a) at every scored atom, which the joins produce exactly in one pass
// over the true atoms, while Alchemy's sampling estimates a clause's total
// count; MaxGroundings bounds the cost instead. A clause given to Counts or
// Score needs only Lits, Vars and Exist; Formula and Coef are not used
// (build candidates as mln.Clause{Lits, Vars, Coef: 1, Formula: -1}).
//
// # Usage
//
//	d, err := score.NewPLLData(m, dbs, nil, score.CountOptions{Key: structure.CanonicalKey})
//	base, err := d.NewScorer(unitClauses)
//	fit0, err := base.Fit(ctx, score.TightFit(nil))
//	// every candidate against the base, on every core:
//	fits, errs := base.ScoreEach(ctx, cands, score.LooseFit(fit0.Weights), 0)
//	gain := fits[i].Objective - fit0.Objective // errs[i] != nil: skip the candidate
//	base, err = base.Add(best)
//	final, err := base.Fit(ctx, score.TightFit(fit0.Weights))
package score
