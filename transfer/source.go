package transfer

import (
	"fmt"
	"math/bits"

	"github.com/marple-mln/marple/mln"
)

// Source is a source domain's data as dense truth tables: for every
// usable predicate (arity 1 or 2) the bit sets of its true atoms and of its
// known false atoms, by dense constant index within each argument type,
// and for binary predicates their transposes, so that the groundings of a
// clique can be counted a machine word at a time.
type Source struct {
	Model *mln.Model
	// Preds lists the usable predicates (arity 1 or 2 with at least one
	// true atom), in declaration order.
	Preds []*SourcePred
	// Skipped names the declared predicates left out, with the reason.
	Skipped []string
	// OpenWorld lists the predicates whose unlisted atoms are unknown (the
	// data list their false atoms).
	OpenWorld []string
}

// SourcePred is one predicate's truth table.
type SourcePred struct {
	Pred  *mln.Predicate
	Types []mln.TypeID
	Sizes []int // domain size of each argument type
	NTrue int   // true atoms
	NKnow int   // known atoms (true or false), with distinct arguments when binary
	// Bits: for a unary predicate one row of Words(Sizes[0]) words; for a
	// binary one Sizes[0] rows of Words(Sizes[1]) words (row a: the b with
	// p(a,b)), and the transposes Sizes[1] rows of Words(Sizes[0]).
	tru, fal   []uint64
	truT, falT []uint64
	w0, w1     int // words per row of the table and of its transpose
}

// words returns the number of 64-bit words holding n bits.
func words(n int) int { return (n + 63) / 64 }

