package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/marple-mln/marple/learn"
)

// Alchemy's command lines: "marple alchemy infer|learnwts|learnstruct
// ARGS", or the marple binary run under the name infer, learnwts or
// learnstruct (a link), takes the command lines of Alchemy 2.0's programs
// unchanged and runs marple infer, learn or learnstruct on their
// translation (alchemy_flags.go says what becomes of each flag).

func init() {
	lookupAlchemyFlag("infer", alLearnwts).apply = func(c *alchemyCall, v string) error {
		return c.translate(splitArgs(v))
	}
	commands = append(commands, command{"alchemy", "Alchemy's infer, learnwts, learnstruct and liftedinfer command lines, unchanged (also as a binary named after one of them)",
		func(ctx context.Context, e *env, args []string) error {
			if code := runAlchemy(ctx, e, args); code != 0 {
				return fmt.Errorf("exit status %d", code)
			}
			return nil
		}})
}

// alchemyArgs returns marple's arguments for the command line osArgs: when
// the program's name is infer, learnwts or learnstruct, that of "marple
// alchemy NAME ...".
func alchemyArgs(osArgs []string) []string {
	if len(osArgs) == 0 {
		return nil
	}
	base := strings.TrimSuffix(filepath.Base(osArgs[0]), ".exe")
	for _, p := range alchemyPrograms {
		if p.name == base {
			return append([]string{"alchemy", base}, osArgs[1:]...)
		}
	}
	return osArgs[1:]
}

// runAlchemy runs "marple alchemy PROGRAM ARGS" and returns the exit
// status.
func runAlchemy(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || isHelp(args[0]) {
		w, code := e.stderr, 2
		if len(args) > 0 {
			w, code = e.stdout, 0
		}
		fmt.Fprintln(w, "usage: marple alchemy infer|learnwts|learnstruct|liftedinfer ARGS (Alchemy 2.0's command lines)")
		fmt.Fprintln(w, "       or the marple binary linked as infer, learnwts, learnstruct or liftedinfer")
		fmt.Fprintln(w, "'marple alchemy PROGRAM -h' lists what Marple does with each of its flags.")
		return code
	}
	name := args[0]
	for _, p := range alchemyPrograms {
		if p.name != name {
			continue
		}
		rest := args[1:]
		if len(rest) == 0 || isHelp(rest[0]) {
			w, code := e.stderr, 2
			if len(rest) > 0 {
				w, code = e.stdout, 0
			}
			printAlchemyUsage(w, p.name, p.prog)
			return code
		}
		c := newAlchemyCall(p.name, p.prog)
		margs, err := c.run(rest)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", name, err)
			return 2
		}
		for _, w := range c.warns {
			fmt.Fprintf(e.stderr, "%s: warning: %s\n", name, w)
		}
		return run(ctx, e, append([]string{p.marple}, margs...))
	}
	fmt.Fprintf(e.stderr, "marple alchemy: unknown program %q: infer, learnwts, learnstruct or liftedinfer\n", name)
	return 2
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "help" }

// printAlchemyUsage lists program's flags with what Marple does.
func printAlchemyUsage(w io.Writer, name string, prog alchemyProgs) {
	fmt.Fprintf(w, "usage: %s [Alchemy's flags]: runs marple %s\n\n", name, marpleCommand(prog))
	for _, f := range alchemyFlags {
		if f.progs&prog == 0 {
			continue
		}
		what := "-> " + strings.Join(dashed(f.marple), " ")
		if len(f.marple) == 0 {
			what = "-> (Marple's behaviour)"
		}
		if f.action == alRefused {
			what = "refused"
		}
		fmt.Fprintf(w, "  -%-24s %s: %s\n", f.name, what, f.note)
	}
}

func marpleCommand(prog alchemyProgs) string {
	for _, p := range alchemyPrograms {
		if p.prog == prog {
			return p.marple
		}
	}
	return ""
}

