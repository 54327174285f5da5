package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
	"github.com/marple-mln/marple/transfer"
)

const transferTemplatesSynopsis = `-t source.db[,more.db] [-i source.mln] -o templates.txt [-k K] [-maxLiterals 3] [flags]

Deep transfer (DTM, Davis & Domingos 2009), step one: finds the second-order
regularities of a source domain. Enumerates the clique templates of 2 to
-maxLiterals literals over predicate variables (r, s, t) and at most -maxVars
object variables (x, y, z), unique up to renaming; binds them to the source's
predicates (unary and binary; -i gives the declarations, otherwise they are
inferred from the data) and, for each clique, counts its distribution over
truth assignments exactly over all groundings by distinct constants (atoms
the data leave unknown drop the groundings that touch them; a predicate whose
data list false atoms is open world). A clique scores the least KL divergence
between that distribution and the product of the marginals of any
decomposition into sub-cliques; a template the mean of its -k best cliques.
Writes the ranked templates with their best cliques to -o.

With -checkpoint the cliques scored so far are saved to OUT.checkpoint
(atomically, every -checkpointEvery and on Ctrl-C); after a crash or kill,
the same command with -resume scores only the rest and writes the same file
as an uninterrupted run (each clique samples from its own stream of -seed).`

func runTransferTemplates(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "transfer-templates", transferTemplatesSynopsis)
	var (
		modelFiles  = fs.String("i", "", "source model file(s) (.mln) declaring the predicates; optional")
		train       = fs.String("t", "", "source database file(s) (.db, .db.gz), comma-separated (merged)")
		outFile     = fs.String("o", "", "output templates file (required)")
		k           = fs.Int("k", transfer.DefaultK, "a template scores the mean of its K best cliques")
		maxLiterals = fs.Int("maxLiterals", 3, "literals per template: 2 or 3")
		maxVars     = fs.Int("maxVars", 3, "object variables per template")
		closed      = fs.Bool("closedWorld", false, "treat every unlisted atom as false, even for predicates whose data list false atoms")
		alpha       = fs.Float64("alpha", transfer.DefaultAlpha, "pseudo-count added to each truth assignment of a clique before scoring (0: none)")
		maxOuter    = fs.Int("maxOuter", 2048, "bound the work per clique: when all but one object variable have more bindings, sample this many (0: count every grounding)")
		seed        = fs.Uint64("seed", 1, "random seed for -maxOuter sampling")
		workers     = fs.Int("workers", 0, "worker goroutines (default: all cores)")
		verbose     = fs.Bool("v", false, "report every stage on stderr")
		checkpoint  = fs.Bool("checkpoint", false, "save the cliques scored so far to OUT.checkpoint (for -resume) every -checkpointEvery and on Ctrl-C")
		every       = fs.Duration("checkpointEvery", 30*time.Second, "with -checkpoint: save at most this often (0: after every chunk of 256 cliques)")
		resume      = fs.Bool("resume", false, "continue the run whose -checkpoint state is saved beside -o (OUT.checkpoint)")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *outFile == "":
		return usagef("no output file: give -o templates.txt")
	case *train == "":
		return usagef("no source data: give -t a.db,b.db")
	case *k < 1:
		return usagef("-k must be at least 1, not %d", *k)
	case *maxLiterals < 2 || *maxLiterals > 3:
		return usagef("-maxLiterals must be 2 or 3, not %d", *maxLiterals)
	case *maxVars < 2 || *maxVars > 4:
		return usagef("-maxVars must be between 2 and 4, not %d", *maxVars)
	}
	if err := firstErr(nonNegative("alpha", *alpha), atLeast(0, map[string]int{"maxOuter": *maxOuter, "workers": *workers}),
		checkOutput("o", *outFile)); err != nil {
		return err
	}
	if *every < 0 {
		return usagef("-checkpointEvery must not be negative, not %s", *every)
	}
	ckptPath := *outFile + ".checkpoint"
	var run []string
	var resumed *transfer.Checkpoint
	if *checkpoint || *resume {
		run = []string{"-i: " + *modelFiles, "-t: " + *train, fmt.Sprintf("-k: %d", *k),
			fmt.Sprintf("-maxLiterals: %d", *maxLiterals), fmt.Sprintf("-maxVars: %d", *maxVars),
			fmt.Sprintf("-closedWorld: %t", *closed), fmt.Sprintf("-alpha: %g", *alpha),
			fmt.Sprintf("-maxOuter: %d", *maxOuter), fmt.Sprintf("-seed: %d", *seed)}
		fp, err := fileDigests(append(splitList(*modelFiles), splitList(*train)...))
		if err != nil {
			return err
		}
		run = append(run, fp...)
	}
	if *resume {
		c, err := transfer.ReadCheckpointFile(ckptPath)
		if err != nil {
			return err
		}
		if err := c.CheckRun(run); err != nil {
			return fmt.Errorf("%s: %w", ckptPath, err)
		}
		resumed = c
		fmt.Fprintf(e.stderr, "marple: transfer-templates: resuming after %d of %d cliques from %s\n", c.Scored(), c.Total(), ckptPath)
	}
	a := *alpha
	if a == 0 {
		a = -1 // Options: negative means no pseudo-count
	}
	p := newProgress(e.stderr, *verbose)
	done := p.stage("read source")
	src, err := transfer.LoadSource(splitList(*modelFiles), splitList(*train), transfer.SourceOptions{ClosedWorld: *closed})
	if err != nil {
		return err
	}
	if err := checkSource(src, splitList(*train)); err != nil {
		return err
	}
	done("%d usable predicates, %d skipped", len(src.Preds), len(src.Skipped))
	done = p.stage("score cliques")
	last := time.Now()
	t0 := time.Now()
	opt := transfer.Options{
		Enum:     transfer.EnumOptions{MaxLiterals: *maxLiterals, MaxVars: *maxVars},
		K:        *k,
		Alpha:    a,
		MaxOuter: *maxOuter,
		Seed:     *seed,
		Workers:  *workers,
		Resume:   resumed,
		Progress: func(d, total int) {
			if time.Since(last) < 2*time.Second && d != total {
				return
			}
			last = time.Now()
			el := time.Since(t0)
			eta := time.Duration(float64(el) / float64(d) * float64(total-d))
			fmt.Fprintf(e.stderr, "marple: transfer-templates: %d/%d cliques, ETA %s\n", d, total, eta.Round(time.Second))
		},
	}
	if *checkpoint {
		opt.CheckpointEvery = *every
		opt.Checkpoint = func(c *transfer.Checkpoint) error {
			c.Run = run
			return atomicfile.Write(ckptPath, func(w io.Writer) error { return c.Write(w) })
		}
	}
	res, err := transfer.Discover(ctx, src, opt)
	if err != nil {
		if *checkpoint && errors.Is(err, context.Canceled) {
			fmt.Fprintf(e.stderr, "marple: transfer-templates: interrupted; the cliques scored so far are in %s (continue with -resume)\n", ckptPath)
		}
		return err
	}
	done("%d templates, %d cliques", res.Enumerated, res.Cliques)
	header := []string{
		"marple transfer-templates -t " + *train + modelFlag(*modelFiles),
		fmt.Sprintf("source: %d predicates used%s", len(src.Preds), skippedNote(src.Skipped)),
		worldNote(src.OpenWorld),
		countNote(res, *maxOuter, *seed),
	}
	if err := atomicfile.Write(*outFile, func(w io.Writer) error { return transfer.Write(w, res, header) }); err != nil {
		return err
	}
	if *checkpoint || *resume {
		os.Remove(ckptPath) // done: nothing to resume
	}
	for i, sc := range res.Templates {
		if i == 5 {
			break
		}
		best := ""
		if len(sc.Top) > 0 {
			best = sc.Top[0].Format(sc.Template)
		}
		fmt.Fprintf(e.stderr, "marple transfer-templates: %d. %.4g  %s  (best: %s)\n", i+1, sc.Score, sc.Template, best)
	}
	return nil
}

