package query

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// AlchemyClosedWorld returns which predicates Alchemy 2.0's infer takes as
// closed world: those the evidence db lists atoms of, and those named
// closed, but not the query predicates nor those named open. (A predicate
// without evidence is open world in Alchemy: its atoms are unknown.)
func AlchemyClosedWorld(db *mln.Database, query, open, closed []mln.PredID) func(mln.PredID) bool {
	return func(p mln.PredID) bool {
		if slices.Contains(closed, p) {
			return true
		}
		if slices.Contains(query, p) || slices.Contains(open, p) {
			return false
		}
		return db.Count(p) > 0
	}
}

func atomKey(p mln.PredID, args []mln.ConstID) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(p)))
	for _, c := range args {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(int(c)))
	}
	return b.String()
}

// AlchemyNodeRanks returns, for each atom of net, its position among the
// variables of Alchemy's factor graph fs (the order in which the factors
// bring them in), or -1 for an atom that is in none of its factors.
func AlchemyNodeRanks(net *ground.Network, fs []AlchemyFactor) []int32 {
	rank := map[string]int32{}
	for _, f := range fs {
		for i := range f.Preds {
			k := atomKey(f.Preds[i], f.Args[i])
			if _, ok := rank[k]; !ok {
				rank[k] = int32(len(rank))
			}
		}
	}
	out := make([]int32, net.NumAtoms())
	for a := range out {
		r, ok := rank[atomKey(net.AtomPred[a], net.AtomArgs[a])]
		if !ok {
			r = -1
		}
		out[a] = r
	}
	return out
}

// AlchemyBPRanks returns the order of Alchemy 2.0's infer -bp output for
// the atoms of net (ground with the evidence db), with fs its factor graph
// (AlchemyFactorGraph): for each atom its position in the output (the
// outputs are by predicate, in the model's order, each predicate's atoms
// by this rank), or -1 for an atom Alchemy does not list. Alchemy lists
// the variables of its factor graph in the order they enter it; after
// those of a predicate that has evidence atoms, it lists that
// predicate's other unknown atoms (in no factor) in the order its list of
// them is left in (all of them by their constants, each listed one
// replaced by the last), with probability 0 where the true marginal of an
// atom in no ground clause is 1/2.
func AlchemyBPRanks(net *ground.Network, db *mln.Database, fs []AlchemyFactor) []int32 {
	rank, _ := AlchemyBPOrder(net, db, fs, nil)
	return rank
}

// AlchemyAtom is a ground atom of Alchemy's output, at position Rank among
// the atoms of its predicate.
type AlchemyAtom struct {
	Pred mln.PredID
	Args []mln.ConstID
	Rank int32
}

