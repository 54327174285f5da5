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
//
// BeamSearch and ShortestFirst are the batch structure learners of Kok &
// Domingos (2005), as Alchemy's learnstruct runs the first: candidates
// made by the clause construction operators (Operators: add a literal of
// either sign, remove one, flip one; deduplicated by CanonicalKey) are
// scored by a Scorer, the weighted pseudo-log-likelihood with a Gaussian
// prior maximised by L-BFGS (loose tolerances for candidates, warm
// started; tight ones for the model kept), minus Settings.Penalty per
// literal a candidate differs by. Candidates are scored concurrently and
// the result does not depend on the number of workers. LearnBatch builds
// the scorer from training databases with package score's counts
// (score.PLLData: Δ counts by joins, never ground clauses) and runs a
// search. Settings.InitialBeam and Settings.InitialClauses seed a search
// with given clauses (deep transfer's seed beam and transferred clauses).
//
// LearnValidated is what marple learnstruct runs on several training
// databases: it chooses the search's settings (repeated predicates, the
// cap on learned joins' weights, weights per constant) by holding each
// database out in turn, then runs LearnBatch on all of them with the
// choice, and reports the choice and its held-out scores (Choice).
package structure
