package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"github.com/marple-mln/marple/cmd/internal/cmdflags"
	"github.com/marple-mln/marple/internal/gobfile"
	"io"
	"os"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/invent"
	"github.com/marple-mln/marple/mln"
)

const inventSynopsis = `-i decls.mln -t data.db,... -o clusters.mln [-restarts N -seed N -lambda L -beta B]

Statistical predicate invention by multiple relational clusterings (MRC,
Kok & Domingos 2007). Clusters the constants of every type and the
predicates of each argument signature, recursively per cluster
combination, maximising the MAP score (closed-form rule weights, an
exponential prior on the number of clusters). Unless -lambda and -beta
are both given, they are first chosen (and printed) on three disjoint 10%
slices of the training atoms, each held out in turn while learning on the
rest: by held-out log-likelihood, then AUC-PR, each within one standard
error, then the most regularised. The same data read in any order gives
the same model.
Writes -o, an MLN with one
unary predicate per invented cluster and the weighted atom prediction rules
(marple infer runs it with the membership evidence); the membership
evidence, clusters.db beside it; and a readable report, clusters.report.txt.
Training atoms: every ground atom, false unless listed true (-closed, the
default); with -closed=false only the listed true and false atoms. Files
ending in .gz are decompressed.

With -checkpoint the search's completed steps (the tuning's scores, each
bottom-level search's clusters and each restart's) are saved to
OUT.checkpoint (atomically) at most every -checkpointEvery (0: only on
Ctrl-C); after a crash
or kill, the same command with -resume continues to output byte-identical
to an uninterrupted run's.`

func runInvent(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "invent", inventSynopsis)
	var (
		input   = fs.String("i", "", "model files declaring the predicates, comma-separated")
		train   = fs.String("t", "", "training databases, comma-separated")
		out     = fs.String("o", "", "output MLN (the .db and .report.txt go beside it)")
		mrc     = cmdflags.MRC(fs)
		closed  = fs.Bool("closed", true, "closed world: unlisted atoms are false training atoms")
		prefix  = fs.String("prefix", "Cluster", "name prefix of the invented predicates")
		top     = fs.Int("top", 20, "strongest combinations listed in the report")
		verbose = fs.Bool("v", false, "report every stage")
		ckpt    = fs.Bool("checkpoint", false, "save the search's completed steps to OUT.checkpoint (for -resume)")
		every   = fs.Duration("checkpointEvery", 2*time.Second, "with -checkpoint: save at most this often (0: no periodic save, only on Ctrl-C; 1ns: after every step and restart)")
		resume  = fs.Bool("resume", false, "continue the run whose -checkpoint state is saved beside -o (OUT.checkpoint); implies -checkpoint")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *input == "" || *train == "" || *out == "" {
		return usagef("need -i, -t and -o")
	}
	opt, grid, err := mrc()
	if err != nil {
		return usage(err)
	}
	base := strings.TrimSuffix(*out, ".mln")
	if err := firstErr(atLeast(0, map[string]int{"top": *top}), checkOutput("o", *out),
		checkOutput("o", base+".db"), checkOutput("o", base+".report.txt")); err != nil {
		return err
	}
	if *every < 0 {
		return usagef("-checkpointEvery must not be negative")
	}
	ckptPath := *out + ".checkpoint"
	var header []inventSetting
	if *ckpt || *resume {
		if header, err = inventSettings(fs, splitList(*input), splitList(*train)); err != nil {
			return err
		}
		var st *invent.JournalState
		if *resume {
			if st, err = readInventCheckpoint(ckptPath, header); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "marple invent: resuming after %d tuning runs and %d steps from %s\n", len(st.Tuned), len(st.Steps), ckptPath)
		}
		opt.Journal = invent.NewJournal(st, func(s *invent.JournalState) error {
			return atomicfile.Write(ckptPath, func(w io.Writer) error {
				return gobfile.Write(w, inventCheckpointVersion, header, s)
			})
		}, *every)
	}
	// interrupted saves the search so far when err is an interrupt.
	interrupted := func(err error) error {
		if opt.Journal != nil && errors.Is(err, context.Canceled) {
			if serr := opt.Journal.Save(); serr != nil {
				return serr
			}
			fmt.Fprintf(e.stderr, "marple invent: interrupted; the search so far is saved in %s (continue with -resume)\n", ckptPath)
		}
		return err
	}
	prog := newProgress(e.stderr, *verbose)
	done := prog.stage("load")
	m, err := mln.LoadModel(splitList(*input)...)
	if err != nil {
		return err
	}
	db, err := invent.LoadDatabase(m, splitList(*train)...)
	if err != nil {
		return err
	}
	if err := checkTraining(m, []*mln.Database{db}, splitList(*train)); err != nil {
		return err
	}
	data, err := invent.FromDatabases(m, []*mln.Database{db}, *closed)
	if err != nil {
		return err
	}
	n := 0
	for _, g := range data.Groups {
		n += g.Len()
	}
	done("%d predicate groups, %d training atoms", len(data.Groups), n)
	if grid != nil {
		done = prog.stage("tune")
		var tried []invent.TuneResult
		if opt, tried, err = invent.Tune(ctx, data, opt, *grid); err != nil {
			return interrupted(err)
		}
		done("held-out log-likelihood per atom: %s", invent.TuneText(tried))
		fmt.Fprintf(e.stderr, "marple invent: chose lambda %g beta %g on a held-out %g of the training atoms\n", opt.Lambda, opt.Beta, grid.Holdout)
	}
	done = prog.stage("invent")
	model, err := invent.Learn(ctx, data, opt)
	if err != nil {
		return interrupted(err)
	}
	inv, rules := model.Rules(*prefix)
	done("%d problems searched, %d invented predicates, %d rules", model.Stats.Problems, len(inv), len(rules))
	if err := atomicfile.Write(*out, func(w io.Writer) error { return model.WriteMLN(w, *prefix) }); err != nil {
		return err
	}
	if err := atomicfile.Write(base+".db", func(w io.Writer) error { return model.WriteDB(w, *prefix) }); err != nil {
		return err
	}
	if err := atomicfile.Write(base+".report.txt", func(w io.Writer) error { return model.WriteReport(w, *top) }); err != nil {
		return err
	}
	if opt.Journal != nil {
		os.Remove(ckptPath) // done: nothing to resume
	}
	fmt.Fprintf(e.stderr, "marple invent: %d invented predicates, %d rules, log-posterior %.3f; wrote %s, %s.db, %s.report.txt\n",
		len(inv), len(rules), model.LogPosterior(), *out, base, base)
	return nil
}

