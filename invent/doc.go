// Package invent does statistical predicate invention: it learns multiple
// relational clusterings (MRC, Kok & Domingos, ICML 2007) of the symbols of
// a relational data set, the constants of every type and the predicate
// symbols, and invents one unary predicate per cluster.
//
// # Model
//
// MRC is finite second-order Markov logic. The symbols are the constants of
// each type and the predicate symbols; predicates of the same argument types
// form one set of symbols and are clustered together (their "group"). A
// clustering partitions one set of symbols; a cluster combination picks one
// cluster for the predicate and one for each argument of a group, and holds
// the ground atoms whose symbols lie in those clusters. The three hard rules
// (every symbol in a cluster, at most one cluster per clustering, every atom
// in exactly one combination) hold by construction: the search works on hard
// assignments and refines each combination on its own, so the leaf
// combinations of the refinement tree partition the atoms.
//
// Each leaf combination k has an atom prediction rule whose closed-form
// weight is the smoothed log-odds of its atoms being true:
//
//	p_k = (t_k + β·π) / (t_k + f_k + β),   w_k = log(p_k / (1 - p_k))
//
// where t_k and f_k count the true and false training atoms in k, β is the
// smoothing parameter and π the rate of true atoms of the predicate group
// (Laplace-smoothed), toward which sparse combinations shrink at every depth
// of the refinement (shrinking toward the refined combination's own rate
// instead compounds down the tree into overconfident leaves). The
// log-posterior of an assignment is, up to a constant,
//
//	Σ_k [ t_k log p_k + f_k log(1 - p_k) ]  -  λ · (number of clusters)
//
// the exponential prior on the number of clusters giving the second term.
// It is computed from counts of true and false atoms per combination (closed
// world over the training atoms: see FromDatabases), never by grounding, and
// updated incrementally when a symbol moves.
//
// # Search
//
// Learn follows the slides' algorithm: hard assignments, greedy search with
// restarts, top-down divisive refinement at two levels. The bottom level
// finds the clusters of one problem (the sets of symbols of a combination
// and its atoms): each restart splits every set at random in two, then
// greedily moves single symbols to the cluster (or a new one) that most
// improves the score and merges clusters while that helps. The top level
// finds the clusterings: when the best restart beats the single-cluster
// assignment, it recurses into every cluster combination that holds both
// true and false atoms, so a symbol is clustered again, differently, in each
// combination it occurs in (the cross-cutting clusterings). A one-level
// lookahead at each node also weighs clustering the predicates alone (their
// best bisection, even one that does not pay for its cluster by itself),
// leaving the constants to each combination, by the node's gain plus its
// combinations' gains. It stops where no refinement improves the MAP score. Restarts run in parallel; each draws
// from a seed derived from Options.Seed and its place in the tree, and the
// best is chosen in restart order, so results do not depend on scheduling.
//
// # Choosing λ and β
//
// Tune chooses λ and β on the training atoms alone: it holds out each of a
// few disjoint slices of them in turn, learns on the rest for every pair of
// a small grid, and scores each pair by the held-out atoms'
// log-likelihood and AUC-PR averaged over the slices. Of the pairs within
// one standard error of the best log-likelihood, those within one standard
// error of the best AUC-PR among them are kept, and of these the most
// regularised (largest λ, then β). marple invent and the MRC experiment do
// this unless both are given.
//
// # Input order
//
// FromDatabases numbers symbols in the order of their names and sorts the
// atoms, and Tune draws its slices from a hash of the atoms' names, so the
// same data read in any order (databases, the atoms in them, and hence the
// constants) gives the same tuning and the same model.
//
// # Prediction
//
// Model.Prob gives the probability of any ground atom: the smoothed rate of
// the leaf combination it falls in. WriteMLN writes the leaf rules as a
// first-order MLN over the invented unary predicates, which marple infer
// runs unchanged with the membership evidence of WriteDB.
package invent