func dashed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "-" + n
	}
	return out
}

// alchemyCall is the translation of one Alchemy command line.
type alchemyCall struct {
	name  string
	prog  alchemyProgs
	flags map[string]string // Marple flag: value
	order []string          // Marple flags in the order first set
	seen  map[string]string // Alchemy flags given: value ("true" for toggles)
	mws   bool              // -mwsMaxSteps or -tries given
	warns []string          // what the translation leaves out, said on stderr
}

// warnf records a warning about the translation.
func (c *alchemyCall) warnf(format string, args ...any) {
	c.warns = append(c.warns, fmt.Sprintf(format, args...))
}

func newAlchemyCall(name string, prog alchemyProgs) *alchemyCall {
	return &alchemyCall{name: name, prog: prog, flags: map[string]string{}, seen: map[string]string{}}
}

// set sets Marple flag name to v.
func (c *alchemyCall) set(name, v string) {
	if _, ok := c.flags[name]; !ok {
		c.order = append(c.order, name)
	}
	c.flags[name] = v
}

// lookupAlchemyFlag returns the row of flag name of prog, or nil.
func lookupAlchemyFlag(name string, prog alchemyProgs) *alchemyFlag {
	for i := range alchemyFlags {
		if f := &alchemyFlags[i]; f.name == name && f.progs&prog != 0 {
			return f
		}
	}
	return nil
}

// run translates args and returns marple's arguments.
func (c *alchemyCall) run(args []string) ([]string, error) {
	if err := c.translate(args); err != nil {
		return nil, err
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(c.order))
	for _, name := range c.order {
		out = append(out, "-"+name+"="+c.flags[name])
	}
	return out, nil
}

// translate reads Alchemy's flags ("-name value", "-toggle").
func (c *alchemyCall) translate(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			return usagef("unexpected argument %q (Alchemy's flags are -name [value])", a)
		}
		name := strings.TrimLeft(a, "-")
		val, hasVal := "", false
		if k := strings.IndexByte(name, '='); k >= 0 {
			name, val, hasVal = name[:k], name[k+1:], true
		}
		f := lookupAlchemyFlag(name, c.prog)
		if f == nil {
			return usagef("-%s is not a flag of Alchemy's %s", name, c.name)
		}
		switch f.value {
		case valNone, valBool:
			if !hasVal && f.value == valBool && i+1 < len(args) {
				if _, ok := parseBoolWord(args[i+1]); ok {
					i++
					val, hasVal = args[i], true
				}
			}
			if !hasVal {
				val = "true"
			}
			b, ok := parseBoolWord(val)
			if !ok {
				return usagef("-%s takes true or false, not %q", name, val)
			}
			val = strconv.FormatBool(b)
		default:
			if !hasVal {
				if i+1 >= len(args) {
					return usagef("-%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if err := checkAlchemyValue(name, f.value, val); err != nil {
				return err
			}
		}
		if f.action == alRefused {
			if f.accept != "" && sameAlchemyValue(f.value, val, f.accept) {
				continue
			}
			if f.value == valNone && val == "false" {
				continue
			}
			return usagef("-%s is not supported: %s", name, f.note)
		}
		c.seen[name] = val
		switch {
		case f.apply != nil:
			if err := f.apply(c, val); err != nil {
				return err
			}
		case f.value == valNone || f.value == valBool:
			if val == "true" {
				c.set(f.marple[0], "true")
			}
		default:
			c.set(f.marple[0], val)
		}
	}
	return nil
}

