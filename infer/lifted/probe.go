package lifted

import (
	"math"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// probeSpec holds one or two non-special constants out of the counts to
// compute the marginal of an atom of theirs: probe 1 (placeholder e1, of
// type t1) and, for an atom of a pair of them, probe 2 (e2, type t2). The
// atom is a local slot of probe 1 (set true and false through the classes
// cT and cF), an atom of probe 1 with a special constant, or the pair atom
// of the two probes (both fixed through atom).
type probeSpec struct {
	t1, t2 int
	cT, cF *class // probe 1's evidence with the atom true, false
	c2     *class // probe 2's evidence (nil: one probe)
	atom   akey   // the atom, with placeholders, when not a local slot
	fixed  bool   // atom is fixed through fix (not through cT, cF)
}

// probeW are the probes' weights under one outer assignment.
type probeW struct {
	p1   [2][]float64   // probe 1's cell weights, atom true [0] and false [1]
	p2   []float64      // probe 2's cell weights
	p12  [2][][]float64 // pair factor of the probes, atom true and false
	row1 [][][]float64  // [type][probe 1 cell][cell]: pair factors with the others
	row2 [][][]float64
}

// probeRows computes the pair factors of a probe of type t in each used
// cell with every active cell of every type.
func (p *problem) probeRows(sigma []bool, t int, used []bool, active [][]bool) ([][][]float64, error) {
	rows := make([][][]float64, len(p.types))
	for t2, tj := range p.types {
		if tj.size() == 0 {
			continue
		}
		rows[t2] = make([][]float64, len(used))
		for j := range used {
			if !used[j] {
				continue
			}
			row := make([]float64, len(active[t2]))
			rows[t2][j] = row
			for i := range row {
				if !active[t2][i] {
					continue
				}
				var v float64
				var err error
				if t <= t2 {
					v, err = p.cached(sumKey{t, -1, j, t2, i}, sigma, func() (float64, error) {
						return p.pairFactor(sigma, mln.TypeID(t), j, mln.TypeID(t2), i)
					})
				} else {
					v, err = p.cached(sumKey{t2, -1, i, t, j}, sigma, func() (float64, error) {
						return p.pairFactor(sigma, mln.TypeID(t2), i, mln.TypeID(t), j)
					})
				}
				if err != nil {
					return nil, err
				}
				row[i] = v
			}
		}
	}
	return rows, nil
}

// probeWeights computes the probes' weights under sigma.
func (p *problem) probeWeights(sigma []bool, w *weights, active [][]bool) error {
	pr := p.probe
	pw := &probeW{}
	ti := p.types[pr.t1]
	nc := 1 << len(ti.rel)
	used1 := make([]bool, nc)
	relBit := -1
	if pr.fixed {
		pat := []mln.ConstID{pr.atom.a, pr.atom.b}[:pr.atom.n]
		if j, ok := ti.relIdx[atomKey(pr.atom.p, pat)]; ok && pr.c2 == nil {
			relBit = j
		}
	}
	for k := range 2 {
		c := pr.cT
		if k == 1 {
			c = pr.cF
		}
		var fix *fixAtom
		if pr.fixed && pr.c2 == nil {
			fix = &fixAtom{on: true, atom: pr.atom, v: k == 0}
		}
		lw := make([]float64, nc)
		pw.p1[k] = lw
		for cell := range nc {
			lw[cell] = math.Inf(-1)
			if !ti.allows(p, c, cell) || relBit >= 0 && (cell>>relBit&1 == 1) != (k == 0) {
				continue
			}
			v, err := p.cached(sumKey{pr.t1, -2 - k, cell, -1, 0}, sigma, func() (float64, error) { return p.cellWeightFix(sigma, ti, c, cell, fix) })
			if err != nil {
				return err
			}
			lw[cell] = v
			used1[cell] = used1[cell] || !math.IsInf(v, -1) || p.probing
		}
	}
	var err error
	if pw.row1, err = p.probeRows(sigma, pr.t1, used1, active); err != nil {
		return err
	}
	if pr.c2 != nil {
		tj := p.types[pr.t2]
		nc2 := 1 << len(tj.rel)
		used2 := make([]bool, nc2)
		pw.p2 = make([]float64, nc2)
		for cell := range nc2 {
			pw.p2[cell] = math.Inf(-1)
			if !tj.allows(p, pr.c2, cell) {
				continue
			}
			v, err := p.cached(sumKey{pr.t2, -4, cell, -1, 0}, sigma, func() (float64, error) { return p.cellWeight(sigma, tj, pr.c2, cell) })
			if err != nil {
				return err
			}
			pw.p2[cell] = v
			used2[cell] = !math.IsInf(v, -1) || p.probing
		}
		if pw.row2, err = p.probeRows(sigma, pr.t2, used2, active); err != nil {
			return err
		}
		for k := range 2 {
			fix := &fixAtom{on: true, atom: pr.atom, v: k == 0}
			pw.p12[k] = make([][]float64, nc)
			for j1 := range nc {
				pw.p12[k][j1] = make([]float64, nc2)
				for j2 := range nc2 {
					if !used1[j1] || !used2[j2] {
						pw.p12[k][j1][j2] = math.Inf(-1)
						continue
					}
					v, err := p.cached(sumKey{pr.t1, -5 - k, j1, pr.t2, j2}, sigma, func() (float64, error) {
						return p.pairFactorFix(sigma, mln.TypeID(pr.t1), j1, mln.TypeID(pr.t2), j2, fix)
					})
					if err != nil {
						return err
					}
					pw.p12[k][j1][j2] = v
				}
			}
		}
	}
	w.pw = pw
	return nil
}

// probeTerms adds to accT and accF the terms of the probes' cells given
// the others' counts (tabs and choice) of log weight v.
func (pw *probeW) probeTerms(tabs []*counts, choice []int, v float64, accT, accF *lse) {
	phi := func(rows [][][]float64, j int) float64 {
		x := 0.0
		for i, tb := range tabs {
			m := len(tb.cells)
			k := tb.k[choice[i]*m : (choice[i]+1)*m]
			row := rows[tb.t][j]
			for a, ca := range tb.cells {
				if k[a] > 0 {
					x += float64(k[a]) * row[ca]
				}
			}
		}
		return x
	}
	for j1 := range pw.p1[0] {
		if math.IsInf(pw.p1[0][j1], -1) && math.IsInf(pw.p1[1][j1], -1) {
			continue
		}
		f1 := phi(pw.row1, j1)
		if math.IsNaN(f1) || math.IsInf(f1, -1) {
			continue
		}
		if pw.p2 == nil {
			accT.add(v + pw.p1[0][j1] + f1)
			accF.add(v + pw.p1[1][j1] + f1)
			continue
		}
		for j2, w2 := range pw.p2 {
			if math.IsInf(w2, -1) {
				continue
			}
			f2 := phi(pw.row2, j2)
			if math.IsNaN(f2) || math.IsInf(f2, -1) {
				continue
			}
			base := v + f1 + w2 + f2
			accT.add(base + pw.p1[0][j1] + pw.p12[0][j1][j2])
			accF.add(base + pw.p1[1][j1] + pw.p12[1][j1][j2])
		}
	}
}

// put appends the probes' weights to a weights key.
func (pw *probeW) put(put func(float64)) {
	for _, a := range pw.p1 {
		for _, x := range a {
			put(x)
		}
	}
	for _, x := range pw.p2 {
		put(x)
	}
	for _, m := range pw.p12 {
		for _, row := range m {
			for _, x := range row {
				put(x)
			}
		}
	}
	for _, rows := range [][][][]float64{pw.row1, pw.row2} {
		for _, r := range rows {
			for _, row := range r {
				put(float64(len(row)))
				for _, x := range row {
					put(x)
				}
			}
		}
	}
}

// proberLocal returns the builder of the problem in which one member of
// class ci of type t is a probe for its local slot j.
func (p *problem) proberLocal(t mln.TypeID, ci, j int) func() (*problem, error) {
	return func() (*problem, error) {
		c := p.clone()
		c.shared = p.shared
		cl := c.types[t].classes[ci]
		cl.n--
		cT := &class{sig: slices.Clone(cl.sig), n: 1, rep: cl.rep}
		cF := &class{sig: slices.Clone(cl.sig), n: 1, rep: cl.rep}
		cT.sig[j], cF.sig[j] = mln.True, mln.False
		c.probe = &probeSpec{t1: int(t), cT: cT, cF: cF}
		return c, c.finish()
	}
}

// proberSpecial returns the builder of the problem in which one member of
// class ci of type t is a probe for its atom pred(args), args holding e1
// for the member and a special constant.
func (p *problem) proberSpecial(t mln.TypeID, ci int, pred mln.PredID, args []mln.ConstID) func() (*problem, error) {
	return func() (*problem, error) {
		c := p.clone()
		c.shared = p.shared
		cl := c.types[t].classes[ci]
		cl.n--
		pc := &class{sig: cl.sig, n: 1, rep: cl.rep}
		c.probe = &probeSpec{t1: int(t), cT: pc, cF: pc, atom: atomKey(pred, args), fixed: true}
		return c, c.finish()
	}
}

// proberPair returns the builder of the problem in which a member of class
// c1 of type t1 and another of class c2 of type t2 are probes for their
// atom pred(e1, e2).
func (p *problem) proberPair(t1 mln.TypeID, c1 int, t2 mln.TypeID, c2 int, pred mln.PredID) func() (*problem, error) {
	return func() (*problem, error) {
		c := p.clone()
		c.shared = p.shared
		k1, k2 := c.types[t1].classes[c1], c.types[t2].classes[c2]
		k1.n--
		k2.n--
		pc1 := &class{sig: k1.sig, n: 1, rep: k1.rep}
		pc2 := &class{sig: k2.sig, n: 1, rep: k2.rep}
		c.probe = &probeSpec{t1: int(t1), t2: int(t2), cT: pc1, cF: pc1, c2: pc2, atom: atomKey(pred, []mln.ConstID{e1, e2}), fixed: true}
		return c, c.finish()
	}
}
