// Package structure learns the clauses of a Markov logic network.
//
// OSL is the online max-margin structure learner of Huynh & Mooney (ECML
// 2011): for each training example it looks where the current model's
// prediction misses true atoms, finds paths of true atoms around them by
// mode-guided relational pathfinding (Modes, Hypergraph, FindPaths), turns
// the paths into clauses (Clauses), keeps those that separate the truth
// from the prediction by at least MinCountDiff true groundings (World,
// Counter) and learns the weights of all clauses with AdaGrad
// forward-backward and l1 regularisation.
package structure