// finish translates the flags that combine.
func (c *alchemyCall) finish() error {
	given := func(name string) bool { return c.seen[name] != "" && c.seen[name] != "false" }
	intOf := func(name string, def int) int {
		if v, ok := c.seen[name]; ok {
			n, _ := parseIntValue(v)
			return n
		}
		return def
	}
	if c.prog&alLearn != 0 && given("multipleDatabases") && len(splitList(c.flags["i"])) > 1 {
		return usagef("-i: with -multipleDatabases Alchemy reads each database's constants from the 2nd..nth .mln file; Marple takes them from each database: give one .mln file")
	}
	switch c.prog {
	case alInfer:
		// Alchemy's infer reads a predicate the evidence does not
		// mention as unknown, not false.
		c.set("nonEvidenceOpen", "true")
		var modes []string
		for _, m := range []string{"m", "a", "p", "ms", "bp"} {
			if given(m) || m == "bp" && given("efbp") && !given("bp") ||
				m == "ms" && given("simtp") && !given("ms") {
				modes = append(modes, m)
			}
		}
		if given("simtp") {
			c.set("replicas", itoa(max(2, intOf("numSwap", 10))))
			c.set("numChains", itoa(max(2, intOf("numRuns", 3))))
		} else if given("numSwap") || given("numRuns") {
			return usagef("-numSwap and -numRuns go with -simtp")
		}
		if given("marpleDecision") && !given("decision") {
			return usagef("-marpleDecision goes with -decision")
		}
		if given("decision") {
			c.set("decision", "true")
			if !given("marpleDecision") {
				// Alchemy's meaning. Alchemy decides with (EF)BP only: with
				// another inference it writes an empty results file.
				c.set("decisionMeaning", "alchemy")
				for _, m := range modes {
					if m != "bp" {
						return usagef("-decision goes with -bp or -efbp (the default) only: with -%s Alchemy 2.0 runs no decision inference and writes an empty results file", m)
					}
				}
				modes = nil // Marple's expected utilities: exact where the parts are small, else BP
			}
		}
		if given("outputNetwork") {
			c.set("outputNetwork", "true")
			if !given("networkNames") {
				c.set("networkNumbers", "true") // Alchemy's layout
			}
		} else if given("networkNames") {
			return usagef("-networkNames goes with -outputNetwork")
		}
		switch len(modes) {
		case 0:
			if given("decision") {
				// Marple's decision inference picks BP, or MC-SAT when the
				// network has hard clauses.
				modes = []string{"decision"}
				break
			}
			c.set("ms", "true") // Alchemy's default: MC-SAT
			modes = []string{"ms"}
		case 1:
			c.set(modes[0], "true")
			if (modes[0] == "m" || modes[0] == "a") && c.mws {
				c.set("solver", "mws")
			}
		default:
			return usagef("-%s exclude each other", strings.Join(modes, ", -"))
		}
		// Alchemy's -lifted lifts BP's factor graph; with any other
		// inference (MC-SAT when none is named) it is ignored, as here.
		if given("lifted") {
			if modes[0] == "decision" {
				c.warnf("-lifted is ignored with -decision: Marple's expected utilities are exact where the network's parts are small enough, else from ground BP")
			} else if modes[0] == "bp" {
				c.set("lifted", "true")
			} else {
				c.warnf("-lifted applies to -bp and -efbp (lifted belief propagation); with -%s Alchemy ignores it, and so does Marple", modes[0])
			}
		}
		if c.flags["maxSeconds"] != "" && modes[0] != "ms" {
			return usagef("-maxSeconds is not supported with -%s: Marple stops MC-SAT (-ms) by time; bound the others by -maxSteps", modes[0])
		}
		if modes[0] == "ms" || modes[0] == "p" {
			c.set("smooth", "10000") // Alchemy's MCMC output: (p·10000 + 1/2)/10001
			c.set("stars", "false")  // Alchemy's samplers move one atom at a time
		}
		if modes[0] == "p" && c.flags["numChains"] == "" {
			c.set("numChains", "10") // Alchemy's Gibbs sampler runs 10 chains
		}
		switch modes[0] {
		case "bp":
			// Alchemy's BP lists the atoms of its factor graph by
			// predicate: none that is in no ground clause, and the
			// atoms of the hidden predicates too.
			c.set("omitFree", "true")
			c.set("listHidden", "true")
		case "decision":
		default:
			c.set("queryOrder", "true") // the atoms in the order of -q, as Alchemy
		}
		if _, ok := c.seen["burnMinSteps"]; ok || c.seen["burnMaxSteps"] != "" {
			lo, hi := intOf("burnMinSteps", 100), intOf("burnMaxSteps", 100)
			b := hi
			if hi < 0 {
				b = lo
			}
			c.set("burnIn", itoa(max(b, lo, 0)))
		}
		if _, ok := c.seen["maxSteps"]; ok || c.seen["minSteps"] != "" {
			n := intOf("maxSteps", 1000)
			if n < 0 {
				if c.flags["maxSeconds"] == "" {
					return usagef("-maxSteps %d (no maximum) needs -maxSeconds", n)
				}
				n = math.MaxInt32
			}
			n = max(n, intOf("minSteps", -1))
			if n == 0 {
				return usagef("-maxSteps must be positive")
			}
			c.set("maxSteps", itoa(n))
		}
	case alLearnstruct:
		// Alchemy's beam search, unless Marple's is asked for.
		marple := given("marpleDefaults")
		for _, x := range []string{"dsa", "constants", "joins"} {
			switch {
			case given(x):
				c.set(x, "true")
			case !marple:
				c.set(x, "false")
				if x == "dsa" {
					c.set("freeVars", "true")
				}
			}
		}
		if v, ok := c.seen["repeatedPredicates"]; ok {
			c.set("repeatedPredicates", v)
		} else if !marple {
			c.set("repeatedPredicates", "true")
		}
		if !marple {
			c.set("singlePredicate", "true")
		}
		if v, ok := c.seen["maxGroundings"]; ok {
			c.set("maxGroundings", v)
		} else if !marple {
			c.set("maxGroundings", "0")
		}
		if v, ok := c.seen["refits"]; ok {
			c.set("refits", v)
		} else if !marple {
			c.set("refits", "-1")
		}
	case alLiftedinfer:
		return c.finishLifted(given, intOf)
	case alLearnwts:
		disc, gen := given("d"), given("g")
		switch {
		case disc && gen:
			return usagef("-d and -g exclude each other")
		case gen:
			for _, x := range []string{"dScaleJointPrior", "dIndependentStart", "dAdaptiveSamples", "dTunePrior", "dFlatPrior", "dZeroStart", "dFixedSamples", "dFormulaWeights", "dPriorHessian", "dClauseWeights", "dDataHessian"} {
				if given(x) {
					return usagef("-%s applies to discriminative learning (-d), not -g", x)
				}
			}
			c.set("g", "true")
			// Alchemy's objective and L-BFGS-B, unless Marple's are
			// asked for (-marpleDefaults: prior means 0, one weight per
			// formula, gonum's L-BFGS).
			mean := c.seen["priorMean"]
			if given("marpleDefaults") {
				if x, err := strconv.ParseFloat(mean, 64); err == nil && x != 0 {
					return usagef("-priorMean goes with Alchemy's -g, not -marpleDefaults (whose prior has mean 0)")
				}
			} else {
				c.set("gAlchemy", "true")
				if mean != "" {
					c.set("priorMean", mean)
				}
			}
			if v, ok := c.seen["gMaxIter"]; ok {
				c.set("maxIter", v)
			}
		default:
			if x, err := strconv.ParseFloat(c.seen["priorMean"], 64); err == nil && x != 0 {
				return usagef("-priorMean is not supported with -d: Marple's discriminative learner's prior has mean 0 for every weight (Alchemy: the .mln weight, else -priorMean); -priorMean 0 is accepted, and -g takes any")
			}
			c.set("d", "true") // Alchemy's default: discriminative
			switch {
			case given("dVP"):
				c.set("method", "vp")
				if given("m") || given("a") {
					c.set("dMAPCounts", "true") // -infer "-m": MAP counts
				}
			case given("m") || given("a"):
				return usagef("learnwts -m and -a apply to -dVP only: %s", whyDclInf)
			}
			if v, ok := c.seen["dNumIter"]; ok {
				c.set("maxIter", v)
			}
			// Alchemy's defaults, unless Marple's are asked for.
			marple := given("marpleDefaults")
			vp := given("dVP")
			if !marple && !given("dScaleJointPrior") && !vp {
				c.set("dFlatPrior", "true")
			}
			if !marple && !given("dIndependentStart") {
				c.set("dZeroStart", "true")
			}
			if !marple && !given("dAdaptiveSamples") && !vp {
				c.set("dFixedSamples", "true")
			}
			if !marple && !given("dFormulaWeights") {
				c.set("dClauseWeights", "true")
			}
			if !marple && !given("dPriorHessian") && !vp {
				c.set("dDataHessian", "true")
			}
			if !marple && !vp {
				c.set("dMinSamples", "100") // Alchemy's floor of 10,000 / the fewest groundings
				// Alchemy's prior and chains: no held-out choice of the
				// joint prior, no star moves.
				c.set("dTuneJointPrior", "false")
				c.set("dStars", "false")
			}
			tune := marple || given("dTunePrior")
			if !tune && c.flags["priorStdDev"] == "" && !given("noPrior") {
				c.set("priorStdDev", ftoa(learn.DefaultCLLPriorStdDev))
			}
			for _, x := range [][2]string{{"dScaleJointPrior", "dFlatPrior"}, {"dIndependentStart", "dZeroStart"}, {"dAdaptiveSamples", "dFixedSamples"}, {"dFormulaWeights", "dClauseWeights"}, {"dPriorHessian", "dDataHessian"}} {
				if given(x[0]) && given(x[1]) {
					return usagef("-%s and -%s exclude each other", x[0], x[1])
				}
			}
			if vp && (given("dScaleJointPrior") || given("dAdaptiveSamples") || given("dFlatPrior") || given("dFixedSamples") || given("dPriorHessian") || given("dDataHessian")) {
				return usagef("-dScaleJointPrior, -dAdaptiveSamples, -dFlatPrior, -dFixedSamples, -dPriorHessian and -dDataHessian apply to -d's conjugate gradient, not -dVP")
			}
			if c.flags["dMaxSamples"] != "" && !marple && !given("dAdaptiveSamples") {
				return usagef("-dMaxSamples goes with -dAdaptiveSamples (or -marpleDefaults)")
			}
			if given("dTunePrior") && (c.flags["priorStdDev"] != "" || !given("multipleDatabases")) {
				return usagef("-dTunePrior chooses σ on the databases of -multipleDatabases: give -multipleDatabases and no -priorStdDev")
			}
			sec := 0.0
			for name, unit := range map[string]float64{"dMaxSec": 1, "dMaxMin": 60, "dMaxHour": 3600} {
				if x, err := strconv.ParseFloat(c.seen[name], 64); err == nil && x > 0 {
					sec += x * unit
				}
			}
			if sec > 0 {
				c.set("learnTimeLimit", time.Duration(sec*float64(time.Second)).String())
			}
		}
		if !given("noAddUnitClauses") {
			c.set("addUnitClauses", "true")
		}
	}
	return nil
}

