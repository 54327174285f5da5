// Command marple-experiments reproduces the tables and figures of the
// papers Marple implements, on their real data sets (the data folder
// ../shared/data beside a development checkout, or $MARPLE_DATA). It is
// the research harness of the repository, apart from the marple command:
// it runs the same library.
//
// Usage:
//
//	marple-experiments <experiment> [flags]
//
// The experiments are citeseer, osl, maxmargin, curves, mrc, msl,
// transfer, rrf and lifted (which needs no data); "marple-experiments help <experiment>" describes each. Each
// prints its table on stdout and writes it (Markdown, and SVG charts for
// some) into the -out folder, which is checked to be writable before any
// work starts.
//
// Exit status: 0 on success, 1 on bad input or a failed run, 2 on bad
// usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/marple-mln/marple/cmd/internal/cmdflags"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/marple-mln/marple/atomicfile"
)

// env is what an experiment may use besides its arguments.
type env struct {
	stdout io.Writer
	stderr io.Writer
}

// subcommand is one experiment of the command.
type subcommand struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

var experiments = []subcommand{
	{"citeseer", "Huynh & Mooney (SDM 2011) Tables 1 and 2: online max-margin weight learning on CiteSeer", runCiteSeerExperiment},
	{"osl", "Huynh & Mooney (ECML 2011) Table 1: online structure learning on CiteSeer", runOSLExperiment},
	{"maxmargin", "Huynh & Mooney (ECML-PKDD 2009): max-margin against PSCG on CiteSeer and WebKB", runMaxMarginExperiment},
	{"curves", "Huynh & Mooney (SDM 2011) Figures 1 and 2: learning and label-noise curves on CiteSeer", runCurvesExperiment},
	{"mrc", "multiple relational clusterings (Kok & Domingos 2007) on animals, kinship, umls, nations", runMRCExperiment},
	{"msl", "batch structure learning (Kok & Domingos 2005) on UW-CSE and IMDB", runMSLExperiment},
	{"transfer", "deep transfer (DTM, Davis & Domingos 2009) between the relational data sets", runTransferExperiment},
	{"lifted", "exact lifted inference on friends and smokers up to 10^5 people against the grounding engines (no data)", runLiftedExperiment},
	{"rrf", "recursive random fields (Lowd & Domingos 2007) against MLNs on UW-CSE integrity constraints", runRRFExperiment},
}

// usageError is an error in how the command was called (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func isUsage(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "marple-experiments: interrupted; stopping (interrupt again to exit at once)")
		cancel()
		<-sig
		fmt.Fprintln(os.Stderr, "marple-experiments: interrupted twice; exiting at once")
		atomicfile.RemoveTemps()
		os.Exit(130)
	}()
	code := run(ctx, &env{stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:])
	signal.Stop(sig)
	os.Exit(code)
}

// run executes marple-experiments with args and returns the exit status.
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
	}
	for _, x := range experiments {
		if x.name != name {
			continue
		}
		err := x.run(ctx, e, args[1:])
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case isUsage(err):
			fmt.Fprintf(e.stderr, "marple-experiments %s: %v\n", name, err)
			fmt.Fprintf(e.stderr, "run 'marple-experiments help %s' for usage\n", name)
			return 2
		case errors.Is(err, context.Canceled):
			fmt.Fprintf(e.stderr, "marple-experiments %s: interrupted\n", name)
			return 1
		default:
			fmt.Fprintf(e.stderr, "marple-experiments %s: %v\n", name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "marple-experiments: unknown experiment %q\n", name)
	printUsage(e.stderr)
	return 2
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "marple-experiments: the papers' experiments on their data sets.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: marple-experiments <experiment> [flags]")
	fmt.Fprintln(w)
	for _, x := range experiments {
		fmt.Fprintf(w, "  %-10s %s\n", x.name, x.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'marple-experiments help <experiment>' for an experiment's flags.")
}

// newFlagSet returns a flag set that reports errors as usage errors and
// prints its help on e.stdout; synopsis starts with the experiment's name.
func newFlagSet(e *env, synopsis string) *flag.FlagSet {
	return cmdflags.NewFlagSet("marple-experiments", "marple-experiments "+synopsis, e.stdout)
}

// parseFlags parses args, turning flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := cmdflags.Parse(fs, args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usagef("%v", err)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
