// Command marple is the Marple Markov logic toolkit: it checks, grounds,
// runs inference on, learns and evaluates Markov logic networks written in
// Alchemy's .mln and .db languages.
//
// Usage:
//
//	marple <command> [flags]
//
// The commands are infer, learn, learnstruct, invent, transfer-templates,
// eval and check; "marple help <command>" describes each. Flags follow
// Alchemy's single-dash names (-i, -e, -r, -q, -t, -ne, -m, -ms, ...). The
// papers' experiments are a separate command, marple-experiments.
//
// Exit status: 0 on success, 1 on bad input (syntax errors, unknown
// predicates, missing files, groundings too large), 2 on bad usage (an
// unknown flag, a flag value out of range, an output path that cannot be
// written); a usage error is one line naming the flag.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/marple-mln/marple/cmd/internal/cmdflags"
	"github.com/marple-mln/marple/internal/suggest"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/mln"
)

// command is one subcommand of marple.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

// env is what a command may use besides its arguments.
type env struct {
	stdout io.Writer
	stderr io.Writer
}

// resultsToStdout sends the command's own messages to stderr when its
// output file is "-" or /dev/stdout, so that standard output carries the
// results alone.
func (e *env) resultsToStdout(out string) {
	if out == "-" || out == "/dev/stdout" {
		e.stdout = e.stderr
	}
}

var commands = []command{
	{"infer", "MAP or marginal inference (Alchemy's infer)", runInfer},
	{"learn", "weight learning (Alchemy's learnwts; online max-margin learners)", runLearn},
	{"learnstruct", "structure learning (Alchemy's learnstruct): batch beam or shortest-first search, or OSL, online max-margin clause search", runLearnstruct},
	{"invent", "statistical predicate invention: multiple relational clusterings (MRC)", runInvent},
	{"eval", "score predictions against the truth: P, R, F1, Hamming, CLL, AUC-PR", runEval},
	{"check", "parse a model and evidence; print predicates, clauses and ground network size", runCheck},
	{"grow", "marginals as the domains grow without bound: their limit, or why there is none (infinite domains)", runGrow},
	{"score", "a world's cost and log-weight under a model, per formula, at full precision", runScore},
	{"data", "list, check and fetch the real data sets (docs/data.md)", runData},
	{"transfer-templates", "deep transfer (DTM): rank second-order clique templates in a source domain", runTransferTemplates},
}

// usageError is an error in how marple was called (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go watchSignals(sig, cancel, os.Stderr, exitNow)
	// The first interrupt also stops a wait for a pipe (a FIFO) input.
	mln.SetInputContext(ctx)
	code := run(ctx, &env{stdout: os.Stdout, stderr: os.Stderr}, alchemyArgs(os.Args)) // alchemy.go: run as infer, learnwts, learnstruct
	signal.Stop(sig)
	os.Exit(code)
}

// exitNow exits at once, removing the temporary files of outputs being
// written.
func exitNow(code int) {
	atomicfile.RemoveTemps()
	os.Exit(code)
}

// watchSignals cancels the context on the first interrupt (the work in
// progress stops, writes what -checkpoint asks for and exits 1) and exits
// at once with status 130 on the second.
func watchSignals(sig <-chan os.Signal, cancel context.CancelFunc, stderr io.Writer, exit func(int)) {
	<-sig
	fmt.Fprintln(stderr, "marple: interrupted; stopping (interrupt again to exit at once)")
	cancel()
	<-sig
	fmt.Fprintln(stderr, "marple: interrupted twice; exiting at once")
	exit(130)
}

// run executes marple with args and returns the exit status.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return run(ctx, e, []string{args[1], "-h"})
		}
		printUsage(e.stdout)
		return 0
	case "version", "-version", "--version":
		fmt.Fprintln(e.stdout, "marple", version)
		return 0
	case "alchemy":
		return runAlchemy(ctx, e, args[1:]) // alchemy.go
	case "experiment":
		fmt.Fprintln(e.stderr, "marple: the papers' experiments moved to their own command: marple-experiments <name> [flags] (go run ./cmd/marple-experiments)")
		return 2
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, e, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case isUsage(err):
			fmt.Fprintf(e.stderr, "marple %s: %v (see marple %s -h)\n", name, err, name)
			return 2
		case errors.Is(err, context.Canceled):
			fmt.Fprintf(e.stderr, "marple %s: interrupted\n", name)
			return 1
		default:
			fmt.Fprintf(e.stderr, "marple %s: %v\n", name, err)
			return 1
		}
	}
	names := []string{"help", "version"}
	for _, c := range commands {
		names = append(names, c.name)
	}
	fmt.Fprintf(e.stderr, "marple: unknown command %q%s; marple help lists the commands\n", name, suggest.Hint(name, names))
	return 2
}

func isUsage(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

const version = "0.1.0"

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Marple: Markov logic networks in one static binary.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: marple <command> [flags]")
	fmt.Fprintln(w)
	cs := append([]command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	width := 0
	for _, c := range cs {
		width = max(width, len(c.name))
	}
	for _, c := range cs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'marple help <command>' for a command's flags.")
}

// newFlagSet returns a flag set that reports errors as usage errors and
// prints its help on e.stdout.
func newFlagSet(e *env, name, synopsis string) *flag.FlagSet {
	return cmdflags.NewFlagSet(name, "marple "+name+" "+synopsis, e.stdout)
}

// parseFlags parses args, turning flag errors into usage errors: -h
// prints the help once; a bad flag is one line, without the help. Every
// floating-point flag given must be a finite number (cmdflags.Parse).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := cmdflags.Parse(fs, args); !errors.Is(err, flag.ErrHelp) {
		return usage(err)
	}
	return flag.ErrHelp
}

// splitList splits Alchemy's comma-separated flag values ("a.db,b.db"),
// dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