// finishLifted translates liftedinfer's algorithm flags: as Alchemy, -lis
// first, then lifted blocked Gibbs (-lvg, then -cls, then -lvgc), then
// -ptpe; with none, LIS for Z without a query, lifted blocked Gibbs with
// clustering with one.
func (c *alchemyCall) finishLifted(given func(string) bool, intOf func(string, int) int) error {
	query := c.flags["q"] != ""
	algo := ""
	for _, a := range []string{"lis", "lvg", "cls", "lvgc", "ptpe"} {
		if given(a) {
			if algo == "" {
				algo = a
			} else {
				c.warnf("-%s is ignored: with -%s Alchemy runs -%s, and so does Marple", a, algo, algo)
			}
		}
	}
	if algo == "" {
		algo = "lis"
		if query {
			algo = "lvgc"
		}
	}
	lbgRun := algo == "lvg" || algo == "cls" || algo == "lvgc"
	// Alchemy's liftedinfer takes every predicate as open world: the
	// evidence fixes the atoms it lists, the others are unknown.
	c.set("allOpenWorld", "true")
	ignored := func(names ...string) {
		for _, n := range names {
			if _, ok := c.seen[n]; ok {
				c.warnf("-%s does not apply to -%s; ignored, as by Alchemy", n, algo)
			}
		}
	}
	if query || algo == "lvg" || algo == "lvgc" {
		if c.flags["r"] == "" {
			c.set("r", "result.dat") // Alchemy's RESULTFILE
		}
	}
	steps := intOf("maxSteps", -1)
	secs := intOf("maxSeconds", -1)
	switch {
	case algo == "lis":
		ignored("ic", "oc", "cmode", "bmf", "burnMaxSteps")
		c.set("lis", "true")
		c.set("z", "true")
		if !query {
			c.set("alchemyZ", "true")
		}
		if v, ok := c.seen["imd"]; ok {
			n, _ := parseIntValue(v)
			switch n {
			case 0:
				c.set("lisProposal", "informed")
			case 1:
				c.set("lisProposal", "binomial")
			default:
				c.set("lisProposal", "uniform")
			}
		}
		if v, ok := c.seen["lr"]; ok {
			if x, _ := strconv.ParseFloat(v, 64); x > 0 {
				c.set("lisRate", v)
			}
		}
		if n := intOf("ui", -1); n > 0 {
			c.set("lisInterval", itoa(n))
		}
		if steps > 0 {
			c.set("numSamples", itoa(steps))
		}
		if secs > 0 {
			return usagef("-maxSeconds is not supported with -lis: Marple's lifted importance sampling draws -maxSteps samples per estimate")
		}
	case algo == "ptpe":
		ignored("ic", "oc", "cmode", "bmf", "imd", "lr", "ui", "burnMaxSteps", "maxSteps", "maxSeconds")
		c.set("fomc", "true")
		c.set("z", "true")
		c.set("alchemyZ", "true")
	case lbgRun:
		ignored("imd", "lr", "ui")
		c.set("lbg", "true")
		mode := "sequential"
		if intOf("cmode", 0) != 0 {
			mode = "random"
		}
		if x, err := strconv.ParseFloat(c.seen["bmf"], 64); err == nil && x >= 1 {
			c.set("bmf", c.seen["bmf"])
		}
		switch algo {
		case "lvg":
			ignored("oc", "cmode", "bmf")
			ic := c.seen["ic"]
			if ic == "" {
				if _, err := os.Stat("cluster.cls"); err == nil {
					ic = "cluster.cls" // Alchemy's CLUSTERFILE
					c.warnf("no -ic: sampling with the clustering of cluster.cls, as Alchemy does")
				}
			}
			if ic != "" {
				c.set("clusters", ic)
			} else {
				c.set("clusterMode", "none")
				c.warnf("no -ic and no cluster.cls: sampling with one cluster per predicate, as Alchemy does")
			}
		case "cls":
			ignored("ic", "burnMaxSteps", "maxSteps", "maxSeconds")
			c.set("clusterOnly", "true")
			c.set("clusterMode", mode)
			oc := c.seen["oc"]
			if oc == "" {
				oc = "cluster.cls"
			}
			c.set("writeClusters", oc)
		case "lvgc":
			ignored("ic", "oc")
			c.set("clusterMode", mode)
			c.set("writeClusters", "cluster.cls") // Alchemy's parallel mode writes CLUSTERFILE
		}
		if algo != "cls" {
			burn := intOf("burnMaxSteps", -1)
			if burn <= 0 {
				burn = 50 // Alchemy's BURNINSTEPS
			}
			c.set("burnIn", itoa(burn))
			if steps > 0 {
				c.set("numSamples", itoa(steps))
			}
			if secs > 0 {
				c.set("maxSeconds", itoa(secs))
			}
		}
	}
	return nil
}

