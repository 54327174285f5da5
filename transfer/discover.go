package transfer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultK is the number of best cliques whose scores a template's score
// averages.
const DefaultK = 5

// DefaultAlpha is the default pseudo-count per truth assignment.
const DefaultAlpha = 1.0

// Options configures Discover.
type Options struct {
	Enum EnumOptions
	// K: a template's score is the average score of its K best cliques
	// (DefaultK when 0; all its cliques when it has fewer).
	K int
	// Workers counts cliques in parallel (GOMAXPROCS when 0); the result
	// does not depend on it.
	Workers int
	// Alpha is the pseudo-count added to every truth assignment of a
	// clique before scoring (DefaultAlpha when 0, none when negative): it
	// keeps cliques with a handful of groundings from scoring as perfect
	// dependencies.
	Alpha float64
	// MaxOuter bounds the work per clique (see Source.CountSampled): 0
	// counts every grounding.
	MaxOuter int
	// Seed seeds the sampling (each clique draws from its own stream).
	Seed uint64
	// Progress, when set, is called now and then with the cliques scored
	// so far and their total, by one goroutine at a time.
	Progress func(done, total int)
	// Checkpoint, when set, receives the work done so far (see
	// Checkpoint) at most every CheckpointEvery (after every chunk of
	// cliques when 0), and once more when ctx is canceled; it is called
	// by one goroutine at a time and must not keep the Checkpoint.
	Checkpoint      func(*Checkpoint) error
	CheckpointEvery time.Duration
	// Resume continues the run that saved it: its chunks of cliques are
	// not scored again. A checkpoint of a run with other options or
	// another source is refused.
	Resume *Checkpoint
}

// chunkSize is the number of cliques per unit of work.
const chunkSize = 256

// Clique is a template instantiated with source predicates, and its score.
type Clique struct {
	Preds []*SourcePred // one per predicate variable
	// Counts is the distribution over truth assignments (see Source.Count).
	Counts []int64
	Score  float64
	// Decomp is the best decomposition: the block of each literal.
	Decomp []int
}

// Groundings returns the number of groundings counted (all atoms known).
func (c *Clique) Groundings() int64 {
	var n int64
	for _, x := range c.Counts {
		n += x
	}
	return n
}

// Format writes the clique with t's literals, e.g. "Location(x,y),
// Location(z,y), Interacts(x,z)".
func (c *Clique) Format(t *Template) string {
	return formatLits(t, func(i int) string { return c.Preds[i].Pred.Name })
}

// FormatDecomp writes the clique's best decomposition, e.g.
// "{Location(x,y), Location(z,y)} x {Interacts(x,z)}".
func (c *Clique) FormatDecomp(t *Template) string {
	n := 0
	for _, b := range c.Decomp {
		if b+1 > n {
			n = b + 1
		}
	}
	parts := make([]string, n)
	for b := 0; b < n; b++ {
		var ls []string
		for i, l := range t.Lits {
			if c.Decomp[i] == b {
				ls = append(ls, formatLits(&Template{Lits: []Literal{l}}, func(int) string { return c.Preds[l.Pred].Pred.Name }))
			}
		}
		parts[b] = "{" + strings.Join(ls, ", ") + "}"
	}
	return strings.Join(parts, " x ")
}

func formatLits(t *Template, name func(pred int) string) string {
	var b strings.Builder
	for i, l := range t.Lits {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name(l.Pred))
		b.WriteByte('(')
		for j, a := range l.Args {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(varNames[a])
		}
		b.WriteByte(')')
	}
	return b.String()
}

// Scored is a template with its score and its best cliques.
type Scored struct {
	Template   *Template
	Score      float64
	NumCliques int      // cliques of the template in the source
	Top        []Clique // its best cliques, best first (at most K)
}

// Result is the outcome of Discover.
type Result struct {
	Templates  []Scored // ranked, best first; templates with no clique are left out
	Enumerated int      // templates enumerated
	Cliques    int      // cliques scored
	Sampled    int      // cliques whose groundings were sampled (Options.MaxOuter)
	K          int
	Alpha      float64
}