// checkSource refuses a source domain without any true atom: its
// templates would all score alike.
func checkSource(src *transfer.Source, files []string) error {
	for _, p := range src.Preds {
		if p.NTrue > 0 {
			return nil
		}
	}
	return fmt.Errorf("%s holds no true ground atom of a usable predicate: nothing to learn from", strings.Join(files, ","))
}

func modelFlag(s string) string {
	if s == "" {
		return ""
	}
	return " -i " + s
}

func skippedNote(sk []string) string {
	if len(sk) == 0 {
		return ""
	}
	if len(sk) > 8 {
		return fmt.Sprintf("; skipped %s and %d more", strings.Join(sk[:8], ", "), len(sk)-8)
	}
	return "; skipped " + strings.Join(sk, ", ")
}

func worldNote(open []string) string {
	if len(open) == 0 {
		return "world: closed (every unlisted atom false)"
	}
	return fmt.Sprintf("world: %d predicates list their false atoms and are open world (unlisted atoms unknown: the groundings touching them are not counted); the rest closed", len(open))
}

func countNote(r *transfer.Result, maxOuter int, seed uint64) string {
	how := "exact, every grounding by distinct constants (no sampling)"
	if r.Sampled > 0 {
		how = fmt.Sprintf("SAMPLED for %d of %d cliques (-maxOuter %d -seed %d: that many bindings of all but one object variable, the last counted in full); the rest exact", r.Sampled, r.Cliques, maxOuter, seed)
	}
	return fmt.Sprintf("counting: %s; pseudo-count %g per truth assignment; %d cliques", how, r.Alpha, r.Cliques)
}

