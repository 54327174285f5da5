package mcsat

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// refModel is newModel written directly (no layout): one pass that drops
// zero-weight clauses, tautologies and duplicate literals, then merges the
// soft clauses with the same literals through a map. The layout must give
// the same model, field for field, at every weight vector.
func refModel(net *ground.Network, bias []float64) *model {
	n := net.NumAtoms()
	m := &model{n: n, start: []int32{0}}
	mark := make([]int32, n)
	add := func(w float64) {
		m.start = append(m.start, int32(len(m.lits)))
		m.w = append(m.w, w)
		m.sel = append(m.sel, -math.Expm1(-math.Abs(w)))
	}
	for c := 0; c < net.NumClauses(); c++ {
		w := net.Weight(c)
		if w == 0 || math.IsNaN(w) {
			continue
		}
		base := len(m.lits)
		taut := false
		for _, l := range net.Clause(c) {
			a := l.Atom()
			if k := mark[a]; k != 0 {
				if m.lits[base+int(k)-1] != l {
					taut = true
				}
				continue
			}
			m.lits = append(m.lits, l)
			mark[a] = int32(len(m.lits) - base)
		}
		for _, l := range m.lits[base:] {
			mark[l.Atom()] = 0
		}
		if taut || len(m.lits) == base {
			m.lits = m.lits[:base]
			continue
		}
		add(w)
	}
	for a, b := range bias {
		if b == 0 || math.IsNaN(b) || a >= n {
			continue
		}
		m.lits = append(m.lits, ground.MakeLit(int32(a), false))
		add(b)
	}
	m.refMerge()
	cnt := make([]int32, n+1)
	for _, l := range m.lits {
		cnt[l.Atom()+1]++
	}
	for i := 1; i <= n; i++ {
		cnt[i] += cnt[i-1]
	}
	m.occ = make([]int32, len(m.lits))
	fill := append([]int32(nil), cnt[:n]...)
	for c := 0; c < m.numClauses(); c++ {
		for _, l := range m.clause(c) {
			a := l.Atom()
			m.occ[fill[a]] = int32(c)<<1 | int32(l&1)
			fill[a]++
		}
	}
	m.occStart = cnt
	m.group()
	return m
}

// merge merges the soft clauses that have the same literals (in any
// order) into one whose weight is the sum of theirs, after writing each
// soft unit clause ¬a of weight w as a of weight −w (w·[¬a] = −w·[a] + w:
// the constant does not change the distribution); clauses whose weights
// cancel are dropped. Hard clauses stay as they are.
//
// Without it MC-SAT cannot mix on networks where an atom has many
// duplicate clauses pulling both ways (structure learning's clauses with
// free variables give an atom hundreds of copies of a and of ¬a): in
// either state, some copy holding there is selected almost surely, so the
// chain keeps its initial value whatever the weights say. Merged, the
// atom's units are one clause of the net weight, and MC-SAT samples it
// with its right probability.
func (m *model) refMerge() {
	nc := m.numClauses()
	unit := make(map[int32]int32) // atom -> merged unit clause
	long := make(map[string]int32)
	out := make([]int32, 0, nc) // clauses kept, in order
	w := make([]float64, 0, nc)
	var key []byte
	for c := range nc {
		lits := m.clause(c)
		wc := m.w[c]
		if math.IsInf(wc, 0) {
			out, w = append(out, int32(c)), append(w, wc)
			continue
		}
		if len(lits) == 1 {
			if lits[0].Neg() {
				lits[0], wc = lits[0].Not(), -wc
			}
			if k, ok := unit[lits[0].Atom()]; ok {
				w[k] += wc
				continue
			}
			unit[lits[0].Atom()] = int32(len(out))
			out, w = append(out, int32(c)), append(w, wc)
			continue
		}
		slices.Sort(lits)
		key = key[:0]
		for _, l := range lits {
			key = binary.LittleEndian.AppendUint32(key, uint32(l))
		}
		if k, ok := long[string(key)]; ok {
			w[k] += wc
			continue
		}
		long[string(key)] = int32(len(out))
		out, w = append(out, int32(c)), append(w, wc)
	}
	if len(out) == nc {
		copy(m.w, w)
		return
	}
	lits := make([]ground.Lit, 0, len(m.lits))
	start := []int32{0}
	m.w, m.sel = m.w[:0], m.sel[:0]
	for i, c := range out {
		if w[i] == 0 {
			continue
		}
		lits = append(lits, m.clause(int(c))...)
		start = append(start, int32(len(lits)))
		m.w = append(m.w, w[i])
		m.sel = append(m.sel, -math.Expm1(-math.Abs(w[i])))
	}
	m.lits, m.start = lits, start
}