// parseBoolWord parses Alchemy's boolean values.
func parseBoolWord(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "t", "yes", "y", "1", "on":
		return true, true
	case "false", "f", "no", "n", "0", "off":
		return false, true
	}
	return false, false
}

func checkAlchemyValue(name string, kind alchemyValue, v string) error {
	switch kind {
	case valInt:
		if _, err := parseIntValue(v); err != nil {
			return usagef("-%s takes an integer, not %q", name, v)
		}
	case valFloat:
		if x, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return usagef("-%s takes a number, not %q", name, v)
		}
	}
	return nil
}

// sameAlchemyValue reports whether two values of a flag are equal.
func sameAlchemyValue(kind alchemyValue, a, b string) bool {
	switch kind {
	case valInt, valFloat:
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		return err1 == nil && err2 == nil && x == y
	case valBool, valNone:
		x, _ := parseBoolWord(a)
		y, _ := parseBoolWord(b)
		return x == y
	}
	return a == b
}

func parseIntValue(v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
		return 0, fmt.Errorf("not an integer: %q", v)
	}
	return int(n), nil
}

func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// splitArgs splits a string of arguments at white space, keeping quoted
// parts ("..." or '...') whole.
func splitArgs(s string) []string {
	var out []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			b.WriteByte(ch)
		case ch == '"' || ch == '\'':
			quote, in = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(ch)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// readListFile reads learnwts -l: one .db file per line, returned
// comma-separated.
func readListFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("-l: %v", err)
	}
	var files []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			files = append(files, line)
		}
	}
	if len(files) == 0 {
		return "", fmt.Errorf("-l %s: no database file listed", path)
	}
	return strings.Join(files, ","), nil
}

