package ground

import (
	"bufio"
	"fmt"
	"io"

	"github.com/marple-mln/marple/syntax"
)

// MaxFactorLits bounds the literals of a ground clause WriteFactorGraph
// writes: its table has 2^k entries.
const MaxFactorLits = 20

// WriteFactorGraph writes the network as Alchemy's infer -outputNetwork
// writes its factor graph: the line "variables:", the unknown atoms one per
// line, the line "factors:", then one line per ground clause: its atoms joined by "/ ", "// ", and
// the table of the log of the factor over the 2^k states of its k atoms,
// atom i being bit i of the state (the first atom varies fastest): the
// clause's weight where the clause holds, 0 where it does not (a hard
// clause: 0 and -inf).
func (n *Network) WriteFactorGraph(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("variables:\n")
	for a := 0; a < n.NumAtoms(); a++ {
		bw.WriteString(n.AtomName(int32(a)))
		bw.WriteByte('\n')
	}
	bw.WriteString("factors:\n")
	for c := 0; c < n.NumClauses(); c++ {
		lits := n.Clause(c)
		if len(lits) > MaxFactorLits {
			return fmt.Errorf("ground: a ground clause has %d literals: its table would have 2^%d entries", len(lits), len(lits))
		}
		for i, l := range lits {
			if i > 0 {
				bw.WriteString("/ ")
			}
			a := l.Atom()
			bw.WriteString(n.AtomName(int32(a)))
		}
		bw.WriteString("//")
		sat, unsat := syntax.FormatWeight(n.Weight(c)), "0"
		if n.IsHard(c) {
			sat, unsat = "0", "-inf"
		}
		for state := 0; state < 1<<len(lits); state++ {
			holds := false
			for i, l := range lits {
				if (state>>i&1 == 1) != l.Neg() {
					holds = true
					break
				}
			}
			bw.WriteByte(' ')
			if holds {
				bw.WriteString(sat)
			} else {
				bw.WriteString(unsat)
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
