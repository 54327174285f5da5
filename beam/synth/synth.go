// Package synth generates large synthetic structured-prediction data in
// the shape of semantic role labelling (paper 003's CoNLL 2005 setting):
// one example per verb proposition, a chain of tokens, each with a word
// and a role, labelled by the most probable roles under a planted
// linear-chain MLN (word-role and role-transition weights) with a little
// label noise. It also replicates a database with renamed constants (for
// CiteSeer at scale).
package synth

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/mln"
)

// Roles are the labels, in order.
var Roles = []string{"A0", "A1", "AM", "V", "O"}

// SRL describes a synthetic data set.
type SRL struct {
	// Examples is the number of propositions.
	Examples int
	// MinLen and MaxLen bound the tokens per proposition (defaults 6, 14).
	MinLen, MaxLen int
	// Vocab is the number of distinct words (default 300).
	Vocab int
	// Noise is the fraction of tokens whose role is replaced at random
	// (default 0.03; negative means none).
	Noise float64
	// Seed fixes the planted weights and every example.
	Seed int64
}

func (g SRL) defaults() SRL {
	if g.MinLen <= 0 {
		g.MinLen = 6
	}
	if g.MaxLen < g.MinLen {
		g.MaxLen = max(14, g.MinLen)
	}
	if g.Vocab <= 0 {
		g.Vocab = 300
	}
	if g.Noise == 0 {
		g.Noise = 0.03
	}
	if g.Noise < 0 {
		g.Noise = 0
	}
	return g
}

// Model returns the MLN the learners are given: the planted model's
// formulas without weights. Word(t, w, p): token t of proposition p has
// word w; Next(t1, t2): t2 follows t1; Role(t, r): t has role r (exactly
// one).
func (g SRL) Model() string {
	return `// Synthetic semantic role labelling (marple-beam generate): one example per proposition.
role = {` + strings.Join(Roles, ", ") + `}
Word(tok, word, prop)
Next(tok, tok)
Role(tok, role!)

Word(t, +w, p) => Role(t, +r)
Role(t1, +r1) ^ Next(t1, t2) => Role(t2, +r2)
`
}

// planted returns the planted weights: word-role scores (each word has a
// home role) and role transitions.
func (g SRL) planted() (emit [][]float64, trans [][]float64) {
	g = g.defaults()
	rng := rand.New(rand.NewPCG(uint64(g.Seed), 0x53524c))
	k := len(Roles)
	emit = make([][]float64, g.Vocab)
	for w := range emit {
		emit[w] = make([]float64, k)
		home := rng.IntN(k)
		for r := range emit[w] {
			emit[w][r] = 0.5 * rng.NormFloat64()
		}
		emit[w][home] += 1.5 + rng.Float64()
	}
	trans = make([][]float64, k)
	for r := range trans {
		trans[r] = make([]float64, k)
		for s := range trans[r] {
			trans[r][s] = rng.NormFloat64()
		}
	}
	return emit, trans
}

// Example returns proposition i in .db syntax: its words, token order and
// roles (the truth). Examples are independent of each other, so they can
// be made in any order.
func (g SRL) Example(i int) string {
	g = g.defaults()
	emit, trans := g.planted()
	rng := rand.New(rand.NewPCG(uint64(g.Seed), uint64(i)+1))
	n := g.MinLen + rng.IntN(g.MaxLen-g.MinLen+1)
	words := make([]int, n)
	for t := range words {
		// Zipf-like: small word numbers are frequent.
		words[t] = int(math.Floor(math.Pow(rng.Float64(), 2) * float64(g.Vocab)))
	}
	roles := viterbi(words, emit, trans)
	for t := range roles {
		if rng.Float64() < g.Noise {
			roles[t] = rng.IntN(len(Roles))
		}
	}
	var b strings.Builder
	p := fmt.Sprintf("P%d", i)
	for t, w := range words {
		fmt.Fprintf(&b, "Word(T%d_%d, W%d, %s)\n", i, t, w, p)
	}
	for t := 0; t+1 < n; t++ {
		fmt.Fprintf(&b, "Next(T%d_%d, T%d_%d)\n", i, t, i, t+1)
	}
	for t, r := range roles {
		fmt.Fprintf(&b, "Role(T%d_%d, %s)\n", i, t, Roles[r])
	}
	return b.String()
}

// viterbi returns the highest-scoring role sequence.
func viterbi(words []int, emit, trans [][]float64) []int {
	k := len(trans)
	n := len(words)
	score := make([][]float64, n)
	back := make([][]int, n)
	for t := range score {
		score[t] = make([]float64, k)
		back[t] = make([]int, k)
	}
	copy(score[0], emit[words[0]])
	for t := 1; t < n; t++ {
		for s := range k {
			best, arg := math.Inf(-1), 0
			for r := range k {
				if v := score[t-1][r] + trans[r][s]; v > best {
					best, arg = v, r
				}
			}
			score[t][s] = best + emit[words[t]][s]
			back[t][s] = arg
		}
	}
	out := make([]int, n)
	best := math.Inf(-1)
	for s := range k {
		if score[n-1][s] > best {
			best, out[n-1] = score[n-1][s], s
		}
	}
	for t := n - 1; t > 0; t-- {
		out[t-1] = back[t][out[t]]
	}
	return out
}

// Write writes the model (srl.mln) and the examples, perFile to a file
// (data-00000.db, ...), into dir, and returns the data files' paths.
func (g SRL) Write(dir string, perFile int) (model string, files []string, err error) {
	if perFile <= 0 {
		perFile = 1000
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	model = filepath.Join(dir, "srl.mln")
	if err := os.WriteFile(model, []byte(g.Model()), 0o644); err != nil {
		return "", nil, err
	}
	for lo := 0; lo < g.Examples; lo += perFile {
		path := filepath.Join(dir, fmt.Sprintf("data-%05d.db", lo/perFile))
		err := atomicfile.Write(path, func(w io.Writer) error {
			for i := lo; i < min(lo+perFile, g.Examples); i++ {
				if _, err := w.Write([]byte(g.Example(i))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return "", nil, err
		}
		files = append(files, path)
	}
	return model, files, nil
}

// Replicate returns the atoms of db written k times, the constants of type
// t renamed in copy j by the suffix "_rj" (copy 0 keeps the names): a
// data set k times larger with the same statistics, whose examples (one
// per constant of t) stay distinct. Atoms are written predicate by
// predicate, in the database's order, "!" before a false atom and "?"
// before an unknown one.
func Replicate(m *mln.Model, db *mln.Database, t mln.TypeID, k int) string {
	return mln.ReplicatedAtoms(m, db, t, k)
}