// alchemyIntro is the prose of docs/alchemy.md: the policy and the
// deviations, before the tables.
//
//go:embed alchemy_doc.md
var alchemyIntro string

// alchemyDoc returns docs/alchemy.md: the policy and the table of every
// flag.
func alchemyDoc() string {
	var b strings.Builder
	b.WriteString(alchemyIntro)
	for _, p := range alchemyPrograms {
		fmt.Fprintf(&b, "\n## %s (runs `marple %s`)\n\n", p.name, p.marple)
		b.WriteString("| Alchemy flag | Action | Marple | Notes |\n|---|---|---|---|\n")
		var extras []alchemyFlag
		for _, f := range alchemyFlags {
			if f.progs&p.prog == 0 {
				continue
			}
			if f.extra {
				extras = append(extras, f)
				continue
			}
			action, target := "mapped", "`"+strings.Join(dashed(f.marple), "` `")+"`"
			if len(f.marple) == 0 {
				target = "(Marple's behaviour)"
			}
			if f.action == alRefused {
				action, target = "refused", ""
				if f.accept != "" {
					target = fmt.Sprintf("accepts `-%s %s`", f.name, f.accept)
				}
			}
			fmt.Fprintf(&b, "| `-%s` | %s | %s | %s |\n", f.name, action, target, strings.ReplaceAll(f.note, "|", "\\|"))
		}
		if len(extras) > 0 {
			fmt.Fprintf(&b, "\nMarple's extra flags under the name `%s` (not Alchemy's):\n\n", p.name)
			b.WriteString("| Marple flag | Marple | Notes |\n|---|---|---|\n")
			for _, f := range extras {
				target := "`" + strings.Join(dashed(f.marple), "` `") + "`"
				if len(f.marple) == 0 {
					target = "(translation)"
				}
				fmt.Fprintf(&b, "| `-%s` | %s | %s |\n", f.name, target, strings.ReplaceAll(f.note, "|", "\\|"))
			}
		}
	}
	return b.String()
}
