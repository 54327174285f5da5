// Package query is what a program asks inference for, as marple infer's
// -q, -f and -queryEvidence ask it: whole query predicates, partly ground
// atoms (Friends(Anna,x): every atom of Friends whose first argument is
// Anna; a variable repeated asks for equal arguments), the ground atoms of
// a query file, and Alchemy's query evidence; and the writers of results
// that list the atoms asked for, in Alchemy's formats.
//
// A program parses a list with Parse (before or after the model is
// compiled), grounds with Query.Preds as ground.Options.Query, and writes
// the answer with WriteMAP or WriteMarginals:
//
//	q, err := query.Parse(m, "Smokes,Friends(Anna,x)")
//	net, err := ground.Ground(ctx, m, db, ground.Options{Query: q.Preds()})
//	...
//	q.WriteMarginals(w, net, probs, 0)
package query

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// Item is one item of a query list: a predicate name alone, or with
// arguments (constants, or variables starting with a lower-case letter).
type Item struct {
	Text string   // as written: "Friends(Anna,x)"
	Pred string   // "Friends"
	Args []string // nil: every atom of Pred
}

// SyntaxError is a malformed query list (unbalanced parentheses, an empty
// argument).
type SyntaxError struct{ Msg string }

func (e *SyntaxError) Error() string { return e.Msg }

// ParseList splits a query list at the commas outside parentheses:
// "Friends(Anna,x),Smokes" is two items. It checks only the syntax; Parse
// resolves the items against a model.
func ParseList(list string) ([]Item, error) {
	var out []Item
	depth, start := 0, 0
	flush := func(end int) error {
		item := strings.TrimSpace(list[start:end])
		start = end + 1
		if item == "" {
			return nil
		}
		a := Item{Text: item, Pred: item}
		if i := strings.IndexByte(item, '('); i >= 0 {
			if !strings.HasSuffix(item, ")") || i == 0 {
				return &SyntaxError{fmt.Sprintf("malformed query atom %q", item)}
			}
			a.Pred = strings.TrimSpace(item[:i])
			a.Args = []string{}
			for _, s := range strings.Split(item[i+1:len(item)-1], ",") {
				if s = strings.TrimSpace(s); s == "" {
					return &SyntaxError{fmt.Sprintf("malformed query atom %q", item)}
				}
				a.Args = append(a.Args, s)
			}
		}
		out = append(out, a)
		return nil
	}
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return nil, &SyntaxError{fmt.Sprintf("unbalanced parentheses in %q", list)}
			}
		case ',':
			if depth == 0 {
				if err := flush(i); err != nil {
					return nil, err
				}
			}
		}
	}
	if depth != 0 {
		return nil, &SyntaxError{fmt.Sprintf("unbalanced parentheses in %q", list)}
	}
	if err := flush(len(list)); err != nil {
		return nil, err
	}
	return out, nil
}

// Names returns the predicate names of items, each once, in order.
func Names(items []Item) []string {
	var out []string
	for _, a := range items {
		if !slices.Contains(out, a.Pred) {
			out = append(out, a.Pred)
		}
	}
	return out
}

// IsVariable reports whether a query argument is a variable (as in
// Alchemy: it starts with a lower-case letter).
func IsVariable(s string) bool { return s != "" && s[0] >= 'a' && s[0] <= 'z' }

// term is an argument of a query pattern: a constant, or variable v.
type term struct {
	isVar bool
	v     int
	c     mln.ConstID
}

// Query is what is asked for: the query predicates and, for those not
// asked for whole, the patterns of the atoms asked for.
type Query struct {
	model    *mln.Model
	items    []Item
	preds    []mln.PredID
	patterns map[mln.PredID][][]term // nil entry: the whole predicate
	listed   []mln.PredID            // query predicates whose listed atoms are the query (ListedEvidence)
	// asked lists what was asked for in Alchemy's order: the query file's
	// atoms, then the items of the list (a nil pattern: the whole
	// predicate).
	asked []askedItem
	// inOrder writes the answers in the order of asked (SetAlchemyOrder).
	inOrder bool
	// mapEvidence lists the query atoms the evidence makes true in
	// WriteMAP's answer in Alchemy's order (SetMAPEvidence).
	mapEvidence bool
	// omitFree leaves out of WriteMarginals the atoms in no ground clause
	// (SetOmitFree).
	omitFree bool
	// rank orders each predicate's atoms in WriteMarginals (SetAtomRanks).
	rank []int32
	// hidden makes WriteMarginals list every ranked atom, asked for or
	// not, and the atoms extra, which the network lacks (SetListHidden).
	hidden bool
	extra  []AlchemyAtom
}