func setBit(b []uint64, i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func getBit(b []uint64, i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// value returns the truth of the atom with dense argument indices a (and
// b for a binary predicate): 1 true, 0 false, -1 unknown.
func (p *SourcePred) value(a, b int) int {
	var i int
	if len(p.Types) == 1 {
		i = a
	} else {
		i = a*p.w0*64 + b
	}
	switch {
	case getBit(p.tru, i):
		return 1
	case getBit(p.fal, i):
		return 0
	}
	return -1
}

// row returns the true and false bit sets of p(a, ·) (pos 0: a is the
// first argument) or p(·, a) (pos 1), or of the unary p(·) (a ignored).
func (p *SourcePred) row(pos, a int) (tru, fal []uint64) {
	if len(p.Types) == 1 {
		return p.tru, p.fal
	}
	if pos == 0 {
		return p.tru[a*p.w0 : (a+1)*p.w0], p.fal[a*p.w0 : (a+1)*p.w0]
	}
	return p.truT[a*p.w1 : (a+1)*p.w1], p.falT[a*p.w1 : (a+1)*p.w1]
}

// SourceOptions says how to read a source database.
type SourceOptions struct {
	// ClosedWorld makes every unlisted atom false. Otherwise a predicate
	// whose data list false atoms ("!P(a,b)", as the 10-fold data sets do)
	// is open world: its unlisted atoms are unknown and the groundings
	// touching them are not counted. Atoms listed as unknown ("?P(a,b)")
	// are always unknown.
	ClosedWorld bool
}

// NewSource builds the truth tables of db's predicates. Call it once the
// model's domains are final (after loading all evidence).
func NewSource(m *mln.Model, db *mln.Database, o SourceOptions) (*Source, error) {
	s := &Source{Model: m}
	for _, p := range m.Preds {
		if p.Arity() < 1 || p.Arity() > 2 {
			s.Skipped = append(s.Skipped, fmt.Sprintf("%s (arity %d)", p.Name, p.Arity()))
			continue
		}
		sp := &SourcePred{Pred: p, Types: p.Args}
		for _, t := range p.Args {
			sp.Sizes = append(sp.Sizes, m.Types[t].Size())
		}
		open := false
		db.Atoms(p.ID, func(args []mln.ConstID, v mln.Truth) {
			if v == mln.False {
				open = true
			}
		})
		open = open && !o.ClosedWorld
		if len(sp.Sizes) == 1 {
			sp.w0 = words(sp.Sizes[0])
			sp.tru = make([]uint64, sp.w0)
			sp.fal = make([]uint64, sp.w0)
		} else {
			sp.w0, sp.w1 = words(sp.Sizes[1]), words(sp.Sizes[0])
			sp.tru = make([]uint64, sp.Sizes[0]*sp.w0)
			sp.fal = make([]uint64, sp.Sizes[0]*sp.w0)
		}
		unknown := map[int]bool{}
		idx := func(args []mln.ConstID) (int, bool) {
			i := 0
			for j, c := range args {
				k, ok := m.Types[sp.Types[j]].Index(c)
				if !ok {
					return 0, false
				}
				if j == 0 {
					i = int(k)
				} else {
					i = i*sp.w0*64 + int(k)
				}
			}
			return i, true
		}
		db.Atoms(p.ID, func(args []mln.ConstID, v mln.Truth) {
			i, ok := idx(args)
			if !ok {
				return
			}
			switch v {
			case mln.True:
				setBit(sp.tru, i)
			case mln.False:
				setBit(sp.fal, i)
			default:
				unknown[i] = true
			}
		})
		if !open {
			// Closed world: every atom not true (nor listed unknown) is false.
			for i := range sp.fal {
				sp.fal[i] = ^sp.tru[i]
			}
			for i := range unknown {
				sp.fal[i>>6] &^= 1 << (uint(i) & 63)
			}
			// Clear the padding bits beyond each row.
			n := sp.Sizes[len(sp.Sizes)-1]
			if rem := n % 64; rem != 0 {
				for r := sp.w0 - 1; r < len(sp.fal); r += sp.w0 {
					sp.fal[r] &= (1 << uint(rem)) - 1
				}
			}
		} else {
			s.OpenWorld = append(s.OpenWorld, p.Name)
		}
		for i := range unknown {
			sp.tru[i>>6] &^= 1 << (uint(i) & 63)
		}
		if len(sp.Sizes) == 2 && sp.Types[0] == sp.Types[1] {
			// p(a,a) never grounds a template literal (distinct variables
			// bind distinct constants): leave reflexive atoms out of the
			// counts of true and known atoms.
			for a := 0; a < sp.Sizes[0]; a++ {
				i := a*sp.w0*64 + a
				sp.tru[i>>6] &^= 1 << (uint(i) & 63)
				sp.fal[i>>6] &^= 1 << (uint(i) & 63)
			}
		}
		for _, w := range sp.tru {
			sp.NTrue += bits.OnesCount64(w)
		}
		sp.NKnow = sp.NTrue
		for _, w := range sp.fal {
			sp.NKnow += bits.OnesCount64(w)
		}
		if sp.NTrue == 0 {
			s.Skipped = append(s.Skipped, fmt.Sprintf("%s (no true atom)", p.Name))
			continue
		}
		if len(sp.Sizes) == 2 {
			sp.truT = transpose(sp.tru, sp.Sizes[0], sp.Sizes[1], sp.w0, sp.w1)
			sp.falT = transpose(sp.fal, sp.Sizes[0], sp.Sizes[1], sp.w0, sp.w1)
		}
		s.Preds = append(s.Preds, sp)
	}
	return s, nil
}

func transpose(b []uint64, n0, n1, w0, w1 int) []uint64 {
	t := make([]uint64, n1*w1)
	for a := 0; a < n0; a++ {
		row := b[a*w0 : (a+1)*w0]
		for wi, w := range row {
			for w != 0 {
				k := bits.TrailingZeros64(w)
				w &= w - 1
				c := wi*64 + k
				setBit(t[c*w1:(c+1)*w1], a)
			}
		}
	}
	return t
}

// readData returns a .db file's text, decompressed when the name ends in
// .gz (or the file starts with gzip's magic bytes); binary data is refused
// (mln.ReadInput).
func readData(p string) ([]byte, error) {
	return mln.ReadInput(p)
}

// LoadSource reads a source domain: the predicate declarations of
// modelFiles (formulas in them are ignored), or, with none, declarations
// inferred from the data (DeclareFromData), and the atoms of the .db files
// (gzip-compressed when the name ends in .gz).
func LoadSource(modelFiles, dbFiles []string, o SourceOptions) (*Source, error) {
	srcs := map[string][]byte{}
	for _, p := range dbFiles {
		src, err := readData(p)
		if err != nil {
			return nil, err
		}
		srcs[p] = src
	}
	var m *mln.Model
	var err error
	if len(modelFiles) > 0 {
		m, err = mln.LoadModel(modelFiles...)
	} else {
		m, err = DeclareFromData(srcs, dbFiles)
	}
	if err != nil {
		return nil, err
	}
	db := mln.NewDatabase(m)
	for _, p := range dbFiles {
		if err := db.ReadFrom(p, srcs[p]); err != nil {
			return nil, err
		}
	}
	return NewSource(m, db, o)
}
