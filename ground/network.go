// Package ground turns a compiled MLN and its evidence into a ground
// network: the unknown ground atoms, with dense integer IDs, and the ground
// clauses over them that the evidence leaves undecided.
package ground

import (
	"fmt"
	"math"
	"sync"

	"github.com/marple-mln/marple/mln"
)

// Lit is a ground literal: an atom ID times two, plus one when negated.
type Lit int32

// MakeLit returns the literal of atom a, negated when neg is set.
func MakeLit(a int32, neg bool) Lit {
	l := Lit(a << 1)
	if neg {
		l |= 1
	}
	return l
}

// Atom returns the literal's atom.
func (l Lit) Atom() int32 { return int32(l >> 1) }

// Neg reports whether the literal is negated.
func (l Lit) Neg() bool { return l&1 == 1 }

// Not returns the complementary literal.
func (l Lit) Not() Lit { return l ^ 1 }

// True reports whether the literal holds under assignment y.
func (l Lit) True(y []bool) bool { return y[l>>1] != (l&1 == 1) }

// Network is a ground Markov network in clausal form. Its variables are the
// unknown ground atoms 0..NumAtoms()-1; its factors are ground clauses, each
// a disjunction of literals over those atoms with a weight.
//
// Clause c has the literals Clause(c) and the weight Weight(c). A network
// built by the grounder also records where each clause comes from (Source,
// Param, Coef) so that learners can map clause counts to model parameters;
// a network built by hand with AddClause may leave those at -1.
//
// The literals lie in pages that the grounder's workers fill directly; per
// clause the network keeps the address of its literals (4 bytes) and their
// number (1 byte). A ground network derives each clause's weight, source
// and coefficient from its first-order clause (clauses come in runs of one
// first-order clause) and keeps a parameter per clause only when a "+"
// variable makes it vary; see Weight. A network built by hand with
// AddClause keeps a weight and a parameter per clause.
type Network struct {
	// Model is the model the network was ground from (nil for a network
	// built by hand).
	Model *mln.Model

	// AtomPred and AtomArgs describe each atom: predicate and arguments.
	// Empty for a network built by hand.
	AtomPred []mln.PredID
	AtomArgs [][]mln.ConstID

	// EvidenceCount[p] is the part of parameter p's count that the
	// evidence decides: Coef times the number of groundings satisfied by the
	// evidence alone. It does not depend on the unknown atoms.
	EvidenceCount []float64
	// ConstScore is the weighted sum of every grounding satisfied by the
	// evidence alone (including groundings whose "+" binding never produced
	// an undecided clause, and so has no parameter). Score adds it.
	ConstScore float64
	// HardFalse counts hard groundings the evidence alone falsifies.
	HardFalse int

	// Global maps each atom of a network made by Sub to its atom in the
	// parent network, and GlobalClause each clause to its parent clause
	// (both nil for other networks).
	Global       []int32
	GlobalClause []int32

	// Clause storage.
	pages  [][]Lit         // literal pages; a clause's literals lie in one page
	addr   []uint32        // per clause: page<<pageBits | offset of its first literal
	size   []uint8         // per clause: number of literals, or longSize
	long   map[int32]int32 // number of literals of the clauses of size longSize
	nlits  int             // total number of literals
	runs   []run           // clause attributes by runs of clauses
	param  []int32         // per clause parameter; nil when the runs hold it
	weight []float64       // per clause weight; nil when derived (see Weight)
	pw     []float64       // parameter weights of derived clause weights
	hand   litWriter       // the page AddClause writes to

	unalloc []float64 // per formula: Coef × evidence-satisfied groundings of bindings without a parameter
	g       *grounder // grounding state, for AddModelClause

	occStart []int32 // atom -> clauses, compressed rows, built by Occurrences
	occ      []int32
	occN     int // number of clauses when occ was built
	numAtoms int
}

// run holds the attributes shared by the clauses first..(next run's
// first)-1.
type run struct {
	first  int32
	source int32
	param  int32 // the parameter of every clause of the run (when Network.param is nil)
	hard   bool  // hard clauses (derived weights)
	coef   float64
}

// Literal pages: a page holds at most pageSize literals (larger clauses
// get a page of their own); a literal address is page<<pageBits | offset.
const (
	pageBits = 16
	pageSize = 1 << pageBits
	pageMask = pageSize - 1
	maxPages = 1 << (32 - pageBits)
	longSize = 255 // size entry of a clause with 255 or more literals
)

// errTooManyLits is returned by a grounding whose literals exceed the
// address space of the pages.
var errTooManyLits = fmt.Errorf("ground: more than %d ground literals", uint64(maxPages)*pageSize)