// SetMAPEvidence makes WriteMAP without all, in Alchemy's order
// (SetAlchemyOrder), list the query atoms the evidence makes true among
// those true in the MAP state, as Alchemy's lazy inference does (its
// eager inference lists the non-evidence atoms only).
func (q *Query) SetMAPEvidence(on bool) { q.mapEvidence = on }

// SetOmitFree makes WriteMarginals leave out the atoms that are in no
// ground clause of the network, as Alchemy's BP does (its factor graph
// has no node for them).
func (q *Query) SetOmitFree(on bool) { q.omitFree = on }

// askedItem is one item of the query: pred, and its pattern (nil: every
// atom of pred).
type askedItem struct {
	pred mln.PredID
	pat  []term
}

// Parse resolves a query list against m: every item's predicate must be
// declared, its arguments as many as the predicate's, its constants known
// to m (a query atom's constants must appear in the model or the
// evidence). An unknown predicate's error suggests the nearest name.
func Parse(m *mln.Model, list string) (*Query, error) {
	items, err := ParseList(list)
	if err != nil {
		return nil, err
	}
	q := &Query{model: m, items: items, patterns: map[mln.PredID][][]term{}}
	whole := map[mln.PredID]bool{}
	for _, a := range items {
		pr, ok := m.Pred(a.Pred)
		if !ok {
			return nil, fmt.Errorf("unknown predicate %q%s", a.Pred, m.PredHint(a.Pred))
		}
		q.addPred(pr.ID)
		if a.Args == nil {
			whole[pr.ID] = true
			q.asked = append(q.asked, askedItem{pred: pr.ID})
			continue
		}
		if len(a.Args) != pr.Arity() {
			return nil, fmt.Errorf("%s: %s takes %d arguments, not %d", a.Text, pr.Name, pr.Arity(), len(a.Args))
		}
		var pat []term
		vars := map[string]int{}
		for _, s := range a.Args {
			if IsVariable(s) {
				v, ok := vars[s]
				if !ok {
					v = len(vars)
					vars[s] = v
				}
				pat = append(pat, term{isVar: true, v: v})
				continue
			}
			c, ok := m.Const(strings.Trim(s, `"`))
			if !ok {
				return nil, fmt.Errorf("%s: unknown constant %q", a.Text, s)
			}
			pat = append(pat, term{c: c})
		}
		q.patterns[pr.ID] = append(q.patterns[pr.ID], pat)
		q.asked = append(q.asked, askedItem{pred: pr.ID, pat: pat})
	}
	for p := range whole {
		delete(q.patterns, p)
	}
	return q, nil
}

func (q *Query) addPred(p mln.PredID) {
	if !slices.Contains(q.preds, p) {
		q.preds = append(q.preds, p)
	}
}

// AddAtoms adds the ground atoms of db (a query file read with
// mln.LoadDatabase before the model was compiled, so that its constants
// are in the domains) to the query: each is asked for, its predicate
// becomes a query predicate unless the list asked for it whole already.
// A database without atoms is an error.
func (q *Query) AddAtoms(db *mln.Database) error {
	added := 0
	var file []askedItem
	for p := range q.model.Preds {
		pid := mln.PredID(p)
		if db.Count(pid) == 0 {
			continue
		}
		whole := slices.Contains(q.preds, pid) && q.patterns[pid] == nil
		q.addPred(pid)
		db.Atoms(pid, func(args []mln.ConstID, _ mln.Truth) {
			added++
			pat := make([]term, len(args))
			for i, c := range args {
				pat[i] = term{c: c}
			}
			file = append(file, askedItem{pred: pid, pat: pat})
			if whole {
				return
			}
			q.patterns[pid] = append(q.patterns[pid], pat)
		})
	}
	q.asked = append(file, q.asked...)
	if added == 0 {
		return errors.New("no query atom in the file")
	}
	return nil
}