// AlchemyBPOrder is AlchemyBPRanks with the atoms of the predicates hidden
// reports (the open-world predicates not queried, whose atoms Alchemy's BP
// lists too: the variables of its factor graph, and for a predicate with
// evidence atoms its other unknown atoms after them, as for a query
// predicate). It also returns the atoms of those predicates that Alchemy
// lists and net lacks, by predicate and rank: unknown atoms of open-world
// predicates that are in no ground clause net keeps (Alchemy keeps the
// tautologies its grounding gives as factors; the grounder drops them), so
// each is true with probability 1/2, independently of the others.
func AlchemyBPOrder(net *ground.Network, db *mln.Database, fs []AlchemyFactor, hidden func(mln.PredID) bool) ([]int32, []AlchemyAtom) {
	m := db.Model
	rank := AlchemyNodeRanks(net, fs)
	n := int32(0)
	for _, r := range rank {
		n = max(n, r+1)
	}
	// An entry of a predicate's list: an atom of net (a >= 0) or an extra
	// atom (a < 0: extra[-a-1]).
	var extra []AlchemyAtom
	extraRank := map[string]int{} // atomKey -> index in extra
	if hidden != nil {
		seen := map[string]bool{}
		for _, f := range fs {
			for i, p := range f.Preds {
				k := atomKey(p, f.Args[i])
				if seen[k] {
					continue
				}
				seen[k] = true
				if _, ok := net.AtomID(p, f.Args[i]); ok || !hidden(p) {
					continue
				}
				extraRank[k] = len(extra)
				extra = append(extra, AlchemyAtom{Pred: p, Args: slices.Clone(f.Args[i]), Rank: int32(len(seen) - 1)})
			}
		}
		n = max(n, int32(len(seen)))
	}
	entryRank := func(e int32) int32 {
		if e >= 0 {
			return rank[e]
		}
		return extra[-e-1].Rank
	}
	entryArgs := func(e int32) []mln.ConstID {
		if e >= 0 {
			return net.AtomArgs[e]
		}
		return extra[-e-1].Args
	}
	byPred := map[mln.PredID][]int32{}
	for a := range rank {
		if p := net.AtomPred[a]; p >= 0 && (hidden == nil || !hidden(p)) {
			byPred[p] = append(byPred[p], int32(a))
		}
	}
	if hidden != nil {
		for p := range m.Preds {
			if !hidden(mln.PredID(p)) {
				continue
			}
			var list []int32
			if db.Count(mln.PredID(p)) == 0 {
				// No remaining list: only the variables of the graph.
				for a := range rank {
					if net.AtomPred[a] == mln.PredID(p) {
						list = append(list, int32(a))
					}
				}
				for i, x := range extra {
					if x.Pred == mln.PredID(p) {
						list = append(list, int32(-i-1))
					}
				}
			} else {
				list = unknownAtoms(net, db, mln.PredID(p), &extra, extraRank)
			}
			if len(list) > 0 {
				byPred[mln.PredID(p)] = list
			}
		}
	}
	for p, atoms := range byPred {
		if db.Count(p) == 0 {
			continue
		}
		var nodes []int32
		for _, a := range atoms {
			if entryRank(a) >= 0 {
				nodes = append(nodes, a)
			}
		}
		if len(nodes) == 0 {
			continue // Alchemy lists no atom of a predicate without variables
		}
		// The unknown groundings by their constants (each argument's
		// position in its type, the first argument slowest).
		list := slices.Clone(atoms)
		pos := make(map[int32][]int32, len(list))
		for _, a := range list {
			args := entryArgs(a)
			x := make([]int32, len(args))
			for i, c := range args {
				x[i], _ = m.Types[m.Preds[p].Args[i]].Index(c)
			}
			pos[a] = x
		}
		slices.SortFunc(list, func(x, y int32) int { return slices.Compare(pos[x], pos[y]) })
		slices.SortFunc(nodes, func(x, y int32) int { return int(entryRank(x) - entryRank(y)) })
		at := make(map[int32]int, len(list))
		for i, a := range list {
			at[a] = i
		}
		for _, a := range nodes {
			i := at[a]
			last := list[len(list)-1]
			list[i] = last
			at[last] = i
			list = list[:len(list)-1]
		}
		for _, a := range list {
			if a >= 0 {
				rank[a] = n
			} else {
				extra[-a-1].Rank = n
			}
			n++
		}
	}
	var out []AlchemyAtom
	for _, x := range extra {
		if x.Rank >= 0 {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(x, y AlchemyAtom) int {
		if x.Pred != y.Pred {
			return int(x.Pred) - int(y.Pred)
		}
		return int(x.Rank - y.Rank)
	})
	return rank, out
}

// unknownAtoms returns the unknown atoms of open-world predicate p (those
// db does not list as true or false) as entries of AlchemyBPOrder's lists:
// the atoms of net, and the others added to extra (rank -1 unless they are
// there already).
func unknownAtoms(net *ground.Network, db *mln.Database, p mln.PredID, extra *[]AlchemyAtom, extraRank map[string]int) []int32 {
	m := db.Model
	types := m.Preds[p].Args
	var list []int32
	args := make([]mln.ConstID, len(types))
	var walk func(i int)
	walk = func(i int) {
		if i == len(types) {
			if v, ok := db.Get(p, args); ok && v != mln.Unknown {
				return
			}
			if a, ok := net.AtomID(p, args); ok {
				list = append(list, a)
				return
			}
			k := atomKey(p, args)
			j, ok := extraRank[k]
			if !ok {
				j = len(*extra)
				extraRank[k] = j
				*extra = append(*extra, AlchemyAtom{Pred: p, Args: slices.Clone(args), Rank: -1})
			}
			list = append(list, int32(-j-1))
			return
		}
		for _, c := range m.Types[types[i]].Consts {
			args[i] = c
			walk(i + 1)
		}
	}
	walk(0)
	return list
}

// SetAtomRanks makes WriteMarginals list each predicate's atoms (the
// predicates in the model's order) by rank, the atoms of negative rank
// after the others in the network's order: with AlchemyBPRanks, in the
// order of Alchemy's BP output. With SetOmitFree, an atom in no ground
// clause is listed when its rank is not negative. nil restores the
// network's order.
func (q *Query) SetAtomRanks(rank []int32) { q.rank = rank }

// SetListHidden makes WriteMarginals, in the order of atom ranks
// (SetAtomRanks) and not in the order of the query, list every atom that
// has a rank, asked for or not (of a predicate not queried, or of a query
// predicate outside the patterns of the query), and the atoms extra (by
// predicate and rank, each with probability 1/2), among the query atoms by
// predicate and rank: with AlchemyBPOrder, every atom Alchemy's BP lists,
// the atoms of its hidden predicates among them. extra nil lists none but
// the network's.
func (q *Query) SetListHidden(on bool, extra []AlchemyAtom) {
	q.hidden = on
	q.extra = extra
}

// sortByRank orders atoms by predicate, then by q.rank.
func (q *Query) sortByRank(atoms []int32, net *ground.Network) {
	if q.rank == nil {
		return
	}
	key := func(a int32) int64 {
		r := int64(q.rank[a])
		if r < 0 {
			r = 1<<31 + int64(a)
		}
		return r
	}
	slices.SortStableFunc(atoms, func(x, y int32) int {
		if px, py := net.AtomPred[x], net.AtomPred[y]; px != py {
			return int(px) - int(py)
		}
		kx, ky := key(x), key(y)
		switch {
		case kx < ky:
			return -1
		case kx > ky:
			return 1
		}
		return 0
	})
}

// WriteAlchemyNetwork writes net as Alchemy 2.0's infer -outputNetwork
// does, in the order of Alchemy's factor graph fs (AlchemyFactorGraph of
// the same model and evidence): "variables:", each atom of the graph as
// the numbers cid gives its arguments' constants (AlchemyConstIDs), each
// followed by a blank, in the order the factors bring them in, then the
// network's other atoms; "factors:", a line per factor of fs: its atoms'
// numbers joined by "/ " in Alchemy's order, "// ", and the table of the
// factor's log over the 2^k states of its k atoms (the first atom varies
// fastest), each value followed by a blank with six significant digits.
// A factor stands for the ground clauses of net with the same literals
// (as many as the groundings Alchemy files under it): its value where the
// clause holds is the sum of their weights (a hard clause: 0 where it
// holds, -inf where it does not). The clauses of net that no factor
// stands for follow, in net's order.
func WriteAlchemyNetwork(w io.Writer, net *ground.Network, fs []AlchemyFactor, cid []int) error {
	bw := bufio.NewWriter(w)
	name := func(args []mln.ConstID) string {
		var b strings.Builder
		for _, c := range args {
			b.WriteString(strconv.Itoa(cid[c]))
			b.WriteByte(' ')
		}
		return b.String()
	}
	bw.WriteString("variables:\n")
	rank := AlchemyNodeRanks(net, fs)
	atoms := make([]int32, net.NumAtoms())
	for a := range atoms {
		atoms[a] = int32(a)
	}
	slices.SortStableFunc(atoms, func(x, y int32) int {
		rx, ry := int64(rank[x]), int64(rank[y])
		if rx < 0 {
			rx = 1<<31 + int64(x)
		}
		if ry < 0 {
			ry = 1<<31 + int64(y)
		}
		switch {
		case rx < ry:
			return -1
		case rx > ry:
			return 1
		}
		return 0
	})
	for _, a := range atoms {
		bw.WriteString(name(net.AtomArgs[a]))
		bw.WriteByte('\n')
	}
	bw.WriteString("factors:\n")
	// The clauses of net by their literals (signed atoms, sorted).
	clauseKey := func(lits []string) string {
		s := slices.Clone(lits)
		slices.Sort(s)
		return strings.Join(slices.Compact(s), " ") // a repeated literal counts once
	}
	byKey := map[string][]int{}
	for c := 0; c < net.NumClauses(); c++ {
		var lits []string
		for _, l := range net.Clause(c) {
			a := l.Atom()
			k := atomKey(net.AtomPred[a], net.AtomArgs[a])
			if l.Neg() {
				k = "!" + k
			}
			lits = append(lits, k)
		}
		k := clauseKey(lits)
		byKey[k] = append(byKey[k], c)
	}
	used := make([]bool, net.NumClauses())
	table := func(names []string, neg []bool, wt float64, hard bool) error {
		if len(names) > ground.MaxFactorLits {
			return fmt.Errorf("a ground clause has %d literals: its table in Alchemy's layout would have 2^%d entries (Marple's layout, with the atoms' names, writes it as a clause)", len(names), len(names))
		}
		bw.WriteString(strings.Join(names, "/ "))
		bw.WriteString("// ")
		sat, unsat := strconv.FormatFloat(wt, 'g', 6, 64), "0"
		if hard {
			sat, unsat = "0", "-inf"
		}
		for state := 0; state < 1<<len(names); state++ {
			holds := false
			for i := range names {
				if (state>>i&1 == 1) != neg[i] {
					holds = true
					break
				}
			}
			if holds {
				bw.WriteString(sat)
			} else {
				bw.WriteString(unsat)
			}
			bw.WriteByte(' ')
		}
		bw.WriteByte('\n')
		return nil
	}
	for _, f := range fs {
		var lits, names []string
		for i := range f.Preds {
			k := atomKey(f.Preds[i], f.Args[i])
			if f.Neg[i] {
				k = "!" + k
			}
			lits = append(lits, k)
			names = append(names, name(f.Args[i]))
		}
		k := clauseKey(lits)
		var wt float64
		hard, n := false, 0
		for len(byKey[k]) > 0 && n < max(f.Count, 1) {
			c := byKey[k][0]
			byKey[k] = byKey[k][1:]
			used[c] = true
			n++
			if net.IsHard(c) {
				hard = true
			} else {
				wt += net.Weight(c)
			}
		}
		if n == 0 {
			continue // not in net (Marple grounds it away)
		}
		if err := table(names, f.Neg, wt, hard); err != nil {
			return err
		}
	}
	for c := 0; c < net.NumClauses(); c++ {
		if used[c] {
			continue
		}
		var names []string
		var neg []bool
		for _, l := range net.Clause(c) {
			a := l.Atom()
			names = append(names, name(net.AtomArgs[a]))
			neg = append(neg, l.Neg())
		}
		if err := table(names, neg, net.Weight(c), net.IsHard(c)); err != nil {
			return err
		}
	}
	return bw.Flush()
}