// fileDigests returns a line "name: sha256 hex" per file, to tell a
// checkpoint's data from other data.
func fileDigests(files []string) ([]string, error) {
	var out []string
	for _, f := range files {
		h := sha256.New()
		r, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(h, r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		out = append(out, fmt.Sprintf("%s: sha256 %x", f, h.Sum(nil)))
	}
	return out, nil
}

// transferFlags are learnstruct's deep transfer flags.
type transferFlags struct {
	file, mode string
	top        int
}

func registerTransfer(fs *flag.FlagSet) *transferFlags {
	tf := &transferFlags{}
	fs.StringVar(&tf.file, "transfer", "", "deep transfer: a templates file from transfer-templates; its best templates, instantiated with the target's predicates, bias the search (-method beam)")
	fs.StringVar(&tf.mode, "transferMode", structure.TransferRefine.String(), "how transferred clauses are used: seed (first beam), greedy (added by WPLL gain, no search) or refine (greedy, then beam search)")
	fs.IntVar(&tf.top, "transferTop", defaultTransferTop, "number of best templates instantiated")
	return tf
}

// defaultTransferTop is the number of best source templates transferred.
const defaultTransferTop = 5

// learn runs the batch search, with deep transfer when -transfer is given.
func (tf *transferFlags) learn(ctx context.Context, e *env, method structure.Method, dbs []*mln.Database, s structure.Settings, so structure.Scoring) (*structure.Result, error) {
	if tf.file == "" {
		return structure.LearnBatch(ctx, method, dbs, s, so)
	}
	mode, err := structure.ParseTransferMode(tf.mode)
	switch {
	case method != structure.MethodBeam:
		return nil, usagef("-transfer works with -method beam, not %q", method)
	case err != nil:
		return nil, usagef("-transferMode must be seed, greedy or refine, not %q", tf.mode)
	case tf.top < 1:
		return nil, usagef("-transferTop must be at least 1")
	}
	text, err := mln.ReadInput(tf.file)
	if err != nil {
		return nil, err
	}
	ranked, err := transfer.ReadTemplates(bytes.NewReader(text), tf.file)
	if err != nil {
		return nil, err
	}
	cl := transfer.TransferClauses(ranked, tf.top, s.Model, s.Preds)
	n := min(tf.top, len(ranked))
	var names []string
	for _, r := range ranked[:n] {
		names = append(names, r.Template.String())
	}
	fmt.Fprintf(e.stderr, "marple learnstruct: transfer (%s): %d clauses from the %d best templates: %s\n", tf.mode, len(cl), n, strings.Join(names, "; "))
	if len(cl) == 0 {
		return nil, fmt.Errorf("%s: no template instantiates with this model's predicates", tf.file)
	}
	return structure.LearnTransfer(ctx, mode, dbs, s, so, cl)
}
