package main

// The flags of Alchemy 2.0's infer, learnwts, learnstruct and liftedinfer, and what
// Marple does with each: one table drives both the translation of Alchemy
// command lines (alchemy.go) and the table of docs/alchemy.md.

// alchemyProgs is a set of Alchemy programs.
type alchemyProgs uint8

const (
	alInfer alchemyProgs = 1 << iota
	alLearnwts
	alLearnstruct
	alLiftedinfer

	alInferLearn = alInfer | alLearnwts
	alLearn      = alLearnwts | alLearnstruct
)

// alchemyPrograms lists the programs with the marple command each runs.
var alchemyPrograms = []struct {
	name   string
	prog   alchemyProgs
	marple string
}{
	{"infer", alInfer, "infer"},
	{"learnwts", alLearnwts, "learn"},
	{"learnstruct", alLearnstruct, "learnstruct"},
	{"liftedinfer", alLiftedinfer, "infer"},
}

// alchemyValue is how a flag takes its value.
type alchemyValue uint8

const (
	valNone   alchemyValue = iota // a toggle: no value
	valString                     // the next argument
	valInt                        // the next argument, an integer
	valFloat                      // the next argument, a number
	valBool                       // an optional true/false after the flag
)

// alchemyAction is what Marple does with a flag.
type alchemyAction uint8

const (
	// alMapped: the flag works with Alchemy's meaning, through the Marple
	// flags listed (none when Marple behaves so anyway).
	alMapped alchemyAction = iota
	// alRefused: the flag is refused (exit status 2) with the note, which
	// says what Marple does instead; the value in accept, if any, asks
	// for Marple's behaviour and is accepted.
	alRefused
)

// alchemyFlag is one flag of one or more Alchemy programs.
type alchemyFlag struct {
	name   string
	progs  alchemyProgs
	value  alchemyValue
	action alchemyAction
	marple []string // the Marple flags it sets
	note   string   // mapped: how; refused: what Marple does instead
	accept string   // refused: a value accepted as asking for Marple's behaviour
	// apply translates the value; nil passes it to marple[0] (a toggle
	// sets it to true).
	apply func(c *alchemyCall, v string) error
	// extra marks a flag of Marple's, not Alchemy's, that the program
	// takes under Alchemy's name: the way to Marple's improvements over
	// Alchemy's defaults.
	extra bool
}

// extraFlag is a flag of Marple's taken under Alchemy's name (see
// alchemyFlag.extra).
func extraFlag(name string, progs alchemyProgs, v alchemyValue, marple []string, note string, apply func(*alchemyCall, string) error) alchemyFlag {
	f := custom(name, progs, v, marple, note, apply)
	f.extra = true
	return f
}

// later marks a flag that the translation combines with others at the
// end (alchemyCall.finish).
func later(*alchemyCall, string) error { return nil }

// none maps a flag to no Marple flag: Marple does what it asks anyway.
func none(*alchemyCall, string) error { return nil }

func mapped(name string, progs alchemyProgs, v alchemyValue, marple string, note string) alchemyFlag {
	f := alchemyFlag{name: name, progs: progs, value: v, note: note}
	if marple != "" {
		f.marple = []string{marple}
	} else {
		f.apply = none
	}
	return f
}

func custom(name string, progs alchemyProgs, v alchemyValue, marple []string, note string, apply func(*alchemyCall, string) error) alchemyFlag {
	return alchemyFlag{name: name, progs: progs, value: v, marple: marple, note: note, apply: apply}
}

func refused(name string, progs alchemyProgs, v alchemyValue, note string) alchemyFlag {
	return alchemyFlag{name: name, progs: progs, value: v, action: alRefused, note: note}
}

func refusedBut(name string, progs alchemyProgs, v alchemyValue, accept, note string) alchemyFlag {
	return alchemyFlag{name: name, progs: progs, value: v, action: alRefused, note: note, accept: accept}
}

// Reasons shared by several flags.
const (
	whyLazyLearn = "Marple's learners ground each training database eagerly, refusing groundings above -maxMem (MiB); lazy inference is for infer"
	whyHybrid    = "simulated annealing in hybrid inference is not implemented: -hybrid runs hybrid MaxWalkSAT (-m) or hybrid MC-SAT (-ms)"
	whySimtp     = "discriminative learning samples with MC-SAT; tempering is for inference (infer -simtp)"
	whyLifted    = "hypercube settings of Alchemy's lifted network construction: Marple finds the clusters by colour passing, with nothing to set"
	whyGibbsCv   = "Marple's Gibbs sampler draws -maxSteps samples after -burnMaxSteps steps, with no convergence test"
	whyDclMWS    = "Marple's discriminative learner (-d) computes expectations with MC-SAT and runs no MaxWalkSAT"
	whyDclInf    = "Marple's discriminative learner (-d) computes expectations with MC-SAT only (-ms)"
	whyDclSS     = "Marple's discriminative learner (-d) runs MC-SAT with its default SampleSAT settings"
	whyExact     = "Marple counts every clause's true groundings exactly (as -noSampleClauses): there is no sample to size"
	whyLBGLearn  = "Marple's discriminative learner samples with MC-SAT; lifted blocked Gibbs sampling is for inference (liftedinfer -lvg, marple infer -lbg)"
	whyPrior     = "Marple's structure search fits every weight under a Gaussian prior of mean 0 (Alchemy: the .mln weight, else -priorMean); -priorMean 0 is accepted"
)

