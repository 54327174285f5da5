package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
)

// marginalFlags are the flags of marginal inference (-ms, -p) about its
// chains and their convergence.
type marginalFlags struct {
	chains     int
	replicas   int
	minBeta    float64
	blockW     float64
	maxBlock   int
	diagFile   string
	converge   float64
	maxSeconds float64
	exactAtoms int
	indicators bool
	stars      autoBool // unset: mcsat.Options.AutoStars
	// hardNote is what the summary line says of the hard clauses (see
	// checkHard).
	hardNote string
}

func (f *marginalFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.chains, "numChains", 0, "MC-SAT/Gibbs: number of chains, run in parallel and pooled (0: one per core, at least 2; the marginals for a seed depend on the number of chains, not on -workers, so give it to reproduce a run on another machine)")
	fs.IntVar(&f.replicas, "replicas", mcsat.DefaultReplicas, "MC-SAT/Gibbs: tempered replicas per chain (parallel tempering; 1: none)")
	fs.Float64Var(&f.minBeta, "minBeta", mcsat.DefaultMinBeta, "MC-SAT/Gibbs: weight scale of the hottest tempered replica, in (0, 1)")
	fs.Float64Var(&f.blockW, "blockWeight", mcsat.DefaultBlockWeight, "MC-SAT/Gibbs: after each step, resample jointly the atoms that clauses of at least this absolute weight tie, and flip together those that hard clauses tie as equal or opposite (block moves; negative: none)")
	fs.IntVar(&f.maxBlock, "maxBlock", mcsat.DefaultMaxBlock, "MC-SAT/Gibbs: most atoms in a block of the block moves (at most 20)")
	fs.Var(&f.stars, "stars", "MC-SAT/Gibbs: after each step, resample each atom in no hard clause jointly with its neighbours of at most "+strconv.Itoa(mcsat.DefaultStarLeafDegree)+" clauses, no two of them in one clause, those summed out exactly (star moves: an atom tied to many otherwise free atoms, such as a field atom and the citation pairs it links, changes with them; exact, so they change the mixing and the cost, not the distribution). Default: in each connected part of the network where one such atom's flip alone would cost at least "+strconv.FormatFloat(mcsat.DefaultStarWeight, 'g', -1, 64)+" nats against its neighbours agreeing with it, a state single-site moves would not leave (said on stderr and in the summary when there are any); -stars: everywhere; -stars=false: none")
	fs.IntVar(&f.exactAtoms, "exactAtoms", mcsat.DefaultExactAtoms, "MC-SAT/Gibbs: a connected component of at most this many atoms gets its exact marginals, by enumerating its worlds, instead of samples (negative: sample every component)")
	fs.BoolVar(&f.indicators, "indicators", false, "MC-SAT: estimate each marginal by the fraction of samples in which the atom is true (Alchemy's estimate) instead of the mean of its probability given the rest of each sample (Rao-Blackwellised: less variance, more CPU per sample)")
	fs.StringVar(&f.diagFile, "diagnostics", "", "MC-SAT/Gibbs: write each query atom's probability, R-hat and effective sample size to this file")
	fs.Float64Var(&f.converge, "converge", 0, "MC-SAT/Gibbs: sample in rounds until every query atom's R-hat is below this threshold (e.g. 1.05) or -maxSeconds runs out (0: one round of -numSamples)")
	fs.Float64Var(&f.maxSeconds, "maxSeconds", 0, "MC-SAT/Gibbs with -converge: start no sampling round that would end after this many seconds from the start of the command (the first round always runs; 0: "+strconv.Itoa(defaultConvergeSeconds)+"); MC-SAT without -converge: stop sampling after this many seconds, with the samples drawn so far by one chain (0: no limit)")
}

// defaultConvergeSeconds bounds -converge when -maxSeconds is not given.
const defaultConvergeSeconds = 600

