package eval

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Unknown is the value of an atom written with a leading "?" (unknown).
const Unknown = -1.0

// Atom is a ground atom in canonical text form.
type Atom struct {
	// Key is the canonical text: Pred(a1,...,an) without blanks, or Pred
	// alone for a zero-arity atom. Quoted constants are kept as written,
	// quotes and escapes included.
	Key string
	// Pred and Args are substrings of Key.
	Pred string
	Args []string
}

// String returns the canonical text of the atom.
func (a Atom) String() string { return a.Key }

// AtomSet is a set of ground atoms, each with a value: a probability in
// [0,1] (1 and 0 for true and false) or Unknown. Atoms are kept in order of
// first insertion; setting an atom again replaces its value.
type AtomSet struct {
	// Complete reports that the set lists every atom of its predicates
	// (every entry read carried an explicit number, as in a marginal
	// result), so an unlisted atom is not part of the universe. The readers
	// set it; callers may override it.
	Complete bool

	atoms   []Atom
	vals    []float64
	pred    []int32 // predicate index of each atom
	preds   []string
	predIdx map[string]int32
	index   map[string]int32
	argBuf  []string // backing store for Atom.Args, allocated in chunks
}

// NewAtomSet returns an empty set.
func NewAtomSet() *AtomSet {
	return &AtomSet{index: make(map[string]int32), predIdx: make(map[string]int32)}
}

func (s *AtomSet) init() {
	if s.index == nil {
		s.index = make(map[string]int32)
		s.predIdx = make(map[string]int32)
	}
}

// Len returns the number of atoms.
func (s *AtomSet) Len() int { return len(s.atoms) }

// Atom returns atom i (0 <= i < Len), in insertion order.
func (s *AtomSet) Atom(i int) Atom { return s.atoms[i] }

// Value returns the value of atom i.
func (s *AtomSet) Value(i int) float64 { return s.vals[i] }

// Preds returns the predicate names of the atoms, in order of first
// appearance. The slice must not be modified.
func (s *AtomSet) Preds() []string { return s.preds }

// Count returns the number of atoms of predicate pred.
func (s *AtomSet) Count(pred string) int {
	p, ok := s.predIdx[pred]
	if !ok {
		return 0
	}
	n := 0
	for _, q := range s.pred {
		if q == p {
			n++
		}
	}
	return n
}

// Probabilistic reports whether some value lies strictly between 0 and 1,
// i.e. the set holds marginal probabilities rather than a 0/1 assignment.
func (s *AtomSet) Probabilistic() bool {
	for _, v := range s.vals {
		if v > 0 && v < 1 {
			return true
		}
	}
	return false
}

// Get returns the value of an atom given as text (any blanks allowed) and
// whether it is in the set.
func (s *AtomSet) Get(atom string) (float64, bool) {
	if i, ok := s.index[atom]; ok {
		return s.vals[i], true
	}
	a, err := ParseAtom(atom)
	if err != nil {
		return 0, false
	}
	i, ok := s.index[a.Key]
	if !ok {
		return 0, false
	}
	return s.vals[i], true
}

// lookup returns the index of the atom with canonical key k, or -1.
func (s *AtomSet) lookup(k string) int32 {
	if i, ok := s.index[k]; ok {
		return i
	}
	return -1
}

// Set parses an atom written as text and records it with value v, which
// must be in [0,1] or Unknown.
func (s *AtomSet) Set(atom string, v float64) error {
	if err := checkValue(v); err != nil {
		return err
	}
	p := parser{src: []byte(atom), line: 1}
	if err := p.atomOnly(); err != nil {
		return err
	}
	s.add(&p, v)
	return nil
}

// SetArgs records pred(args...) with value v. The constants are written as
// they appear in files (a quoted constant with its quotes).
func (s *AtomSet) SetArgs(pred string, args []string, v float64) error {
	b := make([]byte, 0, 64)
	b = append(b, pred...)
	if len(args) > 0 {
		b = append(b, '(')
		for i, a := range args {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, a...)
		}
		b = append(b, ')')
	}
	return s.Set(string(b), v)
}

// Merge copies every atom of o into s (values of o win). Complete becomes
// true only if both sets are complete.
func (s *AtomSet) Merge(o *AtomSet) {
	s.init()
	for i, a := range o.atoms {
		s.put(a, o.vals[i])
	}
	s.Complete = s.Complete && o.Complete
}

func checkValue(v float64) error {
	if v == Unknown || (v >= 0 && v <= 1) {
		return nil
	}
	return fmt.Errorf("eval: value %v out of range [0,1]", v)
}

// put inserts or updates an atom whose strings may be shared.
func (s *AtomSet) put(a Atom, v float64) {
	if i, ok := s.index[a.Key]; ok {
		s.vals[i] = v
		return
	}
	p, ok := s.predIdx[a.Pred]
	if !ok {
		p = int32(len(s.preds))
		s.preds = append(s.preds, a.Pred)
		s.predIdx[a.Pred] = p
	}
	s.index[a.Key] = int32(len(s.atoms))
	s.atoms = append(s.atoms, a)
	s.vals = append(s.vals, v)
	s.pred = append(s.pred, p)
}

// add records the atom just parsed by p (canonical key in p.buf).
// add records the atom p has parsed with value v and returns its index,
// whether the set held it already and its value then (now replaced).
func (s *AtomSet) add(p *parser, v float64) (int32, bool, float64) {
	s.init()
	if i, ok := s.index[string(p.buf)]; ok { // no allocation
		old := s.vals[i]
		s.vals[i] = v
		return i, true, old
	}
	key := string(p.buf)
	a := Atom{Key: key, Pred: key[:p.predEnd]}
	if n := len(p.spans); n > 0 {
		if len(s.argBuf) < n {
			s.argBuf = make([]string, max(1024, n))
		}
		a.Args = s.argBuf[:n:n]
		s.argBuf = s.argBuf[n:]
		for j, sp := range p.spans {
			a.Args[j] = key[sp[0]:sp[1]]
		}
	}
	pi, ok := s.predIdx[a.Pred]
	if !ok {
		pi = int32(len(s.preds))
		s.preds = append(s.preds, a.Pred)
		s.predIdx[a.Pred] = pi
	}
	s.index[key] = int32(len(s.atoms))
	s.atoms = append(s.atoms, a)
	s.vals = append(s.vals, v)
	s.pred = append(s.pred, pi)
	return int32(len(s.atoms) - 1), false, v
}

// Write writes the set in result-file syntax, in insertion order. With
// probs false it writes the atoms whose value is at least 0.5, one per line
// (a MAP result); with probs true it writes every atom with a known value
// followed by its value (a marginal result).
func (s *AtomSet) Write(w io.Writer, probs bool) error {
	bw := bufio.NewWriter(w)
	var num []byte
	for i, a := range s.atoms {
		v := s.vals[i]
		if v == Unknown || (!probs && v < 0.5) {
			continue
		}
		bw.WriteString(a.Key)
		if probs {
			num = strconv.AppendFloat(num[:0], v, 'g', -1, 64)
			bw.WriteByte(' ')
			bw.Write(num)
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