// inventCheckpointVersion tags invent's checkpoint files.
const inventCheckpointVersion = "marple-invent-checkpoint-2"

// inventSetting is one thing a resumed run must share with the run that
// saved the checkpoint: a flag's value, or a digest of an input file.
type inventSetting struct {
	Name, Value string
}

// inventSettings lists the flags the search depends on and digests of the
// model and training files.
func inventSettings(fs *flag.FlagSet, inputs, trains []string) ([]inventSetting, error) {
	var out []inventSetting
	for _, name := range []string{"restarts", "seed", "lambda", "beta", "maxClusters", "noLookahead", "closed"} {
		out = append(out, inventSetting{"-" + name, fs.Lookup(name).Value.String()})
	}
	for _, files := range []struct {
		flag  string
		paths []string
	}{{"-i", inputs}, {"-t", trains}} {
		h := sha256.New()
		for _, p := range files.paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(h, "%d:", len(b))
			h.Write(b)
		}
		out = append(out, inventSetting{files.flag + " files' contents", hex.EncodeToString(h.Sum(nil))[:16]})
	}
	return out, nil
}

// readInventCheckpoint reads the state saved in path, refusing one saved by
// a run with other settings.
func readInventCheckpoint(path string, want []inventSetting) (*invent.JournalState, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-resume: %w", err)
	}
	defer f.Close()
	var got []inventSetting
	st := &invent.JournalState{}
	switch err := gobfile.Read(f, inventCheckpointVersion, &got, st); {
	case errors.Is(err, gobfile.ErrVersion):
		return nil, fmt.Errorf("%s: not a marple invent checkpoint", path)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	have := map[string]string{}
	for _, s := range got {
		have[s.Name] = s.Value
	}
	for _, s := range want {
		if have[s.Name] != s.Value {
			return nil, fmt.Errorf("%s: saved by a run with %s %s, not %s", path, s.Name, have[s.Name], s.Value)
		}
	}
	return st, nil
}
