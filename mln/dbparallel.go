package mln

import (
	"bytes"
	"cmp"
	"runtime"
	"slices"
	"sync"

	"github.com/marple-mln/marple/internal/par"
	"github.com/marple-mln/marple/syntax"
)

// Large .db files are read in parallel parts, with the result of a serial
// read: the same atoms in the same order, the same constant IDs and
// domains, the same warnings and errors.
//
//  1. The file is cut at line starts into parts, scanned in parallel
//     (syntax.ScanDBPart): each part resolves its predicates, numbers its
//     constants in order of first appearance and records the first use of
//     each constant as an argument of each type. A part's scan stops only
//     where the next parts' scans started, between atoms, so the parts
//     chained from the start of the file cover it as a serial scan does
//     (a part whose start falls inside a comment or an atom split over
//     lines is covered by the part before it, and its own scan is
//     dropped).
//  2. Serially, in file order, the first uses intern the constants and
//     add them to the types' domains (warning as the serial read does):
//     a constant's first use in the file is its first use with some type,
//     so the constants get the IDs a serial read gives them.
//  3. The atoms are recorded predicate by predicate, in parallel, in file
//     order within each predicate; contradictions are reported in file
//     order.
//
// A part with a syntax error, an unknown predicate, a wrong number of
// arguments or a function value makes the whole file be read serially,
// which reports the errors as always.

// parallelReadMin is the size from which a file is read in parts.
var parallelReadMin = 1 << 20 // a variable for the tests

// partBytes is the smallest size of a part.
var partBytes = 256 << 10 // a variable for the tests

// dbPart is what the scan of one part found.
type dbPart struct {
	start, stop int
	bad         bool     // read the file serially
	names       []string // the part's constants, by first appearance
	// The atoms: predicate, value, position (line in the part) and
	// arguments (part constants, len(Preds[pred].Args) each).
	pred      []PredID
	val       []Truth
	line, col []int32
	args      []int32 // the arguments, argStart[a]:argStart[a+1] for atom a
	argStart  []int32
	// byPred lists the atoms by predicate (atoms of predicate p are
	// byPred[predStart[p]:predStart[p+1]]), in order.
	byPred, predStart []int32
	// The first use of each constant as an argument of each type: the
	// constant, the type, the atom, the argument and its position.
	use []constUse
}

type constUse struct {
	c, atom   int32
	t         TypeID
	arg       int32
	line, col int32
}

// readParallel reads src in parts on workers goroutines, adding to db and
// errs as read does. It reports false, having changed nothing, when the
// file must be read serially.
func (db *Database) readParallel(name string, src []byte, errs syntax.ErrorList, workers int) (syntax.ErrorList, bool) {
	m := db.Model
	np := min(4*workers, len(src)/partBytes)
	if np < 2 {
		return errs, false
	}
	bounds := []int{0}
	for i := 1; i < np; i++ {
		b := max(i*len(src)/np, bounds[len(bounds)-1]+1)
		j := bytes.IndexByte(src[b:], '\n')
		if j < 0 || b+j+1 >= len(src) {
			break
		}
		bounds = append(bounds, b+j+1)
	}
	parts := make([]*dbPart, len(bounds))
	lines := make([]int32, len(bounds)+1) // newlines before each bound
	par.For(workers, len(bounds), func(i int) {
		parts[i] = db.scanPart(name, src, bounds[i], bounds[i+1:])
		end := len(src)
		if i+1 < len(bounds) {
			end = bounds[i+1]
		}
		lines[i+1] = int32(bytes.Count(src[bounds[i]:end], []byte{'\n'}))
	})
	for i := range bounds {
		lines[i+1] += lines[i]
	}
	// The chain of parts from the start of the file.
	var chain []*dbPart
	var offset []int32 // lines before each part of the chain
	for i := 0; ; {
		p := parts[i]
		if p.bad {
			return errs, false
		}
		chain, offset = append(chain, p), append(offset, lines[i])
		if p.stop >= len(src) {
			break
		}
		i, _ = slices.BinarySearch(bounds, p.stop)
	}

	// Constants and domains, in file order.
	if m.constIndex == nil {
		m.constIndex = make(map[string]ConstID)
	}
	db.files = append(db.files, name)
	file := int32(len(db.files))
	warned := 0
	var grown listedGrowth
	global := make([][]ConstID, len(chain))
	maxPred := PredID(-1)
	for k, p := range chain {
		g := make([]ConstID, len(p.names))
		for i := range g {
			g[i] = -1
		}
		for _, u := range p.use {
			c, isNew := g[u.c], false
			if c < 0 {
				var ok bool
				if c, ok = m.constIndex[p.names[u.c]]; !ok {
					c, isNew = m.AddConst(p.names[u.c]), true
				}
				g[u.c] = c
			}
			t := m.Types[u.t]
			if isNew && t.Listed.Line > 0 {
				grown.add(t, p.names[u.c], syntax.Pos{File: name, Line: int(offset[k] + u.line), Col: int(u.col)})
			}
			if !isNew && !t.Has(c) {
				if dt := m.declaredType(c); dt != nil {
					warned++
					if warned <= maxWarnings {
						pr := m.Preds[p.pred[u.atom]]
						pos := syntax.Pos{File: name, Line: int(offset[k] + u.line), Col: int(u.col)}
						db.Warnings.Add(pos, "constant %s, declared in the model as a %s, is used as a %s (argument %d of %s): added to %s",
							p.names[u.c], dt.Name, t.Name, u.arg+1, pr.Name, t.Name)
					}
				}
			}
			t.add(c)
		}
		global[k] = g
		if len(p.pred) > 0 {
			maxPred = max(maxPred, slices.Max(p.pred))
		}
	}
	if warned > maxWarnings {
		db.Warnings.Add(syntax.Pos{File: name}, "and %d more constants added to a type the model does not declare them in", warned-maxWarnings)
	}
	grown.warn(db)

	// The atoms, predicate by predicate.
	if maxPred >= 0 {
		db.pred(maxPred)
	}
	type contradiction struct {
		part, atom int
		p          PredID
		args       []ConstID
		v, old     Truth
		oldPos     syntax.Pos
	}
	var mu sync.Mutex
	var bad []contradiction
	preds := make([]PredID, 0, maxPred+1)
	count := make([]int, maxPred+1)
	for p := PredID(0); p <= maxPred; p++ {
		for _, part := range chain {
			count[p] += int(part.predStart[p+1] - part.predStart[p])
		}
		if count[p] > 0 {
			preds = append(preds, p)
		}
	}
	slices.SortStableFunc(preds, func(a, b PredID) int { return cmp.Compare(count[b], count[a]) })
	par.For(workers, len(preds), func(i int) {
		p := preds[i]
		d := &db.preds[p]
		if d.index == nil {
			d.index = make(map[string]int32, count[p])
		}
		var args []ConstID
		for k, part := range chain {
			g := global[k]
			for _, a := range part.byPred[part.predStart[p]:part.predStart[p+1]] {
				args = args[:0]
				for _, c := range part.args[part.argStart[a]:part.argStart[a+1]] {
					args = append(args, g[c])
				}
				v := part.val[a]
				pos := atomPos{file: file, line: offset[k] + part.line[a], col: part.col[a]}
				if ok, old, oldPos := db.setAt(p, args, v, pos); !ok {
					mu.Lock()
					bad = append(bad, contradiction{k, int(a), p, slices.Clone(args), v, old, oldPos})
					mu.Unlock()
				}
			}
		}
	})
	slices.SortFunc(bad, func(a, b contradiction) int { return cmp.Or(cmp.Compare(a.part, b.part), cmp.Compare(a.atom, b.atom)) })
	for _, c := range bad {
		if len(errs) >= maxLoadErrors {
			break
		}
		part := chain[c.part]
		pos := syntax.Pos{File: name, Line: int(offset[c.part] + part.line[c.atom]), Col: int(part.col[c.atom])}
		errs.Add(pos, "contradictory evidence: %s is %s here but %s at %s", m.atomString(c.p, c.args), c.v, c.old, c.oldPos)
	}
	return errs, true
}