func (f *marginalFlags) check() error {
	if err := firstErr(checkFinite(map[string]float64{"minBeta": f.minBeta, "blockWeight": f.blockW, "converge": f.converge, "maxSeconds": f.maxSeconds}),
		atLeast(0, map[string]int{"numChains": f.chains}),
		atLeast(1, map[string]int{"replicas": f.replicas, "maxBlock": f.maxBlock})); err != nil {
		return err
	}
	if f.chains == 0 {
		f.chains = mcsat.DefaultChains()
	}
	switch {
	case f.chains < 2 && f.converge > 0:
		return usagef("-converge needs -numChains of at least 2, not %d", f.chains)
	case f.minBeta <= 0 || f.minBeta >= 1:
		return usagef("-minBeta must be in (0, 1), not %g", f.minBeta)
	case f.converge != 0 && f.converge <= 1:
		return usagef("-converge must be above 1 (an R-hat threshold such as 1.05), not %g", f.converge)
	case f.maxBlock > 20:
		return usagef("-maxBlock must be at most 20, not %d", f.maxBlock)
	case f.blockW == 0:
		return usagef("-blockWeight must be positive, or negative for no block moves, not 0")
	case f.maxSeconds < 0:
		return usagef("-maxSeconds must not be negative, not %g", f.maxSeconds)
	}
	return nil
}

