package ground

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/syntax"
)

// MaxFactorLits bounds the literals of a ground clause whose factor
// WriteFactorGraph writes as a table (of 2^k entries); a longer one is
// written as a clause, and WriteFactorGraphNumbers refuses it.
const MaxFactorLits = 20

// WriteFactorGraph writes the network as Alchemy's infer -outputNetwork
// writes its factor graph: the line "variables:", the unknown atoms one per
// line, the line "factors:", then one line per ground clause: its atoms joined by "/ ", "// ", and
// the table of the log of the factor over the 2^k states of its k atoms,
// atom i being bit i of the state (the first atom varies fastest): the
// clause's weight where the clause holds, 0 where it does not (a hard
// clause: 0 and -inf). A clause of more than MaxFactorLits literals is
// written as the clause instead of its table: its literals, each with "!"
// when negated, joined by "/ ", then "// clause " and its weight (or
// "hard"): the log-factor is the weight where the clause holds and 0 where
// it does not.
func (n *Network) WriteFactorGraph(w io.Writer) error { return n.writeFactorGraph(w, false) }

// WriteFactorGraphNumbers writes the network in the bytes of Alchemy 2.0's
// infer -outputNetwork: each atom as the numbers of its arguments'
// constants (in the order the model and the evidence introduce them,
// from 0), each followed by a blank, without its predicate (Alchemy's
// layout: Smokes(John) and Cancer(John) are both "1 "), and each factor as
// its atoms joined by "/ ", "// ", and its table's values each followed by
// a blank, with six significant digits. The values are the log-factors
// WriteFactorGraph writes (Alchemy writes each multiplied by the clause's
// weight again).
func (n *Network) WriteFactorGraphNumbers(w io.Writer) error { return n.writeFactorGraph(w, true) }

func (n *Network) writeFactorGraph(w io.Writer, numbers bool) error {
	bw := bufio.NewWriter(w)
	atom := func(a int32) string {
		if !numbers {
			return n.AtomName(a)
		}
		var b strings.Builder
		if int(a) < len(n.AtomArgs) {
			for _, c := range n.AtomArgs[a] {
				b.WriteString(strconv.Itoa(int(c)))
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	bw.WriteString("variables:\n")
	for a := 0; a < n.NumAtoms(); a++ {
		bw.WriteString(atom(int32(a)))
		bw.WriteByte('\n')
	}
	bw.WriteString("factors:\n")
	for c := 0; c < n.NumClauses(); c++ {
		lits := n.Clause(c)
		if len(lits) > MaxFactorLits {
			if numbers {
				return fmt.Errorf("ground: a ground clause has %d literals: its table in Alchemy's layout would have 2^%d entries (Marple's layout, with the atoms' names, writes it as a clause)", len(lits), len(lits))
			}
			// Too long for a table: the clause itself, each literal with
			// its sign, then "// clause" and the log-factor where it
			// holds (0 where it does not; a hard clause: 0 and -inf).
			for i, l := range lits {
				if i > 0 {
					bw.WriteString("/ ")
				}
				if l.Neg() {
					bw.WriteByte('!')
				}
				bw.WriteString(atom(int32(l.Atom())))
			}
			if n.IsHard(c) {
				bw.WriteString("// clause hard\n")
			} else {
				bw.WriteString("// clause " + syntax.FormatWeight(n.Weight(c)) + "\n")
			}
			continue
		}
		for i, l := range lits {
			if i > 0 {
				bw.WriteString("/ ")
			}
			bw.WriteString(atom(int32(l.Atom())))
		}
		bw.WriteString("//")
		sat, unsat := syntax.FormatWeight(n.Weight(c)), "0"
		if numbers {
			bw.WriteByte(' ')
			sat = strconv.FormatFloat(n.Weight(c), 'g', 6, 64)
		}
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
			if !numbers {
				bw.WriteByte(' ')
			}
			if holds {
				bw.WriteString(sat)
			} else {
				bw.WriteString(unsat)
			}
			if numbers {
				bw.WriteByte(' ')
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