// litWriter appends clauses to pages of a network. Its page grows by
// doubling up to pageSize and then is replaced by a fresh one; lock, when
// set, guards the network's page table (the grounder's workers share it).
type litWriter struct {
	buf  []Lit // the current page, full length
	id   uint32
	fill int
	lock *sync.Mutex
}

// put copies lits to a page of n and returns their address.
func (w *litWriter) put(n *Network, lits []Lit) (uint32, error) {
	k := len(lits)
	if w.buf == nil || w.fill+k > len(w.buf) {
		if err := w.grow(n, k); err != nil {
			return 0, err
		}
	}
	a := w.id<<pageBits | uint32(w.fill)
	copy(w.buf[w.fill:], lits)
	w.fill += k
	return a, nil
}

// grow makes room for k more literals: a larger current page, or a new one.
func (w *litWriter) grow(n *Network, k int) error {
	if w.lock != nil {
		w.lock.Lock()
		defer w.lock.Unlock()
	}
	if w.buf != nil && len(w.buf) < pageSize && w.fill+k <= pageSize {
		nb := make([]Lit, min(pageSize, max(2*len(w.buf), w.fill+k)))
		copy(nb, w.buf[:w.fill])
		w.buf = nb
		n.pages[w.id] = nb
		return nil
	}
	if len(n.pages) >= maxPages {
		return errTooManyLits
	}
	size := max(256, k)
	if w.buf != nil && k <= pageSize {
		size = pageSize // a writer past its first page fills whole pages
	}
	w.buf, w.id, w.fill = make([]Lit, size), uint32(len(n.pages)), 0
	n.pages = append(n.pages, w.buf)
	return nil
}

// trim gives back most of the unused end of the writer's current page.
func (w *litWriter) trim(n *Network) {
	if w.buf != nil && len(w.buf)-w.fill > 1024 {
		nb := make([]Lit, w.fill)
		copy(nb, w.buf)
		w.buf = nb
		n.pages[w.id] = nb
	}
}

// NewNetwork returns an empty network over n atoms, for building by hand.
func NewNetwork(n int) *Network {
	return &Network{numAtoms: n, weight: []float64{}, param: []int32{}}
}

// NumAtoms returns the number of unknown ground atoms.
func (n *Network) NumAtoms() int { return n.numAtoms }

// NumClauses returns the number of ground clauses.
func (n *Network) NumClauses() int { return len(n.addr) }

// NumLits returns the total number of literals of the clauses.
func (n *Network) NumLits() int { return n.nlits }

// Clause returns the literals of clause c. The slice must not be modified.
func (n *Network) Clause(c int) []Lit {
	a, k := n.addr[c], int(n.size[c])
	if k == longSize {
		k = int(n.long[int32(c)])
	}
	o := int(a & pageMask)
	return n.pages[a>>pageBits][o : o+k : o+k]
}

// runOf returns the run of clause c.
func (n *Network) runOf(c int) *run {
	lo, hi := 0, len(n.runs)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if int(n.runs[mid].first) <= c {
			lo = mid
		} else {
			hi = mid
		}
	}
	return &n.runs[lo]
}

// Weight returns the weight of clause c: +Inf for a hard clause; for a
// soft clause of a ground network, the weight of its parameter (as Model.Weights
// held when grounding ended, or as set since by SetWeights or
// SetParamWeights) times Coef(c). A negative weight rewards the clause
// being false.
func (n *Network) Weight(c int) float64 {
	if n.weight != nil {
		return n.weight[c]
	}
	return n.runWeight(n.runOf(c), c)
}

// runWeight is the weight of clause c of run r (the network keeps no
// per-clause weights).
func (n *Network) runWeight(r *run, c int) float64 {
	if r.hard {
		return math.Inf(1)
	}
	p := r.param
	if n.param != nil {
		p = n.param[c]
	}
	if p < 0 || int(p) >= len(n.pw) {
		return 0
	}
	return n.pw[p] * r.coef
}

// Weights returns Weight(c) of every clause c, in dst if it has the room.
func (n *Network) Weights(dst []float64) []float64 {
	nc := n.NumClauses()
	if cap(dst) < nc {
		dst = make([]float64, nc)
	}
	dst = dst[:nc]
	if n.weight != nil {
		copy(dst, n.weight)
		return dst
	}
	first := nc // the clauses before the first run take its attributes
	if len(n.runs) > 0 {
		first = int(n.runs[0].first)
	}
	for c := range first {
		dst[c] = n.Weight(c)
	}
	for i := range n.runs {
		r := &n.runs[i]
		end := nc
		if i+1 < len(n.runs) {
			end = int(n.runs[i+1].first)
		}
		for c := int(r.first); c < end; c++ {
			dst[c] = n.runWeight(r, c)
		}
	}
	return dst
}