// scanPart scans the part of src from start (see syntax.ScanDBPart).
func (db *Database) scanPart(name string, src []byte, start int, stops []int) *dbPart {
	m := db.Model
	p := &dbPart{start: start, argStart: []int32{0}}
	local := map[string]int32{}
	seen := make([][]bool, len(m.Types)) // by type, whether a constant was used with it
	var lastPred []byte
	var pred *Predicate
	stop, ok := syntax.ScanDBPart(name, src, start, stops, func(a *syntax.RawAtom) {
		if p.bad {
			return
		}
		if a.Func {
			p.bad = true
			return
		}
		if pred == nil || string(a.Pred) != string(lastPred) {
			id, ok := m.predIndex[string(a.Pred)]
			if !ok {
				p.bad = true
				return
			}
			pred, lastPred = m.Preds[id], a.Pred
		}
		if len(a.Args) != len(pred.Args) || a.HasReal || m.IsReal(pred.ID) {
			p.bad = true
			return
		}
		atom := int32(len(p.pred))
		for i, b := range a.Args {
			c, ok := local[string(b)]
			if !ok {
				c = int32(len(p.names))
				s := string(b)
				local[s] = c
				p.names = append(p.names, s)
			}
			t := pred.Args[i]
			if int(c) >= len(seen[t]) {
				seen[t] = append(seen[t], make([]bool, int(c)+1-len(seen[t]))...)
			}
			if !seen[t][c] {
				seen[t][c] = true
				ap := a.ArgPos(i)
				p.use = append(p.use, constUse{c: c, atom: atom, t: t, arg: int32(i), line: int32(ap.Line), col: int32(ap.Col)})
			}
			p.args = append(p.args, c)
		}
		p.argStart = append(p.argStart, int32(len(p.args)))
		p.pred = append(p.pred, pred.ID)
		p.val = append(p.val, truthOf(a.Value))
		p.line = append(p.line, int32(a.Pos.Line))
		p.col = append(p.col, int32(a.Pos.Col))
	})
	p.stop = stop
	if p.bad || !ok {
		p.bad = true
		return p
	}
	// The atoms by predicate, in order (a counting sort).
	p.predStart = make([]int32, len(m.Preds)+1)
	for _, q := range p.pred {
		p.predStart[q+1]++
	}
	for q := range m.Preds {
		p.predStart[q+1] += p.predStart[q]
	}
	p.byPred = make([]int32, len(p.pred))
	fill := slices.Clone(p.predStart)
	for a, q := range p.pred {
		p.byPred[fill[q]] = int32(a)
		fill[q]++
	}
	return p
}

// readWorkers returns the goroutines for reading a file.
func (db *Database) readWorkers() int {
	if db.Workers > 0 {
		return db.Workers
	}
	return runtime.GOMAXPROCS(0)
}