// Cliques returns the distinct cliques of t in s: every binding of its
// predicate variables to distinct source predicates of matching arity that
// types its object variables consistently, once per clique. Bindings that
// differ by a symmetry of the template (a permutation of its predicate
// variables that maps it to itself up to renaming, as r and s in
// r(x,y), s(x,y)) give the same clique; only the least is kept. Each
// clique is given as indices into s.Preds.
func (s *Source) Cliques(t *Template) [][]int32 {
	flat := s.cliqueList(t)
	var out [][]int32
	for i := 0; i < len(flat); i += t.NumPreds {
		out = append(out, flat[i:i+t.NumPreds:i+t.NumPreds])
	}
	return out
}

// cliqueList is Cliques flattened: NumPreds entries per clique.
func (s *Source) cliqueList(t *Template) []int32 {
	var out []int32
	preds := make([]*SourcePred, t.NumPreds)
	bindings(t, len(s.Preds), func(i int) int { return len(s.Preds[i].Types) }, func(bind []int) {
		for k, b := range bind {
			preds[k] = s.Preds[b]
		}
		if _, _, ok := varTypes(t, preds); !ok {
			return
		}
		for _, b := range bind {
			out = append(out, int32(b))
		}
	})
	return out
}

// automorphisms returns the permutations of t's predicate variables,
// other than the identity, that map t to itself up to renaming object
// variables and reordering literals.
func automorphisms(t *Template) [][]int {
	var out [][]int
	permutations(t.NumPreds, func(pi []int) {
		id := true
		for i, j := range pi {
			if i != j {
				id = false
			}
		}
		if id {
			return
		}
		lits := make([]Literal, len(t.Lits))
		for i, l := range t.Lits {
			lits[i] = Literal{Pred: pi[l.Pred], Args: l.Args}
		}
		if sameUpToVars(t.Lits, lits) {
			out = append(out, append([]int(nil), pi...))
		}
	})
	return out
}

// sameUpToVars reports whether b equals a after renaming object variables
// and reordering literals, predicate variables kept as they are.
func sameUpToVars(a, b []Literal) bool {
	return fixedPredKey(a) == fixedPredKey(b)
}

// fixedPredKey is the least encoding, over literal orders, of the
// literals with object variables renamed by first appearance and
// predicate variables kept.
func fixedPredKey(lits []Literal) string {
	best := ""
	perm := make([]Literal, len(lits))
	permutations(len(lits), func(p []int) {
		for i, j := range p {
			perm[i] = lits[j]
		}
		vm := map[int]int{}
		var b strings.Builder
		for _, l := range perm {
			fmt.Fprintf(&b, "%d(", l.Pred)
			for _, a := range l.Args {
				v, ok := vm[a]
				if !ok {
					v = len(vm)
					vm[a] = v
				}
				fmt.Fprintf(&b, "%d,", v)
			}
			b.WriteString(")")
		}
		if k := b.String(); best == "" || k < best {
			best = k
		}
	})
	return best
}