// Preds returns the query predicates, for ground.Options.Query. After
// ListedEvidence it leaves out the predicates whose listed atoms are the
// query (they are evidence to the grounder); IsQuery covers them all.
func (q *Query) Preds() []mln.PredID {
	var out []mln.PredID
	for _, p := range q.preds {
		if !slices.Contains(q.listed, p) {
			out = append(out, p)
		}
	}
	return out
}

// IsQuery returns, per predicate of the model, whether it is a query
// predicate of the answer.
func (q *Query) IsQuery() []bool {
	is := make([]bool, len(q.model.Preds))
	for _, p := range q.preds {
		is[p] = true
	}
	return is
}

// Keep reports whether atom p(args) is asked for.
func (q *Query) Keep(p mln.PredID, args []mln.ConstID) bool {
	pats, ok := q.patterns[p]
	if !ok {
		return true
	}
	for _, pat := range pats {
		if matches(pat, args) {
			return true
		}
	}
	return false
}

// matches reports whether args match pattern pat (nil: any).
func matches(pat []term, args []mln.ConstID) bool {
	var bound [8]mln.ConstID
	vals := bound[:0]
	for i, t := range pat {
		switch {
		case !t.isVar:
			if args[i] != t.c {
				return false
			}
		case t.v < len(vals):
			if args[i] != vals[t.v] {
				return false
			}
		default:
			vals = append(vals, args[i])
		}
	}
	return true
}

// SetAlchemyOrder makes WriteMarginals and WriteMAP list the atoms in the
// order Alchemy's infer lists them: the query file's atoms first, then
// item by item of the query list, each item's atoms in the network's
// order, each atom once (at its first item).
func (q *Query) SetAlchemyOrder(on bool) { q.inOrder = on }