// alchemyFlags is the table: every flag of the ARGS tables of Alchemy
// 2.0's infer.cpp, learnwts.cpp and learnstruct.cpp.
var alchemyFlags = []alchemyFlag{
	// Common to the three programs.
	custom("i", alInfer|alLearn|alLiftedinfer, valString, []string{"i"}, "input .mln files; with -multipleDatabases Alchemy reads each database's constants from the 2nd..nth file, Marple from each database itself (so one -i file is then required)", func(c *alchemyCall, v string) error {
		c.set("i", v)
		return nil
	}),
	mapped("cw", alInferLearn, valString, "cw", "closed-world predicates"),
	mapped("ow", alInferLearn, valString, "ow", "open-world predicates"),

	// infer: what is queried and how.
	mapped("e", alInfer|alLiftedinfer, valString, "e", "evidence .db files"),
	mapped("r", alInfer|alLiftedinfer, valString, "r", "results file, in Alchemy's format (liftedinfer: result.dat when not given, as in Alchemy)"),
	mapped("q", alInfer|alLiftedinfer, valString, "q", "query predicates or atoms: Smokes, Friends(Anna,x); the results list only the atoms asked for"),
	mapped("f", alInfer, valString, "f", "file of ground query atoms"),
	mapped("queryEvidence", alInfer, valNone, "queryEvidence", "the query predicates' atoms listed in the evidence are the query atoms; their unlisted atoms are false evidence"),
	mapped("queryEvidence", alLearnwts, valNone, "queryEvidence", "only the -ne atoms a database lists are query atoms; the unlisted ones are false evidence"),
	custom("m", alInfer, valNone, []string{"m"}, "MAP inference, true query atoms; with -mwsMaxSteps or -tries by MaxWalkSAT (-solver mws), else by Marple's exact MAP solver", later),
	custom("a", alInfer, valNone, []string{"a"}, "MAP inference, every query atom with 0 or 1; engine as for -m", later),
	custom("p", alInfer, valNone, []string{"p"}, "Gibbs sampling", later),
	custom("ms", alInfer, valNone, []string{"ms"}, "MC-SAT (also the default, as in Alchemy)", later),
	custom("bp", alInfer, valNone, []string{"bp"}, "loopy belief propagation; the summary line says whether it converged", later),
	custom("m", alLearnwts, valNone, []string{"dMAPCounts"}, "with -dVP (-infer \"-m\"): the voted perceptron counts the MAP state of Marple's default MAP solver instead of sampling with MC-SAT; refused without -dVP: "+whyDclInf, later),
	custom("a", alLearnwts, valNone, []string{"dMAPCounts"}, "as -m", later),
	refused("p", alLearnwts, valNone, whyDclInf),
	mapped("ms", alLearnwts, valNone, "", "MC-SAT is what Marple's discriminative learner samples with"),
	custom("efbp", alInfer, valNone, []string{"bp"}, "expanding frontier BP gives BP's marginals; one inference runs BP (-bp); the library's bp.Frontier updates them after evidence changes", later),
	custom("decision", alInfer, valNone, []string{"decision", "decisionMeaning"}, "Alchemy's decision inference (-decisionMeaning alchemy): the atoms of every utility formula that is a single literal (:u P(x)) are the actions, whatever -q says (Alchemy gives each the weight 20 on its chosen value, Marple fixes it to the value); searched as Alchemy does, by single flips in turn from no action, each kept unless the expected utility falls, until a round brings no better one; the expected utilities exact where the network's parts are small enough, else BP; written as Alchemy writes them (\"Max. Utility: u\" with 6 digits, then the action atoms in Alchemy's order with 0 or 1); where Alchemy's own utilities are wrong, see the deviations above; refused with -m, -a, -p and -ms, with which Alchemy writes an empty results file", later),
	extraFlag("marpleDecision", alInfer, valNone, []string{"decision"}, "with -decision: Marple's decision inference: the -q predicates are the actions (their atoms free, not weighted); maximum expected utility searched part by part (the network's independent parts), exhaustively up to -decisionExact action atoms per part, else by greedy flips (said as approximate); each part's utilities exact (enumeration or variable elimination) when it is small enough, else BP, or MC-SAT with hard clauses, or the engine -bp, -ms or -p names; results as Alchemy's (\"Max. Utility: u\", then each action atom with 0 or 1)", later),
	custom("simtp", alInfer, valNone, []string{"ms", "replicas", "numChains"}, "tempering by replica exchange: MC-SAT chains (-numRuns of them) each with -numSwap replicas at scaled weights that swap states; the weight-1 replicas are recorded", later),
	refused("simtp", alLearnwts, valNone, whySimtp),
	custom("outputNetwork", alInfer, valNone, []string{"outputNetwork", "networkNumbers"}, "writes the ground network to -r in Alchemy's factor graph layout and order (\"variables:\", a line per atom: its arguments' constant numbers; \"factors:\", a line per factor: its atoms' numbers joined by \"/ \", \"// \", its log-factor table), but with the sum of the weights of the ground clauses a factor stands for where Alchemy writes the square of one (a deviation, see above); -networkNames writes the atoms' names", later),
	extraFlag("networkNames", alInfer, valNone, nil, "with -outputNetwork: Marple's layout, each atom by its name (Smokes(John)), not by its arguments' constant numbers, which Alchemy writes without the predicate", later),
	mapped("counts", alInfer, valNone, "counts", "writes, instead of atoms, each formula's count of true groundings (\"count<TAB>formula\" per formula and \"+\" binding): in the MAP world with -m or -a, expected under MC-SAT (the default, -ms); Alchemy 2.0 parses the flag but writes nothing different"),
	mapped("seed", alInferLearn, valInt, "seed", "random seed"),
	custom("lazy", alInfer, valBool, []string{"lazy"}, "lazy inference: lazy MaxWalkSAT with -m or -a, lazy MC-SAT otherwise; only the clauses inference makes active are grounded (-memLimit bounds them)", func(c *alchemyCall, v string) error {
		if v == "true" {
			c.set("lazy", "true")
		}
		return nil
	}),
	refusedBut("lazy", alLearnwts, valBool, "false", whyLazyLearn),
	mapped("lazyNoApprox", alInfer, valBool, "", "Marple's lazy inference never deactivates atoms to save memory: it stops with an error at -memLimit instead"),
	refusedBut("lazyNoApprox", alLearnwts, valBool, "false", whyLazyLearn),
	custom("memLimit", alInferLearn, valInt, []string{"maxMem"}, "memory limit in KB, rounded up to MiB (-1: Marple's default): the grounding's estimate, or with -lazy what lazy inference builds", func(c *alchemyCall, v string) error {
		kb, _ := parseIntValue(v)
		if kb == -1 {
			return nil
		}
		if kb <= 0 {
			return usagef("-memLimit must be positive (KB) or -1, not %s", v)
		}
		c.set("maxMem", itoa((kb+1023)/1024))
		return nil
	}),
	refusedBut("PrintSamplePerIteration", alInfer, valBool, "false", whyHybrid),
	refused("SAInterval", alInfer, valInt, whyHybrid),
	refused("MaxSeconds", alInfer, valInt, whyHybrid+" (-maxSeconds bounds MC-SAT)"),
	refused("SATempDownRatio", alInfer, valFloat, whyHybrid),
	refusedBut("SA", alInfer, valBool, "false", whyHybrid),
	custom("hybrid", alInfer, valBool, []string{"hybrid"}, "hybrid MLN: MAP by hybrid MaxWalkSAT, marginals (-ms) by hybrid MC-SAT", func(c *alchemyCall, v string) error {
		if v == "true" {
			c.set("hybrid", "true")
		}
		return nil
	}),
	refused("propstdev", alInfer, valFloat, "Marple's hybrid MC-SAT moves the continuous atoms by slice sampling, with no proposal to size"),
	mapped("contSamples", alInfer, valString, "contSamples", "file for the samples of the continuous atoms (-hybrid -ms)"),

	// MaxWalkSAT.
	custom("mwsMaxSteps", alInfer, valInt, []string{"mwsMaxSteps", "solver"}, "MaxWalkSAT steps per try; with -m or -a selects MaxWalkSAT (-solver mws)", func(c *alchemyCall, v string) error {
		c.set("mwsMaxSteps", v)
		c.mws = true
		return nil
	}),
	custom("tries", alInfer, valInt, []string{"tries", "solver"}, "MaxWalkSAT tries; with -m or -a selects MaxWalkSAT (-solver mws)", func(c *alchemyCall, v string) error {
		c.set("tries", v)
		c.mws = true
		return nil
	}),
	refused("mwsMaxSteps", alLearnwts, valInt, whyDclMWS),
	refused("tries", alLearnwts, valInt, whyDclMWS),
	custom("targetWt", alInfer, valInt, []string{"targetWt", "solver"}, "MaxWalkSAT stops once the cost of the violated clauses is at most this (and no hard clause is violated); with -m or -a selects MaxWalkSAT (-solver mws)", func(c *alchemyCall, v string) error {
		c.set("targetWt", v)
		c.mws = true
		return nil
	}),
	refused("targetWt", alLearnwts, valInt, whyDclMWS),
	mapped("breakHardClauses", alInfer, valNone, "breakHardClauses", "MaxWalkSAT's original moves, which may break a satisfied hard clause (by default Marple's walk spares them; the exact and LP solvers never break them)"),
	refusedBut("hard", alLearnwts, valBool, "false", whyDclMWS),
	refusedBut("heuristic", alInferLearn, valInt, "2", "Marple's MaxWalkSAT is tabu search (Alchemy's heuristic 2) that takes improving flips first; -heuristic 2 is accepted"),
	mapped("tabuLength", alInferLearn, valInt, "tabuLength", "MaxWalkSAT's tabu length"),
	mapped("lazyLowState", alInferLearn, valBool, "", "how the best state is saved: no effect on the result; Marple keeps it its own way"),

	// MCMC.
	custom("burnMinSteps", alInfer, valInt, []string{"burnIn"}, "burn-in: Marple's -burnIn is -burnMaxSteps (when not -1), at least -burnMinSteps", later),
	custom("burnMaxSteps", alInfer, valInt, []string{"burnIn"}, "burn-in steps (see -burnMinSteps)", later),
	custom("minSteps", alInfer, valInt, []string{"maxSteps"}, "raises the number of samples to at least this", later),
	custom("maxSteps", alInfer, valInt, []string{"maxSteps"}, "MC-SAT and Gibbs: number of samples; BP: maximum iterations", later),
	custom("maxSeconds", alInfer, valInt, []string{"maxSeconds"}, "MC-SAT stops after this many seconds with the samples drawn, and says so (-1: no limit); with -p or -bp it is refused", func(c *alchemyCall, v string) error {
		if n, _ := parseIntValue(v); n > 0 {
			c.set("maxSeconds", v)
		}
		return nil
	}),
	refusedBut("burnMinSteps", alLearnwts, valInt, "0", "Marple's discriminative learner keeps one persistent MC-SAT chain per example, without burn-in; -burnMinSteps 0 is accepted"),
	refusedBut("burnMaxSteps", alLearnwts, valInt, "0", "Marple's discriminative learner keeps one persistent MC-SAT chain per example, without burn-in; -burnMaxSteps 0 is accepted"),
	refusedBut("minSteps", alLearnwts, valInt, "-1", "Marple's discriminative learner takes -maxSteps MC-SAT steps per iteration; -minSteps -1 is accepted"),
	custom("maxSteps", alLearnwts, valInt, []string{"numSamples"}, "MC-SAT steps per example and iteration of discriminative learning", func(c *alchemyCall, v string) error {
		c.set("numSamples", v)
		return nil
	}),
	refusedBut("maxSeconds", alLearnwts, valInt, "-1", "Marple's discriminative learner takes -maxSteps MC-SAT steps per iteration; -dMaxSec bounds learning time"),

	// Simulated tempering.
	refusedBut("subInterval", alInfer, valInt, "2", "Marple's replicas attempt swaps between neighbouring weight scales after every step; only Alchemy's default 2 is accepted"),
	refused("subInterval", alLearnwts, valInt, whySimtp),
	custom("numRuns", alInfer, valInt, []string{"numChains"}, "with -simtp: the number of tempered chains (default 3)", later),
	refused("numRuns", alLearnwts, valInt, whySimtp),
	custom("numSwap", alInfer, valInt, []string{"replicas"}, "with -simtp: replicas per chain (default 10)", later),
	refused("numSwap", alLearnwts, valInt, whySimtp),

	// BP.
	custom("lifted", alInfer, valNone, []string{"lifted"}, "with -bp or -efbp: lifted belief propagation (as in Alchemy, -lifted does not choose BP: with no inference flag MC-SAT runs and -lifted is ignored, with a warning)", later),
	refused("useHC", alInfer, valNone, whyLifted),
	refused("useCT", alInfer, valNone, whyLifted),
	custom("convThresh", alInfer, valFloat, []string{"convThresh"}, "BP converged when no marginal changes by more than this in an iteration", func(c *alchemyCall, v string) error {
		c.set("convThresh", v)
		return nil
	}),
	refused("convIterations", alInfer, valInt, "Marple's BP stops at the first iteration in which no marginal changes by more than -convThresh"),
	refused("explicitRep", alInfer, valNone, whyLifted),
	refused("hcCreateType", alInfer, valString, whyLifted),
	refused("hcCreateNoise", alInfer, valFloat, whyLifted),
	refused("lncIter", alInfer, valInt, whyLifted),
	refused("noHC", alInfer, valString, whyLifted),

	// SampleSAT.
	refused("numSolutions", alInferLearn, valInt, "Marple's SampleSAT keeps the chain at a uniformly drawn solution of each step (Metropolis-Hastings corrected moves): there is no n-th solution to pick"),
	custom("saRatio", alInfer, valInt, []string{"walkProb"}, "percentage of annealing moves in SampleSAT: -walkProb is 1 - saRatio/100", func(c *alchemyCall, v string) error {
		r, _ := parseIntValue(v)
		if r < 0 || r > 100 {
			return usagef("-saRatio must be in [0, 100], not %s", v)
		}
		c.set("walkProb", ftoa(1-float64(r)/100))
		return nil
	}),
	custom("saTemperature", alInfer, valInt, []string{"saTemp"}, "SampleSAT's temperature in hundredths: -saTemp is saTemperature/100", func(c *alchemyCall, v string) error {
		t, _ := parseIntValue(v)
		if t <= 0 {
			return usagef("-saTemperature must be positive, not %s", v)
		}
		c.set("saTemp", ftoa(float64(t)/100))
		return nil
	}),
	refused("saRatio", alLearnwts, valInt, whyDclSS),
	refused("saTemperature", alLearnwts, valInt, whyDclSS),
	refused("lateSa", alInferLearn, valNone, "Marple's SampleSAT mixes annealing and WalkSAT moves from the start (the mix is -saRatio)"),

	// Gibbs sampling.
	mapped("numChains", alInfer, valInt, "numChains", "chains of MC-SAT or Gibbs sampling, run in parallel and pooled; the summary line gives their R-hat"),
	refused("numChains", alLearnwts, valInt, "discriminative learning samples with one persistent MC-SAT chain per network"),
	refused("delta", alInferLearn, valFloat, whyGibbsCv),
	refused("epsilonError", alInferLearn, valFloat, whyGibbsCv),
	refused("fracConverged", alInferLearn, valFloat, whyGibbsCv),
	refused("walksatType", alInferLearn, valInt, "Marple's chains start from worlds satisfying the hard clauses, found by an exact search (WalkSAT when it gives up)"),
	refusedBut("testConvergence", alInfer, valBool, "false", whyGibbsCv),
	refused("samplesPerTest", alInferLearn, valInt, whyGibbsCv),

	// learnwts.
	refused("periodic", alLearnwts, valNone, "Marple writes the model once, at the end ('marple learn -checkpoint' also writes it when interrupted)"),
	custom("infer", alLearnwts, valString, nil, "inference settings of discriminative learning, translated flag by flag as learnwts flags (-ms, -maxSteps, -seed, ...)", later), // set in alchemy.go's init
	custom("d", alLearnwts, valNone, []string{"d"}, "discriminative learning (also the default, as in Alchemy): -method dcll", later),
	custom("g", alLearnwts, valNone, []string{"g", "gAlchemy"}, "generative learning: -method pll with Alchemy's objective and L-BFGS-B (-gAlchemy: the .mln weights as the prior's means, hard formulas learned under the mean 10 and written hard, formulas that are the same clause learn one weight, Alchemy's line search and stop)", later),
	mapped("o", alLearn, valString, "o", "output .mln file"),
	mapped("t", alLearn, valString, "t", "training .db files"),
	custom("l", alLearnwts, valString, []string{"t"}, "file listing the training .db files, one per line", func(c *alchemyCall, v string) error {
		files, err := readListFile(v)
		if err != nil {
			return err
		}
		c.set("t", files)
		return nil
	}),
	mapped("ne", alLearn, valString, "ne", "non-evidence predicates"),
	custom("noAddUnitClauses", alLearnwts, valNone, []string{"addUnitClauses"}, "by default a unit clause of weight 0 is added for every predicate without one (-addUnitClauses), learned and written, as in Alchemy; this flag leaves the model's clauses as they are", later),
	mapped("multipleDatabases", alLearn, valNone, "multipleDatabases", "each .db file is a database with its own constants"),
	mapped("withEM", alLearnwts, valNone, "withEM", "EM over the query atoms the training databases list as unknown (\"?\"); unlisted query atoms are false"),
	custom("dNumIter", alLearnwts, valInt, []string{"maxIter"}, "iterations of discriminative learning", later),
	custom("dMaxSec", alLearnwts, valFloat, []string{"learnTimeLimit"}, "discriminative learning stops after this long, with the weights of the last iteration (-dMaxSec, -dMaxMin, -dMaxHour add up)", later),
	custom("dMaxMin", alLearnwts, valFloat, []string{"learnTimeLimit"}, "as -dMaxSec, in minutes", later),
	custom("dMaxHour", alLearnwts, valFloat, []string{"learnTimeLimit"}, "as -dMaxSec, in hours", later),
	mapped("dLearningRate", alLearnwts, valFloat, "dLearningRate", "learning rate of the voted perceptron (-dVP); conjugate gradient and Newton choose their own step"),
	mapped("dMomentum", alLearnwts, valFloat, "dMomentum", "momentum of the voted perceptron (-dVP)"),
	mapped("dNoPW", alLearnwts, valNone, "dNoPW", "one learning rate for every weight in the voted perceptron (-dVP)"),
	custom("dVP", alLearnwts, valNone, []string{"method"}, "voted perceptron: -method vp", later),
	mapped("dNewton", alLearnwts, valNone, "dNewton", "diagonal Newton instead of conjugate gradient"),
	mapped("dCG", alLearnwts, valNone, "", "preconditioned scaled conjugate gradient: the default"),
	mapped("cgLambda", alLearnwts, valFloat, "cgLambda", "initial trust-region parameter"),
	mapped("cgMaxLambda", alLearnwts, valFloat, "cgMaxLambda", "largest trust-region parameter"),
	mapped("cgMinLLChange", alLearnwts, valFloat, "cgMinLLChange", "stop when a step's predicted gain is below this"),
	mapped("cgNoPrecond", alLearnwts, valNone, "cgNoPrecond", "no diagonal preconditioner"),
	refused("dInitWithLogOdds", alLearnwts, valNone, "Marple's learners start from weight 0"),
	refused("dMwsMaxSubsequentSteps", alLearnwts, valInt, whyDclMWS),
	custom("gMaxIter", alLearnwts, valInt, []string{"maxIter"}, "L-BFGS iterations of generative learning", later),
	mapped("gConvThresh", alLearnwts, valFloat, "gConvThresh", "L-BFGS stops when an iteration improves the pseudo-log-likelihood by less than this fraction"),
	custom("gNoEqualPredWt", alLearnwts, valBool, []string{"gNoEqualPredWt"}, "every atom weighs 1 in the pseudo-log-likelihood", func(c *alchemyCall, v string) error {
		if v == "true" {
			c.set("gNoEqualPredWt", "true")
		}
		return nil
	}),
	mapped("noPrior", alLearn, valNone, "noPrior", "no Gaussian prior on the weights"),
	custom("priorMean", alLearnwts, valFloat, []string{"priorMean"}, "with -g: the prior's mean of the formulas written without a weight and of the added unit clauses, every other formula's being the weight written, as in Alchemy (-gAlchemy); with -d only 0 is accepted: Marple's discriminative learner's prior has mean 0 for every weight", later),
	refusedBut("priorMean", alLearnstruct, valFloat, "0", whyPrior),
	mapped("priorStdDev", alLearn, valFloat, "priorStdDev", "standard deviation of the Gaussian prior (Alchemy's defaults: learnwts 2 with -d, 100 with -g; learnstruct 100)"),
	refused("lvg", alLearnwts, valNone, whyLBGLearn),
	refused("ic", alLearnwts, valString, whyLBGLearn),

	extraFlag("indicators", alInfer, valNone, []string{"indicators", "exactAtoms"}, "MC-SAT: estimate every marginal by the fraction of samples in which the atom is true, as Alchemy (default: the mean of its probability given the rest of each sample, the same marginal with less variance, and exact on small independent parts)", func(c *alchemyCall, v string) error {
		if v == "true" {
			c.set("indicators", "true")
			c.set("exactAtoms", "-1")
		}
		return nil
	}),

	// Marple's improvements on Alchemy's discriminative learning, which
	// learnwts leaves off by default (Alchemy's behaviour); marple learn
	// -d has them on.
	extraFlag("dScaleJointPrior", alLearnwts, valNone, nil, "Marple's prior: σ of a weight whose clauses link query atoms is divided by its connections, the most ground clauses through one atom (marple learn -d's default; learnwts uses Alchemy's one σ for every weight, -dFlatPrior)", later),
	extraFlag("dIndependentStart", alLearnwts, valNone, nil, "-d, -dVP: start from the exact optimum with the formulas that link query atoms at weight 0, the chains from worlds drawn from it (marple learn -d's default; learnwts starts from zero weights and random worlds as Alchemy, -dZeroStart)", later),
	extraFlag("dAdaptiveSamples", alLearnwts, valNone, nil, "-d: double the MC-SAT steps whenever the gradient is within the noise of the samples, and stop converged at -dMaxSamples (marple learn -d's default; learnwts takes -maxSteps steps every iteration as Alchemy, -dFixedSamples)", later),
	extraFlag("dMaxSamples", alLearnwts, valInt, []string{"dMaxSamples"}, "with -dAdaptiveSamples: the most MC-SAT steps per example and iteration (0: 8 × -maxSteps)", nil),
	extraFlag("dTunePrior", alLearnwts, valNone, nil, "-d with -multipleDatabases and no -priorStdDev: choose σ among 0.25, 0.5, 1, 2, 4 by the held-out CLL of the independent start, each database left out in turn (marple learn -d's default; learnwts uses Alchemy's σ = 2)", later),
	extraFlag("dFormulaWeights", alLearnwts, valNone, nil, "-d, -dVP: one weight per formula, shared by the clauses of its CNF (marple learn -d's default; learnwts learns one weight per clause as Alchemy, -dClauseWeights)", later),
	extraFlag("dPriorHessian", alLearnwts, valNone, nil, "-d: PSCG's step length and trust region use the Hessian of the objective, the prior's precision included (marple learn -d's default; learnwts uses the Hessian of the data term alone as Alchemy, -dDataHessian)", later),
	extraFlag("marpleDefaults", alLearnwts, valNone, nil, "all of marple learn -d's defaults: -dScaleJointPrior -dIndependentStart -dAdaptiveSamples -dTunePrior -dFormulaWeights -dPriorHessian, the held-out choice of the joint prior (marple learn -dTuneJointPrior) and star moves in the chains (marple learn -dStars), and at least 25 MC-SAT steps per iteration by default (Alchemy: 100); with -g marple learn -g's: the prior's mean 0 for every weight, one weight per formula, gonum's L-BFGS", later),
	extraFlag("dFlatPrior", alLearnwts, valNone, nil, "one prior σ for every weight, as Alchemy: learnwts's default", later),
	extraFlag("dZeroStart", alLearnwts, valNone, nil, "start from zero weights and random worlds, as Alchemy: learnwts's default", later),
	extraFlag("dFixedSamples", alLearnwts, valNone, nil, "-maxSteps MC-SAT steps every iteration, stopping only on -cgMinLLChange or -dNumIter, as Alchemy: learnwts's default", later),
	extraFlag("dClauseWeights", alLearnwts, valNone, nil, "one weight per clause of a formula's CNF (a formula without quantifiers or \"+\" variables), each clause written as its own formula after the comment \"// w formula\" with the sum, as Alchemy: learnwts's default", later),
	extraFlag("dDataHessian", alLearnwts, valNone, nil, "PSCG's Hessian products without the prior's precision, as Alchemy: learnwts -d's default", later),

	// Marple's improvements on Alchemy's beam search, which learnstruct
	// leaves off by default (Alchemy's behaviour); marple learnstruct has
	// them on.
	extraFlag("marpleDefaults", alLearnstruct, valNone, nil, "marple learnstruct's defaults: -dsa, -constants, -joins, -repeatedPredicates auto, clauses of one predicate only in the beam, -maxGroundings 1000000, screening before refits (learnstruct's defaults are Alchemy's: none of them)", later),
	extraFlag("dsa", alLearnstruct, valNone, []string{"dsa"}, "domain-size-aware weights for clauses with free variables (marple learnstruct's default; learnstruct lets every such clause enter with a plain weight, as Alchemy: -freeVars)", later),
	extraFlag("constants", alLearnstruct, valNone, []string{"constants"}, "with -repeatedPredicates auto and two or more databases: try the learned clauses with a weight per constant, kept when the held-out databases say so (marple learnstruct's default)", later),
	extraFlag("joins", alLearnstruct, valNone, []string{"joins"}, "with -repeatedPredicates auto and two or more databases: search joins, capped by the held-out databases (marple learnstruct's default)", later),
	extraFlag("repeatedPredicates", alLearnstruct, valString, []string{"repeatedPredicates"}, "true, false or auto (marple learnstruct's default: chosen on held-out databases); learnstruct lets clauses repeat a predicate, as Alchemy: true", later),
	extraFlag("maxGroundings", alLearnstruct, valInt, []string{"maxGroundings"}, "skip a candidate whose counting examines more groundings than this per database (marple learnstruct's default 1000000; learnstruct: no bound, as Alchemy)", later),
	extraFlag("refits", alLearnstruct, valInt, []string{"refits"}, "candidates refit with the loose tolerances after screening all by their gain with the other weights fixed (0: marple learnstruct's default; learnstruct refits every candidate, as Alchemy: -1)", later),

	// learnstruct.
	mapped("beamSize", alLearnstruct, valInt, "beamSize", "size of the beam"),
	mapped("minWt", alLearnstruct, valFloat, "minWt", "candidates whose absolute weight is below this are discarded"),
	mapped("penalty", alLearnstruct, valFloat, "penalty", "score penalty per literal a candidate differs by"),
	mapped("maxVars", alLearnstruct, valInt, "maxVars", "most variables in a learned clause"),
	mapped("maxNumPredicates", alLearnstruct, valInt, "maxNumPredicates", "most literals in a learned clause"),
	mapped("cacheSize", alLearnstruct, valInt, "", "size of Alchemy's clause cache: no effect on the result; Marple keeps its counts its own way"),
	mapped("noSampleClauses", alLearnstruct, valNone, "", "Marple always counts true groundings exactly"),
	refusedBut("delta", alLearnstruct, valFloat, "0.05", whyExact+"; -delta 0.05 (Alchemy's default) is accepted"),
	refusedBut("epsilon", alLearnstruct, valFloat, "0.2", whyExact+"; -epsilon 0.2 (Alchemy's default) is accepted"),
	refusedBut("minClauseSamples", alLearnstruct, valInt, "-1", whyExact+"; -minClauseSamples -1 is accepted"),
	refusedBut("maxClauseSamples", alLearnstruct, valInt, "-1", whyExact+"; -maxClauseSamples -1 is accepted"),
	mapped("noSampleAtoms", alLearnstruct, valNone, "noSampleAtoms", "score candidates on every atom"),
	mapped("fractAtoms", alLearnstruct, valFloat, "fractAtoms", "fraction of each predicate's atoms sampled"),
	mapped("minAtomSamples", alLearnstruct, valInt, "minAtomSamples", "least atoms sampled per predicate"),
	mapped("maxAtomSamples", alLearnstruct, valInt, "maxAtomSamples", "most atoms sampled per predicate"),
	mapped("tightMaxIter", alLearnstruct, valInt, "tightMaxIter", "L-BFGS iterations for the model kept"),
	mapped("tightConvThresh", alLearnstruct, valFloat, "tightConvThresh", "L-BFGS convergence threshold for the model kept"),
	mapped("looseMaxIter", alLearnstruct, valInt, "looseMaxIter", "L-BFGS iterations when scoring a candidate"),
	mapped("looseConvThresh", alLearnstruct, valFloat, "looseConvThresh", "L-BFGS convergence threshold when scoring a candidate"),
	mapped("numClausesReEval", alLearnstruct, valInt, "numClausesReEval", "best candidates re-scored with the tight settings"),
	mapped("noWtPredsEqually", alLearnstruct, valNone, "noWtPredsEqually", "every atom weighs 1 in the pseudo-log-likelihood"),
	mapped("startFromEmptyMLN", alLearnstruct, valNone, "startFromEmptyMLN", "start from unit clauses; the input clauses are candidates of the first step"),
	refused("tryAllFlips", alLearnstruct, valNone, "Marple's search flips one literal's sign at a time (its flip operator), not every sign combination of the input clauses"),
	mapped("bestGainUnchangedLimit", alLearnstruct, valInt, "bestGainUnchangedLimit", "beam search stops after this many steps without a new best clause"),

	// liftedinfer. The algorithm, as in Alchemy: -lis, else lifted
	// blocked Gibbs (-lvg, -cls, -lvgc), else -ptpe; with none, LIS for
	// Z without -q, lifted blocked Gibbs with clustering (-lvgc) with -q.
	custom("burnMaxSteps", alLiftedinfer, valInt, []string{"burnIn"}, "lifted blocked Gibbs: burn-in sweeps per chain (50 when not given or not positive, Alchemy's default)", later),
	custom("maxSteps", alLiftedinfer, valInt, []string{"numSamples"}, "lifted blocked Gibbs: sweeps recorded per chain; LIS: samples per estimate (1000 when not given or not positive, as in Alchemy); ignored by -ptpe, as in Alchemy", later),
	custom("maxSeconds", alLiftedinfer, valInt, []string{"maxSeconds"}, "lifted blocked Gibbs: the chains stop after this many seconds with the samples drawn, and say so (not positive: no limit); refused with -lis (bound it by -maxSteps); ignored by -ptpe, as in Alchemy", later),
	custom("ic", alLiftedinfer, valString, []string{"clusters"}, "with -lvg: the cluster file to sample with (Alchemy's format, one merge \"level i j\" per line; default cluster.cls when it exists, else one cluster per predicate)", later),
	custom("oc", alLiftedinfer, valString, []string{"writeClusters"}, "with -cls: the cluster file written (default cluster.cls)", later),
	custom("lvgc", alLiftedinfer, valNone, []string{"lbg", "clusterMode", "writeClusters"}, "lifted blocked Gibbs sampling with clustering (marple infer -lbg): Marple clusters first, then samples, writing the clustering to cluster.cls as Alchemy does (Alchemy runs the two as concurrent processes, the sampler restructuring its blocks as the clustering changes)", later),
	custom("lvg", alLiftedinfer, valNone, []string{"lbg", "clusters", "clusterMode"}, "lifted blocked Gibbs sampling with the clustering of -ic (marple infer -lbg -clusters)", later),
	custom("cls", alLiftedinfer, valNone, []string{"lbg", "clusterOnly", "writeClusters"}, "clustering alone, written to -oc (marple infer -lbg -clusterOnly)", later),
	custom("cmode", alLiftedinfer, valInt, []string{"clusterMode"}, "clustering: 0 sequential (the most coupled pair of clusters first), any other value random order (-clusterMode sequential|random)", later),
	custom("ptpe", alLiftedinfer, valNone, []string{"fomc", "z", "alchemyZ"}, "exact Z and marginals: Marple's lifted weighted first-order model counting (marple infer -fomc; exact counting of the ground network, said so, outside the lifted fragment); prints Z as Alchemy (\"Exact Z = ...\") and log Z at full precision", later),
	custom("lis", alLiftedinfer, valNone, []string{"lis", "z", "alchemyZ"}, "lifted importance sampling of Z (without -q; prints \"iteration=N, ZApprox : ...\" and log Z with its standard error) or of the marginals (marple infer -lis)", later),
	custom("imd", alLiftedinfer, valInt, []string{"lisProposal"}, "LIS proposal: 0 informed (adaptive), 1 binomial (Alchemy's default), 2 uniform", later),
	custom("lr", alLiftedinfer, valFloat, []string{"lisRate"}, "LIS: learning rate of the informed proposal (not positive: 0.001)", later),
	custom("ui", alLiftedinfer, valInt, []string{"lisInterval"}, "LIS: samples between updates of the informed proposal (not positive: 50)", later),
	mapped("cache", alLiftedinfer, valInt, "", "size of PTP's cache: no effect on the answer; Marple's exact counting keeps its own tables"),
	custom("bmf", alLiftedinfer, valFloat, []string{"bmf"}, "clustering: keep merging while a sweep costs at most this times propositional Gibbs sampling's (not at least 1: 1.25, Alchemy's default)", later),
}