// Discover enumerates the clique templates, scores every clique of each
// in the source and ranks the templates by the average score of their K
// best cliques. The result does not depend on Options.Workers.
func Discover(ctx context.Context, s *Source, o Options) (*Result, error) {
	if o.K <= 0 {
		o.K = DefaultK
	}
	switch {
	case o.Alpha == 0:
		o.Alpha = DefaultAlpha
	case o.Alpha < 0:
		o.Alpha = 0
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	temps := Enumerate(o.Enum)
	res := &Result{Enumerated: len(temps), K: o.K, Alpha: o.Alpha}
	type job struct{ t, lo, hi int }
	cliques := make([][]int32, len(temps)) // flat, NumPreds per clique
	scores := make([][]float32, len(temps))
	counts := make([]int, len(temps))
	total := 0
	for i, t := range temps {
		cliques[i] = s.cliqueList(t)
		n := len(cliques[i]) / t.NumPreds
		scores[i] = make([]float32, n)
		counts[i] = n
		total += n
	}
	res.Cliques = total
	cp := &checkpointer{o: o, c: newCheckpoint(o, temps, counts), last: time.Now()}
	finished := map[[2]int]bool{}
	var nDone, nSampledBefore int64
	if o.Resume != nil {
		if err := cp.c.matches(o.Resume); err != nil {
			return nil, err
		}
		for _, ch := range o.Resume.Chunks {
			if finished[[2]int{ch.Template, ch.Lo}] {
				continue
			}
			finished[[2]int{ch.Template, ch.Lo}] = true
			copy(scores[ch.Template][ch.Lo:], ch.Scores)
			cp.c.Chunks = append(cp.c.Chunks, ch)
			nDone += int64(len(ch.Scores))
			nSampledBefore += int64(ch.Sampled)
		}
	}
	var jobs []job
	for i, n := range counts {
		for lo := 0; lo < n; lo += chunkSize {
			if !finished[[2]int{i, lo}] {
				jobs = append(jobs, job{i, lo, min(lo+chunkSize, n)})
			}
		}
	}
	score := func(ti, ci int) (Clique, bool, error) {
		t := temps[ti]
		preds := make([]*SourcePred, t.NumPreds)
		for k, x := range cliques[ti][ci*t.NumPreds : (ci+1)*t.NumPreds] {
			preds[k] = s.Preds[x]
		}
		rng := rand.New(rand.NewPCG(o.Seed, uint64(ti)<<40|uint64(ci)))
		counts, sampled, err := s.CountSampled(t, preds, o.MaxOuter, rng)
		if err != nil {
			return Clique{}, false, err
		}
		c := Clique{Preds: preds, Counts: counts, Score: -1}
		if p := Distribution(counts, o.Alpha); p != nil && countsTotal(counts) > 0 {
			c.Score, c.Decomp = CliqueScore(p, len(t.Lits))
		}
		return c, sampled, nil
	}
	var next, done, nSampled atomic.Int64
	done.Store(nDone)
	nSampled.Store(nSampledBefore)
	var wg sync.WaitGroup
	var progressMu sync.Mutex // Progress and Checkpoint are called by one worker at a time
	var firstErr error
	var errOnce sync.Once
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= len(jobs) || ctx.Err() != nil {
					return
				}
				jb := jobs[j]
				ch := CheckpointChunk{Template: jb.t, Lo: jb.lo}
				for ci := jb.lo; ci < jb.hi; ci++ {
					if ctx.Err() != nil {
						return
					}
					c, sampled, err := score(jb.t, ci)
					if err != nil {
						errOnce.Do(func() { firstErr = err })
						return
					}
					if sampled {
						ch.Sampled++
					}
					scores[jb.t][ci] = float32(c.Score)
				}
				ch.Scores = scores[jb.t][jb.lo:jb.hi]
				nSampled.Add(int64(ch.Sampled))
				d := done.Add(int64(jb.hi - jb.lo))
				progressMu.Lock()
				err := cp.add(ch)
				if o.Progress != nil {
					o.Progress(int(d), total)
				}
				progressMu.Unlock()
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		if firstErr == nil {
			if cerr := cp.save(); cerr != nil {
				return nil, cerr
			}
		}
		return nil, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	res.Sampled = int(nSampled.Load())
	for i, t := range temps {
		idx := make([]int, 0, len(scores[i]))
		for c, sc := range scores[i] {
			if sc >= 0 {
				idx = append(idx, c)
			}
		}
		if len(idx) == 0 {
			continue
		}
		sort.SliceStable(idx, func(a, b int) bool { return scores[i][idx[a]] > scores[i][idx[b]] })
		if len(idx) > o.K {
			idx = idx[:o.K]
		}
		sc := Scored{Template: t, NumCliques: len(scores[i])}
		for _, ci := range idx {
			c, _, _ := score(i, ci) // recount the best in full precision
			sc.Top = append(sc.Top, c)
			sc.Score += c.Score
		}
		sc.Score /= float64(len(idx))
		res.Templates = append(res.Templates, sc)
	}
	sort.SliceStable(res.Templates, func(a, b int) bool {
		return res.Templates[a].Score > res.Templates[b].Score
	})
	return res, nil
}

func countsTotal(c []int64) int64 {
	var n int64
	for _, x := range c {
		n += x
	}
	return n
}