// TestLayoutMatchesDirectMerge checks that a layout built once gives, at
// each of a sequence of weight vectors (with zeros, sign changes, duplicate
// clauses that cancel and bias units), exactly the model the direct merge
// builds at those weights, and that a Chain's models do too.
func TestLayoutMatchesDirectMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 300 {
		n := 1 + rng.IntN(6)
		net := ground.NewNetwork(n)
		var base [][]ground.Lit
		for range 1 + rng.IntN(4*n) {
			var ls []ground.Lit
			if len(base) > 0 && rng.IntN(3) == 0 { // a duplicate, literals permuted
				ls = slices.Clone(base[rng.IntN(len(base))])
				rng.Shuffle(len(ls), func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
			} else {
				for range rng.IntN(4) {
					ls = append(ls, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
				}
			}
			base = append(base, ls)
			w := 2*rng.Float64() - 1
			if rng.IntN(8) == 0 {
				w = math.Inf(1)
			}
			net.AddClause(ls, w, -1, -1, 1)
		}
		var bias []float64
		if rng.IntN(3) == 0 {
			bias = make([]float64, n)
			for a := range bias {
				if rng.IntN(2) == 0 {
					bias[a] = 2*rng.Float64() - 1
				}
			}
		}
		ch, err := NewChain(net, Options{Options: optionsWithBias(bias)})
		if err != nil {
			continue // hard clauses unsatisfiable
		}
		lay := testLayout(net, bias, net.Weights(nil))
		for step := range 6 {
			if step > 0 {
				for c := range net.NumClauses() {
					w := net.Weight(c)
					if math.IsInf(w, 0) {
						continue
					}
					switch rng.IntN(5) {
					case 0:
						w = 0
					case 1:
						w = -w
					case 2: // cancel an earlier clause with the same literals
						for d := range c {
							if !math.IsInf(net.Weight(d), 0) && sameLits(net.Clause(c), net.Clause(d)) {
								w = -net.Weight(d)
								break
							}
						}
					default:
						w = 2*rng.Float64() - 1
					}
					net.SetWeight(c, w)
				}
			}
			want := refModel(net, bias)
			ws := net.Weights(nil)
			if !lay.fits(ws, bias) {
				t.Fatalf("trial %d step %d: layout does not fit its own hard clauses", trial, step)
			}
			sameModel(t, trial, step, lay.model(ws, bias), want)
			if err := ch.Sample(t.Context(), 1, func([]bool) {}); err != nil {
				t.Fatal(err)
			}
			sameModel(t, trial, step, ch.s.m, want)
		}
	}
}

func optionsWithBias(bias []float64) (o infer.Options) {
	o.Bias = bias
	return o
}

func sameLits(a, b []ground.Lit) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func sameModel(t *testing.T, trial, step int, got, want *model) {
	t.Helper()
	norm := func(x []ground.Lit) []ground.Lit {
		if len(x) == 0 {
			return nil
		}
		return x
	}
	eq := got.n == want.n && slices.Equal(norm(got.lits), norm(want.lits)) && slices.Equal(got.start, want.start) &&
		slices.Equal(got.occStart, want.occStart) && slices.Equal(got.occ, want.occ) &&
		slices.Equal(got.denseFixing, want.denseFixing) && slices.Equal(got.denseMulti, want.denseMulti) &&
		reflect.DeepEqual(got.sparseFixing, want.sparseFixing) && reflect.DeepEqual(got.sparseMulti, want.sparseMulti) &&
		got.multiVisits == want.multiVisits && slices.Equal(got.multi, want.multi)
	for i := range got.w {
		eq = eq && len(got.w) == len(want.w) && math.Float64bits(got.w[i]) == math.Float64bits(want.w[i]) &&
			math.Float64bits(got.sel[i]) == math.Float64bits(want.sel[i])
	}
	if !eq || len(got.w) != len(want.w) {
		t.Fatalf("trial %d step %d: layout model\n%+v\ndirect merge\n%+v", trial, step, got, want)
	}
}

// testModel is newModel without a context to cancel.
func testModel(net *ground.Network, bias []float64) *model {
	m, err := newModel(context.Background(), net, bias)
	if err != nil {
		panic(err)
	}
	return m
}

// testLayout is newLayout without a context to cancel.
func testLayout(net *ground.Network, bias []float64, ws []float64) *layout {
	l, err := newLayout(context.Background(), net, bias, ws)
	if err != nil {
		panic(err)
	}
	return l
}

// TestLayoutCancelled checks that building a model stops when its context
// is cancelled.
func TestLayoutCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	net := equivalences(50, 1.5)
	if _, err := newLayout(ctx, net, nil, net.Weights(nil)); err != context.Canceled {
		t.Fatalf("newLayout: %v, want %v", err, context.Canceled)
	}
	if _, err := MCSAT(ctx, net, Options{Samples: 10}); err == nil {
		t.Fatal("MCSAT ran with a cancelled context")
	}
}