// Source returns the index of the first-order clause (Model.Clauses)
// clause c comes from, or -1.
func (n *Network) Source(c int) int32 { return n.runOf(c).source }

// Param returns the model parameter (Model.Weights) whose weight clause c
// carries, or -1 (hard clauses, and clauses built by hand without one).
func (n *Network) Param(c int) int32 {
	if n.param != nil {
		return n.param[c]
	}
	return n.runOf(c).param
}

// Coef returns the multiplier of clause c's parameter weight.
func (n *Network) Coef(c int) float64 { return n.runOf(c).coef }

// IsHard reports whether clause c is hard.
func (n *Network) IsHard(c int) bool {
	if n.weight != nil {
		return math.IsInf(n.weight[c], 1)
	}
	return n.runOf(c).hard
}

// SetWeight sets the weight of clause c (+Inf makes it hard). The network
// keeps a weight per clause from then on.
func (n *Network) SetWeight(c int, w float64) {
	n.ownWeights()
	n.weight[c] = w
}

// ownWeights gives a network with derived weights a weight per clause.
func (n *Network) ownWeights() {
	if n.weight != nil {
		return
	}
	ws := make([]float64, n.NumClauses())
	for c := range ws {
		ws[c] = n.Weight(c)
	}
	n.weight = ws
}

// ownParams gives a network whose runs hold the parameters a parameter per
// clause.
func (n *Network) ownParams() {
	if n.param != nil {
		return
	}
	ps := make([]int32, n.NumClauses())
	for i, r := range n.runs {
		end := n.NumClauses()
		if i+1 < len(n.runs) {
			end = int(n.runs[i+1].first)
		}
		for c := int(r.first); c < end; c++ {
			ps[c] = r.param
		}
	}
	n.param = ps
}

// SetParamWeights sets the weight of every clause with a parameter p to
// w[p] times its Coef (hard clauses and clauses without a parameter keep
// theirs). A parameter beyond w has weight 0.
func (n *Network) SetParamWeights(w []float64) {
	if n.weight == nil {
		n.pw = append([]float64(nil), w...)
		return
	}
	for c := range n.weight {
		if p := n.Param(c); p >= 0 && !math.IsInf(n.weight[c], 1) {
			v := 0.0
			if int(p) < len(w) {
				v = w[p]
			}
			n.weight[c] = v * n.Coef(c)
		}
	}
}

// AddAtom appends a new atom (with optional description) and returns its ID.
func (n *Network) AddAtom(p mln.PredID, args []mln.ConstID) int32 {
	a := int32(n.numAtoms)
	n.numAtoms++
	if n.Model != nil || len(n.AtomPred) > 0 || args != nil {
		for len(n.AtomPred) < int(a) {
			n.AtomPred = append(n.AtomPred, -1)
			n.AtomArgs = append(n.AtomArgs, nil)
		}
		n.AtomPred = append(n.AtomPred, p)
		n.AtomArgs = append(n.AtomArgs, args)
	}
	return a
}

// AddClause appends a ground clause with the given weight (+Inf for hard),
// source clause, parameter and coefficient, and returns its index. The
// literals are copied. A network with derived weights (see Weight) keeps a
// weight per clause from then on.
func (n *Network) AddClause(lits []Lit, weight float64, source, param int32, coef float64) int {
	n.ownWeights()
	n.ownParams()
	c := n.NumClauses()
	n.appendClause(lits, source, param, coef, math.IsInf(weight, 1))
	n.weight = append(n.weight, weight)
	return c
}

// appendClause appends a clause's literals and attributes (but not its
// weight). It panics if the pages are full.
func (n *Network) appendClause(lits []Lit, source, param int32, coef float64, hard bool) {
	a, err := n.hand.put(n, lits)
	if err != nil {
		panic(err)
	}
	n.pushClause(a, len(lits))
	n.pushRun(int32(len(n.addr)-1), source, param, coef, hard)
	if n.param != nil {
		n.param = append(n.param, param)
	}
}

// pushClause records a clause of k literals at address a.
func (n *Network) pushClause(a uint32, k int) {
	c := len(n.addr)
	n.addr = append(n.addr, a)
	n.size = append(n.size, sizeByte(k))
	if k >= longSize {
		if n.long == nil {
			n.long = make(map[int32]int32)
		}
		n.long[int32(c)] = int32(k)
	}
	n.nlits += k
}

func sizeByte(k int) uint8 { return uint8(min(k, longSize)) }

