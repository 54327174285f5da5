// Package lifted computes the partition function (log Z) and the marginals
// of a Markov logic network without grounding it, by lifted weighted
// first-order model counting, exactly (Exact) or by lifted importance
// sampling (Sample).
//
// # The fragment
//
// Exact handles the domain-liftable two-variable fragment (FO2): every
// clause has at most two logical variables, all universally quantified;
// predicates have at most two arguments; weights of any sign, hard
// clauses, = and != between variables, several types (whose domains must
// not share constants), constants in formulas and evidence of every kind.
// The algorithm is the cell algorithm of Van den Broeck et al. and Beame
// et al. ("Symmetric weighted first-order model counting", PODS 2015):
//
//   - A constant's cell is the value of its atoms that take part in
//     groundings with another constant (for friends and smokers, Smokes
//     alone: two cells). Its other atoms (Cancer(x), Friends(x,x)) are
//     summed out into the cell's weight.
//   - The constants of a type with the same evidence on their own atoms
//     form a class; within a class they are interchangeable, and only the
//     number of them in each cell matters. Z sums, over those counts, the
//     multinomials times the cell weights to the power of the counts times
//     the pair factors r_ij^(k_i k_j) and r_ii^(k_i choose 2), in log space.
//     With two cells and one class this is a sum of n+1 terms.
//   - Evidence on pairs of constants (Friends(Anna,Bob)) and constants
//     written in formulas make their constants "special": their atoms are
//     assigned jointly, outside the counts. Only the atoms over special
//     constants that the other constants' weights read are enumerated (at
//     most Options.MaxSpecialAtoms of them); the rest are summed out by
//     components (weighted model counting of small ground networks).
//   - Marginals are computed once per class of interchangeable atoms
//     (Result.Classes). For an atom of non-special constants (Smokes(Anna),
//     Friends(Anna,Bob), Friends(Anna,S) with S special), one or two
//     constants of its classes are held out of the counts as probes, and
//     the marginal is Z_T / (Z_T + Z_F), both sums made of the same terms.
//     For an atom of special constants it is the share of Z of the outer
//     assignments (or of the special groundings' sums) in which it holds.
//
// The cost grows polynomially with the domain sizes (linearly for friends
// and smokers) and exponentially with the number of cells and of
// interface atoms of special constants. Options.MaxWork bounds it.
//
// A model or evidence outside the fragment (three variables in a clause,
// an existential quantifier, per-constant weights, a ternary predicate,
// too many special atoms, a work bound exceeded) gives a
// *NotLiftableError naming the reason. Exact then counts the ground
// network exactly with package wmc (unless Options.NoFallback) and says so
// in Result.Method, Result.Reason and Result.Warnings.
//
// log Z is that of every world that agrees with the evidence, every
// unknown atom included: unknown atoms that appear in no grounding count a
// factor 2 each. (A ground network leaves those atoms out; the ground
// fallback adds them back, so the methods agree.) log Z is of order n² and
// carries its relative rounding; the marginals are ratios of sums of the
// same terms and lose no digits to the size of log Z.
//
// # Lifted importance sampling
//
// Sample replaces the sums over the cell counts by draws from a proposal
// (Alchemy's liftedinfer -lis with -imd binomial, uniform or informed,
// -lr and -ui) and the enumeration of the special atoms by uniform draws.
// It reports log Z with its standard error (delta method), each marginal
// with its standard error, and the effective sample size; degenerate
// weights give a warning.
package lifted