// inferMarginals samples net's marginals with several chains, reports
// their convergence and writes every unknown query atom with its
// probability to out.
func inferMarginals(ctx context.Context, e *env, p *progress, f *marginalFlags, ax *inferExtras, net *ground.Network, m *mln.Model, isQuery []bool,
	opt mcsat.Options, method mcsat.Method, workers int, out string, start time.Time) error {
	done := p.stage("sample")
	opt.Chains, opt.Replicas, opt.MinBeta = f.chains, f.replicas, f.minBeta
	opt.BlockWeight, opt.MaxBlock = f.blockW, f.maxBlock
	opt.ExactAtoms, opt.Indicators = f.exactAtoms, f.indicators
	opt.Stars, opt.AutoStars = f.stars.on(), !f.stars.set
	if f.exactAtoms == 0 {
		opt.ExactAtoms = -1 // mcsat: 0 selects the default
	}
	s, err := mcsat.NewSampling(ctx, net, workers, opt, method)
	if err != nil {
		return err
	}
	starNote := ""
	if hubs, leaves := s.StarMoves(); hubs > 0 {
		why := "-stars"
		if opt.AutoStars {
			why = fmt.Sprintf("automatic: in each part of the network where a flip of one atom alone would cost at least %g nats against its leaves, a state single-site moves would not leave; -stars=false: none", mcsat.DefaultStarWeight)
		}
		fmt.Fprintf(e.stderr, "marple infer: star moves on %d atoms with %d leaves (%s)\n", hubs, leaves, why)
		starNote = fmt.Sprintf(", star moves on %d atoms", hubs)
	}
	query := make([]bool, net.NumAtoms())
	for a := range query {
		query[a] = isQuery[net.AtomPred[a]]
	}
	threshold := mcsat.RhatThreshold
	if f.converge > 0 {
		threshold = f.converge
	}
	round := opt.Samples
	total := 0
	var d *mcsat.Diagnostics
	var verdict string
	for {
		t0 := time.Now()
		if err := sampleWithProgress(ctx, e.stderr, s, round, total, start); err != nil {
			return err
		}
		total += round
		d = s.Diagnostics()
		d.Summarize(query, threshold)
		p.logf("%d samples per chain: max R-hat %s, min ESS %s", total, fmtRhat(d.MaxRhat), summaryESS(d.MinESS))
		if rates := s.SwapRates(); rates != nil {
			p.logf("replica exchange acceptance between neighbouring scales: %.3f", rates)
		}
		if f.converge == 0 {
			break
		}
		if d.NumAbove == 0 && !math.IsNaN(d.MaxRhat) {
			verdict = fmt.Sprintf("marple infer: converged: every query atom's R-hat is at most %g after %d samples per chain", threshold, total)
			break
		}
		// The next round doubles the samples, within the time left.
		limit := f.maxSeconds
		if limit == 0 {
			limit = defaultConvergeSeconds
		}
		left := limit - time.Since(start).Seconds()
		perSample := time.Since(t0).Seconds() / float64(round)
		next := total
		if perSample > 0 {
			next = min(next, int(left/perSample))
		}
		if next < 1 {
			verdict = fmt.Sprintf("marple infer: not converged within -maxSeconds %g: %d query atoms have R-hat above %g after %d samples per chain", limit, d.NumAbove, threshold, total)
			break
		}
		round = next
	}
	done("%d samples x %d chains", total, f.chains)
	if verdict != "" {
		fmt.Fprintln(e.stderr, verdict)
	}
	if above := d.Above(query, threshold); len(above) > 0 && f.converge == 0 {
		names := make([]string, 0, 10)
		for _, a := range above[:min(10, len(above))] {
			names = append(names, fmt.Sprintf("%s (R-hat %s)", atomString(m, net.AtomPred[a], net.AtomArgs[a]), fmtRhat(d.Rhat[a])))
		}
		more := ""
		if len(above) > 10 {
			more = fmt.Sprintf(", and %d more", len(above)-10)
		}
		fmt.Fprintf(e.stderr, "marple infer: warning: not converged: %d query atoms have R-hat above %g, their chains disagree (sample longer, add -replicas, or use -converge): %s%s\n",
			len(above), threshold, strings.Join(names, ", "), more)
	}
	probs := s.Marginals()
	if f.diagFile != "" {
		if err := atomicfile.Write(f.diagFile, func(w io.Writer) error {
			fmt.Fprintf(w, "# atom probability R-hat ESS (%d chains x %d samples)\n", f.chains, total)
			for a := 0; a < net.NumAtoms(); a++ {
				if query[a] {
					fmt.Fprintf(w, "%s %s %s %s\n", atomString(m, net.AtomPred[a], net.AtomArgs[a]), strconv.FormatFloat(probs[a], 'g', 6, 64), fmtRhat(d.Rhat[a]), fmtESS(d.ESS[a]))
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(out, func(w io.Writer) error {
		return ax.writeMarginals(w, m, net, probs, isQuery)
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple infer: %d atoms, %d clauses, %d samples x %d chains, max R-hat %s, %d query atoms above %g, min ESS %s%s%s, %.2fs\n",
		net.NumAtoms(), net.NumClauses(), total, f.chains, fmtRhat(d.MaxRhat), d.NumAbove, threshold, summaryESS(d.MinESS), starNote, f.hardNote, time.Since(start).Seconds())
	return nil
}

// autoBool is a boolean flag whose default, when it is not given, the
// library decides (an automatic rule).
type autoBool struct{ set, v bool }

func (b *autoBool) String() string {
	if b == nil || !b.set {
		return "auto"
	}
	return strconv.FormatBool(b.v)
}

func (b *autoBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.set, b.v = true, v
	return nil
}

func (b *autoBool) IsBoolFlag() bool { return true }

// on reports whether the flag was given true.
func (b *autoBool) on() bool { return b.set && b.v }

// auto reports whether the flag was not given or given true.
func (b *autoBool) auto() bool { return !b.set || b.v }

func fmtRhat(r float64) string {
	switch {
	case math.IsInf(r, 1):
		return "inf"
	case math.IsNaN(r):
		return "n/a"
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}

// summaryESS is the smallest ESS over the query atoms as the summary says
// it: +Inf means that no query atom was sampled.
func summaryESS(x float64) string {
	if math.IsInf(x, 1) {
		return "n/a (every query atom's marginal computed exactly)"
	}
	return fmtESS(x)
}

func fmtESS(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// sampleWithProgress advances the chains by n samples in slices, saying
// on stderr every few seconds how far they are and how long is left. The
// samples do not depend on the slicing: each chain goes on from its state
// with its own random numbers.
func sampleWithProgress(ctx context.Context, w io.Writer, s *mcsat.Sampling, n, before int, start time.Time) error {
	const every = 5 * time.Second
	t0 := time.Now()
	last := t0
	chunk := min(n, 16)
	for done := 0; done < n; {
		k := min(chunk, n-done)
		t := time.Now()
		if err := s.Sample(ctx, k); err != nil {
			return err
		}
		done += k
		// Slices of about half a second keep the reports timely and the
		// calls' overhead negligible.
		if el := time.Since(t); el < 250*time.Millisecond {
			chunk *= 2
		} else if el > time.Second && chunk > 1 {
			chunk /= 2
		}
		if time.Since(last) >= every && done < n {
			last = time.Now()
			el := time.Since(t0)
			eta := time.Duration(float64(el) / float64(done) * float64(n-done))
			fmt.Fprintf(w, "marple infer: sampling: %d/%d samples per chain, %s elapsed, ETA %s\n",
				before+done, before+n, time.Since(start).Round(time.Second), eta.Round(time.Second))
		}
	}
	return nil
}