// pushRun starts a run at clause c unless the last run has the same
// attributes (the parameter counts only when the runs hold it; hard only
// when the weights are derived).
func (n *Network) pushRun(c, source, param int32, coef float64, hard bool) {
	if n.param != nil {
		param = -1
	}
	if n.weight != nil {
		hard = false
	}
	if k := len(n.runs) - 1; k >= 0 {
		r := &n.runs[k]
		if r.source == source && r.param == param && r.coef == coef && r.hard == hard {
			return
		}
		if r.first == c {
			n.runs = n.runs[:k]
		}
	}
	n.runs = append(n.runs, run{first: c, source: source, param: param, hard: hard, coef: coef})
}

// Occurrences returns the clauses in which atom a occurs (with either
// sign). The index is built on first use and rebuilt after clauses are
// added.
func (n *Network) Occurrences(a int32) []int32 {
	if n.occStart == nil || n.occN != n.NumClauses() || len(n.occStart) != n.numAtoms+1 {
		n.buildOcc()
	}
	return n.occ[n.occStart[a]:n.occStart[a+1]]
}

func (n *Network) buildOcc() {
	cnt := make([]int32, n.numAtoms+1)
	for c := 0; c < n.NumClauses(); c++ {
		for _, l := range n.Clause(c) {
			cnt[l.Atom()+1]++
		}
	}
	for i := 1; i <= n.numAtoms; i++ {
		cnt[i] += cnt[i-1]
	}
	occ := make([]int32, n.nlits)
	fill := append([]int32(nil), cnt[:n.numAtoms]...)
	for c := 0; c < n.NumClauses(); c++ {
		for _, l := range n.Clause(c) {
			a := l.Atom()
			occ[fill[a]] = int32(c)
			fill[a]++
		}
	}
	n.occStart, n.occ, n.occN = cnt, occ, n.NumClauses()
}

// Satisfied reports whether clause c holds under assignment y.
func (n *Network) Satisfied(c int, y []bool) bool {
	return satisfied(n.Clause(c), y)
}

func satisfied(lits []Lit, y []bool) bool {
	for _, l := range lits {
		if l.True(y) {
			return true
		}
	}
	return false
}

// Score returns the log-potential of assignment y: the sum of the weights
// of the satisfied soft clauses plus ConstScore, and the number of violated
// hard clauses (including HardFalse).
func (n *Network) Score(y []bool) (score float64, hardViolated int) {
	score = n.ConstScore
	hardViolated = n.HardFalse
	for c := 0; c < n.NumClauses(); c++ {
		sat := n.Satisfied(c, y)
		w := n.Weight(c)
		if math.IsInf(w, 1) {
			if !sat {
				hardViolated++
			}
			continue
		}
		if sat {
			score += w
		}
	}
	return score, hardViolated
}

// Cost returns the MaxWalkSAT cost of assignment y: the weight of the
// unsatisfied positive-weight clauses plus the absolute weight of the
// satisfied negative-weight clauses, and the number of violated hard
// clauses (not including HardFalse, which no assignment can change).
func (n *Network) Cost(y []bool) (cost float64, hardViolated int) {
	for c := 0; c < n.NumClauses(); c++ {
		sat := n.Satisfied(c, y)
		w := n.Weight(c)
		switch {
		case math.IsInf(w, 1):
			if !sat {
				hardViolated++
			}
		case w > 0 && !sat:
			cost += w
		case w < 0 && sat:
			cost -= w
		}
	}
	return cost, hardViolated
}

// MaxParam returns the largest parameter of a clause, or -1 when no clause
// has one.
func (n *Network) MaxParam() int32 {
	mp := int32(-1)
	for _, p := range n.param {
		mp = max(mp, p)
	}
	if n.param == nil {
		for _, r := range n.runs {
			mp = max(mp, r.param)
		}
	}
	return mp
}

// clauseBytes returns the memory of the clause storage: pages, per-clause
// arrays and runs.
func (n *Network) clauseBytes() int64 {
	b := int64(4*cap(n.addr) + cap(n.size) + 4*cap(n.param) + 8*cap(n.weight) + 32*cap(n.runs))
	for _, p := range n.pages {
		b += int64(4 * cap(p))
	}
	return b
}

// AtomName returns atom a's name, Alchemy's way ("Friends(Anna,Bob)"), or
// "#a" for a network built by hand.
func (n *Network) AtomName(a int32) string {
	if n.Model == nil || int(a) >= len(n.AtomPred) {
		return fmt.Sprintf("#%d", a)
	}
	return n.Model.AtomString(n.AtomPred[a], n.AtomArgs[a])
}
