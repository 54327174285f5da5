// Package transfer implements deep transfer via Markov logic (DTM, Davis &
// Domingos, ICML 2009): it finds second-order regularities in a source
// domain and turns them into candidate clauses for a target domain.
//
// A clique template (Template) is a conjunction of two or three literals
// over predicate variables (r, s, t) and object variables (x, y, z),
// unique up to renaming of both kinds of variables; distinct variables
// never unify (r ≠ s, x ≠ z). Enumerate lists the templates. A clique is a
// template whose predicate variables are bound to source predicates of the
// right arity, with object variables typed consistently. Its empirical
// distribution over the 2^k truth assignments of its literals is counted
// over every grounding of its object variables by distinct constants
// (Source.Count; exact, by bit-parallel joins over dense tables); atoms the
// data leave unknown remove the groundings that touch them. A
// decomposition splits the clique's literals into sub-cliques; it is
// scored by the KL divergence between the clique's distribution and the
// product of its parts' marginals; a clique's score is the minimum over
// its decompositions and a template's score the average of its K best
// cliques (Discover).
//
// Instantiate binds a template's predicate variables to a target domain's
// predicates and gives, for each binding, the 2^k clauses of its feature
// template (every sign combination), the declarative bias that DTM's
// transfer modes (seed, greedy, refine) feed to structure learning.
package transfer
