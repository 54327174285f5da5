package structure

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// canonicalKeyBrute is CanonicalKey by trying every order of the
// literals, the definition the pruned search must match.
func canonicalKeyBrute(c *mln.Clause) string {
	var perm, cmps []int
	for i := range c.Lits {
		if c.Lits[i].Pred < 0 {
			cmps = append(cmps, i)
		} else {
			perm = append(perm, i)
		}
	}
	n := len(perm)
	best := ""
	var b strings.Builder
	rename := make([]int, len(c.Vars))
	next := 0
	term := func(b *strings.Builder, t mln.Term) {
		if t.IsVar() {
			v := t.Var()
			if rename[v] < 0 {
				rename[v] = next
				next++
			}
			b.WriteByte('v')
			b.WriteString(strconv.Itoa(rename[v]))
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(int(c.Vars[v].Type)))
		} else {
			b.WriteString(strconv.Itoa(int(t.Const())))
		}
	}
	var try func(k int)
	write := func() {
		b.Reset()
		for i := range rename {
			rename[i] = -1
		}
		next = 0
		for _, li := range perm {
			l := &c.Lits[li]
			if l.Neg {
				b.WriteByte('!')
			}
			b.WriteString(strconv.Itoa(int(l.Pred)))
			b.WriteByte('(')
			for j, t := range l.Args {
				if j > 0 {
					b.WriteByte(',')
				}
				term(&b, t)
			}
			b.WriteByte(')')
		}
		if len(cmps) > 0 {
			keys := make([]string, len(cmps))
			for k, li := range cmps {
				l := &c.Lits[li]
				var kb strings.Builder
				if l.Neg {
					kb.WriteByte('!')
				}
				kb.WriteString("b" + strconv.Itoa(int(l.Builtin)) + "(")
				args := make([]string, len(l.Args))
				for j, t := range l.Args {
					var ab strings.Builder
					term(&ab, t)
					args[j] = ab.String()
				}
				if l.Builtin == mln.Eq || l.Builtin == mln.Neq {
					slices.Sort(args) // symmetric
				}
				kb.WriteString(strings.Join(args, ","))
				kb.WriteByte(')')
				keys[k] = kb.String()
			}
			slices.Sort(keys)
			for _, k := range keys {
				b.WriteString(k)
			}
		}
		if s := b.String(); best == "" || s < best {
			best = s
		}
	}
	if n > 6 {
		write()
		return best
	}
	try = func(k int) {
		if k == n {
			write()
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			try(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	try(0)
	return best
}

// TestCanonicalKeyPruned checks CanonicalKey, which abandons an order of
// the literals once its prefix sorts after the best key so far, against
// trying every order, on random clauses of up to 7 literals (repeated
// predicates, constants, comparisons), and that shuffling the literals of
// one without comparisons keeps its key.
func TestCanonicalKeyPruned(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 3000; trial++ {
		nv := 1 + r.IntN(6)
		c := &mln.Clause{Coef: 1, Formula: -1}
		for v := 0; v < nv; v++ {
			c.Vars = append(c.Vars, mln.Var{Name: "v" + strconv.Itoa(v), Type: mln.TypeID(r.IntN(2))})
		}
		nl := 1 + r.IntN(7)
		for i := 0; i < nl; i++ {
			l := mln.Literal{Pred: mln.PredID(r.IntN(3)), Neg: r.IntN(2) == 0}
			if r.IntN(8) == 0 {
				l = mln.Literal{Pred: -1, Builtin: mln.Neq, Neg: r.IntN(2) == 0}
			}
			ar := 1 + r.IntN(2)
			if l.Pred < 0 {
				ar = 2
			}
			for j := 0; j < ar; j++ {
				if r.IntN(6) == 0 {
					l.Args = append(l.Args, mln.ConstTerm(mln.ConstID(r.IntN(3))))
				} else {
					l.Args = append(l.Args, mln.VarTerm(r.IntN(nv)))
				}
			}
			c.Lits = append(c.Lits, l)
		}
		want := canonicalKeyBrute(c)
		if got := CanonicalKey(c); got != want {
			t.Fatalf("%+v: key %q, every order gives %q", c.Lits, got, want)
		}
		d := &mln.Clause{Coef: 1, Formula: -1, Vars: c.Vars, Lits: slices.Clone(c.Lits)}
		r.Shuffle(len(d.Lits), func(i, j int) { d.Lits[i], d.Lits[j] = d.Lits[j], d.Lits[i] })
		if predLits(c) <= 6 && predLits(c) == len(c.Lits) && CanonicalKey(d) != want {
			t.Fatalf("%+v shuffled: key %q, want %q", d.Lits, CanonicalKey(d), want)
		}
	}
}