// order returns the atoms of net to write: those asked for, in the
// network's order, or with SetAlchemyOrder in Alchemy's.
func (q *Query) order(net *ground.Network) []int32 {
	is := q.IsQuery()
	var out []int32
	if !q.inOrder {
		for a := 0; a < net.NumAtoms(); a++ {
			pr := net.AtomPred[a]
			if is[pr] && q.Keep(pr, net.AtomArgs[a]) ||
				q.hidden && q.rank != nil && q.rank[a] >= 0 && pr >= 0 {
				out = append(out, int32(a))
			}
		}
		q.sortByRank(out, net)
		return out
	}
	byPred := map[mln.PredID][]int32{}
	for a := 0; a < net.NumAtoms(); a++ {
		if pr := net.AtomPred[a]; pr >= 0 && is[pr] {
			byPred[pr] = append(byPred[pr], int32(a))
		}
	}
	done := make(map[int32]bool)
	items := q.asked
	for _, p := range q.listed {
		if !slices.ContainsFunc(items, func(it askedItem) bool { return it.pred == p }) {
			items = append(items, askedItem{pred: p})
		}
	}
	for _, it := range items {
		for _, a := range byPred[it.pred] {
			if !done[a] && matches(it.pat, net.AtomArgs[a]) {
				done[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// Whole reports whether every query predicate is asked for whole (no
// partly ground atom and no query file).
func (q *Query) Whole() bool { return len(q.patterns) == 0 }

// ListedEvidence applies Alchemy's -queryEvidence to db: for each
// predicate of the query list (not of a query file), the atoms db lists
// are the query atoms (their listed values unused: they become unknown)
// and its unlisted atoms are false evidence, so the grounder is to treat
// it as closed world: it is left out of Preds, and IsQuery still covers
// it. It returns those predicates.
func (q *Query) ListedEvidence(db *mln.Database) []mln.PredID {
	for _, name := range Names(q.items) {
		pr, _ := q.model.Pred(name)
		if slices.Contains(q.listed, pr.ID) {
			continue
		}
		q.listed = append(q.listed, pr.ID)
		var listed [][]mln.ConstID
		db.Atoms(pr.ID, func(args []mln.ConstID, _ mln.Truth) {
			listed = append(listed, append([]mln.ConstID(nil), args...))
		})
		for _, args := range listed {
			db.Set(pr.ID, args, mln.Unknown)
		}
	}
	return slices.Clone(q.listed)
}

// WriteMAP writes a MAP answer y of net (ground with the evidence db) in
// Alchemy's format: the true query atoms asked for, those the evidence
// makes true first, one per line; with all, every unknown query atom
// asked for with 0 or 1 ("Smokes(Anna) 1").
func (q *Query) WriteMAP(w io.Writer, db *mln.Database, net *ground.Network, y []bool, all bool) error {
	m, is := q.model, q.IsQuery()
	if q.inOrder && !all {
		return q.writeTrueInOrder(w, db, net, y)
	}
	if !all {
		for p := range m.Preds {
			if !is[p] {
				continue
			}
			var err error
			db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
				if v == mln.True && err == nil && q.Keep(mln.PredID(p), args) {
					_, err = fmt.Fprintln(w, m.AtomString(mln.PredID(p), args))
				}
			})
			if err != nil {
				return err
			}
		}
	}
	for _, a := range q.order(net) {
		pr := net.AtomPred[a]
		var err error
		switch {
		case all && y[a]:
			_, err = fmt.Fprintln(w, m.AtomString(pr, net.AtomArgs[a]), 1)
		case all:
			_, err = fmt.Fprintln(w, m.AtomString(pr, net.AtomArgs[a]), 0)
		case y[a]:
			_, err = fmt.Fprintln(w, m.AtomString(pr, net.AtomArgs[a]))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeTrueInOrder writes the true query atoms of the MAP state y in
// Alchemy's order: item by item of the query, each item's atoms by their
// constants (the first argument slowest), each atom once; with
// mapEvidence, the atoms the evidence makes true among them.
func (q *Query) writeTrueInOrder(w io.Writer, db *mln.Database, net *ground.Network, y []bool) error {
	m := q.model
	byPred := map[mln.PredID][][]mln.ConstID{}
	for a := 0; a < net.NumAtoms(); a++ {
		if y[a] {
			pr := net.AtomPred[a]
			byPred[pr] = append(byPred[pr], net.AtomArgs[a])
		}
	}
	done := map[string]bool{}
	for _, it := range q.asked {
		atoms := slices.Clone(byPred[it.pred])
		if q.mapEvidence {
			db.Atoms(it.pred, func(args []mln.ConstID, v mln.Truth) {
				if v == mln.True {
					atoms = append(atoms, slices.Clone(args))
				}
			})
		}
		slices.SortFunc(atoms, slices.Compare[[]mln.ConstID])
		for _, args := range atoms {
			if !matches(it.pat, args) {
				continue
			}
			s := m.AtomString(it.pred, args)
			if done[s] {
				continue
			}
			done[s] = true
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteMarginals writes "atom probability" for every unknown query atom
// asked for, in the network's order, with six significant digits as
// Alchemy does. A positive smooth writes (p·smooth + 1/2)/(smooth + 1) for
// an estimate p, so that none is 0 or 1 (Alchemy's infer smooths its
// sampled marginals with 10000).
func (q *Query) WriteMarginals(w io.Writer, net *ground.Network, probs []float64, smooth float64) error {
	m := q.model
	write := func(p mln.PredID, args []mln.ConstID, pr float64) error {
		if smooth > 0 {
			pr = (pr*smooth + 0.5) / (smooth + 1)
		}
		_, err := fmt.Fprintf(w, "%s %s\n", m.AtomString(p, args), formatProb(pr))
		return err
	}
	extra := q.extra
	if !q.hidden || q.rank == nil || q.inOrder {
		extra = nil
	}
	// next writes the extra atoms that precede atom a (all that are left
	// when a < 0): they are by predicate and rank, as the atoms.
	next := func(a int32) error {
		for len(extra) > 0 {
			x := extra[0]
			if a >= 0 {
				if p := net.AtomPred[a]; x.Pred > p || x.Pred == p && q.rank[a] >= 0 && x.Rank > q.rank[a] {
					return nil
				}
			}
			if err := write(x.Pred, x.Args, 0.5); err != nil {
				return err
			}
			extra = extra[1:]
		}
		return nil
	}
	for _, a := range q.order(net) {
		if q.omitFree && len(net.Occurrences(a)) == 0 && (q.rank == nil || q.rank[a] < 0) {
			continue
		}
		if err := next(a); err != nil {
			return err
		}
		if err := write(net.AtomPred[a], net.AtomArgs[a], probs[a]); err != nil {
			return err
		}
	}
	return next(-1)
}

// formatProb writes a probability with six significant digits.
func formatProb(p float64) string { return strconv.FormatFloat(p, 'g', 6, 64) }
