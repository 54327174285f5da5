package score

import (
	"math"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// argWorld indexes one database's scored atoms by argument, for the
// argument bounds of Screen.Bound (argBound).
type argWorld struct {
	// proj[p][i] lists the positions in its type of the values of the
	// i-th argument of p's true atoms, increasing; in[p][i] marks them.
	proj [][][]int32
	in   [][][]bool
	// kept[p][j][ci] and keptTrue[p][j][ci] count the kept (scored,
	// sampled) atoms of p, and the true ones, whose j-th argument is the
	// ci-th constant of its type.
	kept, keptTrue [][][]float64
}

// argWorlds returns each database's argWorld (built once).
func (d *PLLData) argWorlds() []argWorld {
	d.argOnce.Do(func() {
		d.args = make([]argWorld, len(d.worlds))
		for db := range d.worlds {
			d.args[db] = d.argWorld(db)
		}
	})
	return d.args
}

func (d *PLLData) argWorld(db int) argWorld {
	m, sp, w := d.m, d.sp, d.worlds[db]
	aw := argWorld{
		proj:     make([][][]int32, len(m.Preds)),
		in:       make([][][]bool, len(m.Preds)),
		kept:     make([][][]float64, len(m.Preds)),
		keptTrue: make([][][]float64, len(m.Preds)),
	}
	bits := d.sampled[db]
	for p, pr := range m.Preds {
		wp := &w.preds[p]
		ar := len(pr.Args)
		aw.proj[p] = make([][]int32, ar)
		aw.in[p] = make([][]bool, ar)
		for i, t := range pr.Args {
			in := make([]bool, m.Types[t].Size())
			for a := 0; a < wp.numTrue(); a++ {
				if ci := sp.typeIdx[t][wp.args[a*ar+i]]; ci >= 0 && !in[ci] {
					in[ci] = true
					aw.proj[p][i] = append(aw.proj[p][i], ci)
				}
			}
			slices.Sort(aw.proj[p][i])
			aw.in[p][i] = in
		}
		if d.rowOff[p] < 0 || d.mul[db][p] == 0 || ar == 0 {
			continue
		}
		kept := make([][]float64, ar)
		keptTrue := make([][]float64, ar)
		for j, t := range pr.Args {
			kept[j] = make([]float64, m.Types[t].Size())
			keptTrue[j] = make([]float64, m.Types[t].Size())
		}
		off := d.rowOff[p]
		for a := 0; a < wp.numTrue(); a++ {
			args := wp.args[a*ar : (a+1)*ar]
			id := sp.id(mln.PredID(p), args)
			if r := off + id; id < 0 || bits != nil && bits[r>>6]&(1<<(r&63)) == 0 {
				continue
			}
			for j, c := range args {
				keptTrue[j][sp.typeIdx[pr.Args[j]][c]]++
			}
		}
		if bits != nil {
			// The sampled rows of p, decoded.
			for r := off; r < off+sp.size[p]; {
				word := bits[r>>6] >> (r & 63)
				if word == 0 {
					r = (r | 63) + 1
					continue
				}
				if word&1 != 0 {
					id := r - off
					for j := range pr.Args {
						kept[j][(id/sp.stride[p][j])%int64(len(kept[j]))]++
					}
				}
				r++
			}
		} else {
			// Every atom of the database's domains: the product of the
			// other arguments' domain sizes, for a value in its domain.
			sizes := make([]float64, ar)
			prod := 1.0
			for j, t := range pr.Args {
				sizes[j] = float64(len(w.domPos(t)))
				prod *= sizes[j]
			}
			for j, t := range pr.Args {
				if sizes[j] == 0 {
					continue
				}
				for _, ci := range w.domPos(t) {
					kept[j][ci] = prod / sizes[j]
				}
			}
		}
		aw.kept[p], aw.keptTrue[p] = kept, keptTrue
	}
	return aw
}

// argLoss computes sc.arg: the loss of the scored atoms per database,
// predicate, argument position, value (its position in the type) and
// truth value ([0] false, [1] true).
func (sc *Screen) argLoss() {
	s, d := sc.s, sc.s.d
	aws := d.argWorlds()
	sc.arg = make([][][][][2]float64, len(s.base))
	for db, b := range s.base {
		aw := &aws[db]
		by := make([][][][2]float64, len(d.m.Preds))
		mass := make([][][][2]float64, len(d.m.Preds)) // c_a of the base's atoms
		for p, pr := range d.m.Preds {
			if aw.kept[p] == nil {
				continue
			}
			by[p] = make([][][2]float64, len(pr.Args))
			mass[p] = make([][][2]float64, len(pr.Args))
			for j := range pr.Args {
				by[p][j] = make([][2]float64, len(aw.kept[p][j]))
				mass[p][j] = make([][2]float64, len(aw.kept[p][j]))
			}
		}
		pr := mln.PredID(-1)
		for a, row := range b.aGlobal {
			if pr < 0 || !d.inPred(row, pr) {
				pr = d.predOfRow(row)
			}
			if pr < 0 || b.aMul[a] == 0 || by[pr] == nil {
				continue
			}
			t := 0
			if d.rowTrue(db, pr, row) {
				t = 1
			}
			loss := -b.aMul[a] * logSigmoid(sc.odds[db][a])
			id := int64(row) - d.rowOff[pr]
			for j := range by[pr] {
				ci := (id / d.sp.stride[pr][j]) % int64(len(by[pr][j]))
				by[pr][j][ci][t] += loss
				mass[pr][j][ci][t] += b.aMul[a]
			}
		}
		// The atoms no base clause touches have log-odds 0.
		for p := range by {
			if by[p] == nil {
				continue
			}
			mul := d.mul[db][p]
			for j := range by[p] {
				for ci := range by[p][j] {
					all := aw.kept[p][j][ci]*mul - mass[p][j][ci][0] - mass[p][j][ci][1]
					if all <= 0 {
						continue
					}
					tr := min(max(aw.keptTrue[p][j][ci]*mul-mass[p][j][ci][1], 0), all)
					by[p][j][ci][1] += tr * math.Ln2
					by[p][j][ci][0] += (all - tr) * math.Ln2
				}
			}
		}
		sc.arg[db] = by
	}
}

// argBound bounds, per database, each side's loss (w > 0, w < 0; Bound;
// +Inf for a candidate with existential or "+" variables or a predicate
// without arguments) over the atoms the candidate's literals can change
// with Δ ≠ 0, restricted by their arguments: where the atom of literal L
// is the one flipped, every other literal of the ground clause is false, so a variable of L that a
// negative literal K of another predicate (or of L's predicate in the
// other sign: a ground clause with both is a tautology, Δ = 0) also
// mentions takes a value of the true atoms of K's predicate at that
// argument, and a constant argument of L is itself. Per database,
// literal and truth value the bound is the smallest over L's arguments of
// the loss of the values allowed (none restricted: every atom); a
// predicate's atoms count at most once per side; the removed clauses'
// rows add their loss's increase.
func (sc *Screen) argBound(rm *removed, cand *mln.Clause) [][2]float64 {
	s, d := sc.s, sc.s.d
	up := make([][2]float64, len(s.base))
	none := func() [][2]float64 {
		for db := range up {
			up[db] = [2]float64{math.Inf(1), math.Inf(1)}
		}
		return up
	}
	if len(cand.Exist) > 0 || len(cand.Plus) > 0 {
		return none()
	}
	for _, l := range cand.Lits {
		if l.Pred >= 0 && len(l.Args) == 0 {
			return none()
		}
	}
	sc.argOnce.Do(sc.argLoss)
	sc.lossOnce.Do(sc.predLoss)
	aws := d.argWorlds()
	type side struct {
		p    mln.PredID
		sums [2]float64 // per side
	}
	var preds []side
	for db := range s.base {
		u := &up[db]
		aw := &aws[db]
		by, tot := sc.arg[db], sc.loss[db]
		preds = preds[:0]
		for li, l := range cand.Lits {
			if l.Pred < 0 || by[l.Pred] == nil {
				continue
			}
			// t: the truth value whose atoms gain at w > 0 (side 0).
			t := 0
			if !l.Neg {
				t = 1
			}
			lt := tot[l.Pred] // per truth value
			for j, term := range l.Args {
				var r [2]float64
				if !term.IsVar() {
					ci := d.sp.typeIdx[d.m.Preds[l.Pred].Args[j]][term.Const()]
					if ci >= 0 {
						r = by[l.Pred][j][ci]
					}
				} else {
					v := term.Var()
					var sets [][]bool
					var list []int32
					for ki, k := range cand.Lits {
						if ki == li || k.Pred < 0 || !k.Neg || k.Pred == l.Pred && k.Neg == l.Neg {
							continue
						}
						for i, kt := range k.Args {
							if kt.IsVar() && kt.Var() == v {
								sets = append(sets, aw.in[k.Pred][i])
								if list == nil || len(aw.proj[k.Pred][i]) < len(list) {
									list = aw.proj[k.Pred][i]
								}
								break
							}
						}
					}
					if sets == nil {
						continue
					}
				values:
					for _, ci := range list {
						for _, in := range sets {
							if !in[ci] {
								continue values
							}
						}
						x := by[l.Pred][j][ci]
						r[0] += x[0]
						r[1] += x[1]
					}
				}
				lt[0], lt[1] = min(lt[0], r[0]), min(lt[1], r[1])
			}
			i := slices.IndexFunc(preds, func(x side) bool { return x.p == l.Pred })
			if i < 0 {
				preds = append(preds, side{p: l.Pred})
				i = len(preds) - 1
			}
			preds[i].sums[0] += lt[t]
			preds[i].sums[1] += lt[1-t]
		}
		for _, x := range preds {
			// A predicate's atoms count once per side.
			pos, neg := false, false
			for _, l := range cand.Lits {
				if l.Pred == x.p {
					pos, neg = pos || !l.Neg, neg || l.Neg
				}
			}
			var lim [2]float64
			for t := range 2 {
				// Truth value t gains at w > 0 in a positive literal
				// when true, in a negative one when false.
				if pos {
					lim[1-t] += tot[x.p][t]
				}
				if neg {
					lim[t] += tot[x.p][t]
				}
			}
			u[0] += min(x.sums[0], lim[0])
			u[1] += min(x.sums[1], lim[1])
		}
		// The removed clauses' rows: their loss's increase, on the sides
		// their truth value gains at, for each literal of their
		// predicate.
		if rm == nil || len(rm.dbs) == 0 {
			continue
		}
		_, pos := sc.removalLoss(rm)
		for _, l := range cand.Lits {
			if l.Pred < 0 {
				continue
			}
			t := 0 // the truth value whose atoms gain at w > 0
			if !l.Neg {
				t = 1
			}
			u[0] += pos[db][l.Pred][t]
			u[1] += pos[db][l.Pred][1-t]
		}
	}
	return up
}
