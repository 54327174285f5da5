package score

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/marple-mln/marple/internal/unionfind"
	"github.com/marple-mln/marple/mln"
)

// ErrTooManyGroundings is wrapped by the error of a clause count that would
// examine more groundings than CountOptions.MaxGroundings allows.
var ErrTooManyGroundings = errors.New("too many groundings")

// The count of a first-order clause c at a ground atom a is
//
//	Δ_c(a) = n_c(x) − n_c(x with a flipped),
//
// n_c counting the true groundings (universal bindings) of c in the closed
// world x. A grounding g changes with a's flip only when every literal of g
// not on a is false; it then contributes +1 when a literal on a is true
// (g is satisfied by a alone) and −1 when none is (g is false and the flip
// satisfies it), and 0 when a occurs in g with both signs. The counter
// enumerates exactly these "critical" (grounding, atom) pairs by joins:
// for every literal i taken as the first literal on a, and every set S of
// later literals of the same predicate and sign taken to be on a too (their
// arguments unified with i's), the groundings in which every other literal
// is false (negative ones joined over the true atoms, positive ones and
// comparisons checked) and no other literal of a's predicate is on a. A
// grounding is counted for each atom it is critical for, once.
//
// Existential clauses: the ground clause of a universal binding u is the
// disjunction of the universal literals and of every instance of the
// existential literals. For a universal pivot the existential literals must
// have no true instance (a check); the existential atoms are handled by one
// more plan that enumerates the u with every universal literal false and
// expands the existential literals.

// planLit is a literal of a counting plan.
type planLit struct {
	pred    mln.PredID // -1: comparison
	builtin mln.Builtin
	neg     bool
	args    []mln.Term // plan variables
	exist   bool       // has an existential variable
	// tidx[j] and stride[j] place argument j in the atom space (prepare):
	// the atom's id is Σ tidx[j][c_j]·stride[j].
	tidx   [][]int32
	stride []int64
	// argType[j] is the type of the predicate's argument j (prepare).
	argType []mln.TypeID
}

// stepKind says what a plan step binds.
const (
	stepJoin = iota // a negative literal, over the true atoms
	stepEnum        // a variable, over its domain
)

type planStep struct {
	kind int
	lit  int // stepJoin
	v    int // stepEnum
	// bound[j] for the join: argument j of lit is bound before the step.
	bound []bool
	// checks run once the step has bound its variables.
	checks []int // literals that must be false (or: exist-literals without true instance)
	neq    []int // literals whose atom must differ from the pivot's
	// countOnly marks a last variable step after the tally whose checks
	// are all positive literals: its completions are counted from the
	// true atoms (domain size minus the values some check's atom is true
	// for) instead of enumerated.
	countOnly bool
	// closed marks an enumeration step whose checks are all positive
	// literals: the values passing them (and its neq) are counted from
	// the true atoms (counter.falseCount) instead of tried one by one.
	closed bool
	// dangling marks a step before or after the tally (not at it) whose
	// new variables no later step, check or tally mentions: the
	// enumeration below it is the same for each of its passing values,
	// so it runs once, its tallies or completions times their number
	// (counter.copies).
	dangling bool
	// uniform marks a closed tally step below which the enumeration is
	// the same for each of its values (the leaves, or an independent
	// suffix that does not mention its variable): it runs once, and each
	// value's pivot atom is tallied with its completions.
	uniform bool
	// markVars are the variables other than v that a closed step's checks
	// and neq mention: its marks stay while they keep their values.
	markVars []int
	// grouped marks a join step before or after the tally (not at it)
	// that binds one variable some later step, check or tally mentions
	// (its argument groupPos) and others that none does: the enumeration
	// below is the same for the passing atoms with the same value of the
	// first, so it runs once per value (counter.joinGrouped).
	grouped  bool
	groupPos int
	// vpos[i], for a closed step, is the position of v in check i when
	// the check is simple (countPlan.simplePos), else -1 (prepare).
	vpos []int
}

// countPlan enumerates the critical groundings of one (pivot, S) choice.
type countPlan struct {
	lits      []planLit
	varType   []mln.TypeID
	exist     []bool // per variable
	pivot     int    // -1: the existential plan
	pre       []int  // checks with no variable
	preNeq    []int
	steps     []planStep
	tallyStep int        // the pivot is bound after this step (-1: before any)
	univ      int        // universal variables (the first univ plan variables)
	plus      []mln.Term // the clause's "+" variables (bound at the tally)
	// indepFrom is the first step of the independent suffix: steps after
	// the tally, each enumerating one variable whose checks mention no
	// other variable of the suffix (len(steps)+1: none). The completions
	// below it are the product of each step's passing values, and the
	// groundings the enumeration would examine follow from them
	// (counter.suffix), without enumerating.
	indepFrom int
	// sufVars are the variables bound before the independent suffix that
	// it mentions: its result is the same while they keep their values.
	sufVars []int
}

// prepare places the plan's literals in the atom space sp.
func (p *countPlan) prepare(sp *atomSpace) {
	for i := range p.lits {
		l := &p.lits[i]
		if l.pred < 0 {
			continue
		}
		args := sp.m.Preds[l.pred].Args
		l.tidx = make([][]int32, len(args))
		for j, t := range args {
			l.tidx[j] = sp.typeIdx[t]
		}
		l.stride = sp.stride[l.pred]
		l.argType = args
	}
	for k := range p.steps {
		st := &p.steps[k]
		if st.kind != stepEnum || !st.closed {
			continue
		}
		st.vpos = make([]int, len(st.checks))
		for i, j := range st.checks {
			st.vpos[i] = p.simplePos(&p.lits[j], st.v)
		}
	}
}

// simplePos returns the position of variable v in positive literal l
// when v occurs there once, of its own type, beside at most one other
// argument: the true atoms of l's predicate with that other argument
// (or all of them, unary) then each give a distinct value of v. It
// returns -1 otherwise.
func (p *countPlan) simplePos(l *planLit, v int) int {
	if len(l.args) > 2 {
		return -1
	}
	pos := -1
	for j, t := range l.args {
		if t.IsVar() && t.Var() == v {
			if pos >= 0 {
				return -1
			}
			pos = j
		}
	}
	if pos < 0 || l.argType[pos] != p.varType[v] {
		return -1
	}
	return pos
}

// compileClause returns the counting plans of c, or an error for what the
// counter does not support.
func compileClause(m *mln.Model, c *mln.Clause) ([]*countPlan, error) {
	isExist := make([]bool, len(c.Vars))
	for _, v := range c.Exist {
		isExist[v] = true
	}
	litExist := make([]bool, len(c.Lits))
	for i, l := range c.Lits {
		for _, t := range l.Args {
			if t.IsVar() && isExist[t.Var()] {
				litExist[i] = true
			}
		}
		if litExist[i] && l.Pred < 0 {
			return nil, errors.New("score: counting: comparisons over existential variables are not supported")
		}
	}
	for i, l := range c.Lits {
		if !litExist[i] || l.Pred < 0 {
			continue
		}
		for j, k := range c.Lits {
			if j != i && k.Pred == l.Pred && !litExist[j] {
				return nil, errors.New("score: counting: an existential literal shares its predicate with a universal one (not supported)")
			}
		}
	}
	var plans []*countPlan
	for i, l := range c.Lits {
		if l.Pred < 0 || litExist[i] {
			continue
		}
		var same []int
		for j := i + 1; j < len(c.Lits); j++ {
			if c.Lits[j].Pred == l.Pred && c.Lits[j].Neg == l.Neg && !litExist[j] {
				same = append(same, j)
			}
		}
		for mask := 0; mask < 1<<len(same); mask++ {
			var S []int
			for b, j := range same {
				if mask&(1<<b) != 0 {
					S = append(S, j)
				}
			}
			p := unifyPlan(m, c, isExist, litExist, i, S)
			if p != nil {
				plans = append(plans, p)
			}
		}
	}
	if len(c.Exist) > 0 {
		plans = append(plans, unifyPlan(m, c, isExist, litExist, -1, nil))
	}
	return plans, nil
}

// unifyPlan builds the plan with pivot i and the literals S unified with
// it (nil when they cannot be).
func unifyPlan(m *mln.Model, c *mln.Clause, isExist, litExist []bool, pivot int, S []int) *countPlan {
	nv := len(c.Vars)
	parent := unionfind.New[int](nv)
	val := make([]mln.ConstID, nv)
	for v := range val {
		val[v] = -1
	}
	find := parent.Find
	ok := true
	unify := func(a, b mln.Term) {
		switch {
		case !a.IsVar() && !b.IsVar():
			ok = ok && a == b
		case !a.IsVar():
			a, b = b, a
			fallthrough
		case !b.IsVar():
			r := find(a.Var())
			if val[r] >= 0 && val[r] != b.Const() {
				ok = false
			}
			val[r] = b.Const()
		default:
			ra, rb := find(a.Var()), find(b.Var())
			if ra == rb {
				return
			}
			if val[ra] >= 0 && val[rb] >= 0 && val[ra] != val[rb] {
				ok = false
			}
			if val[ra] < 0 {
				val[ra] = val[rb]
			}
			parent[rb] = ra
		}
	}
	for _, j := range S {
		for k := range c.Lits[pivot].Args {
			unify(c.Lits[pivot].Args[k], c.Lits[j].Args[k])
		}
	}
	if !ok {
		return nil
	}
	// A unified constant must belong to the variables' types.
	for v := range parent {
		r := find(v)
		if val[r] >= 0 && !m.Types[c.Vars[v].Type].Has(val[r]) {
			return nil
		}
	}
	// New variables: universal ones first.
	newVar := make([]int, nv)
	for v := range newVar {
		newVar[v] = -1
	}
	p := &countPlan{pivot: -1}
	for pass := 0; pass < 2; pass++ {
		for v := 0; v < nv; v++ {
			r := find(v)
			if val[r] >= 0 || newVar[r] >= 0 || isExist[v] != (pass == 1) {
				continue
			}
			newVar[r] = len(p.varType)
			p.varType = append(p.varType, c.Vars[v].Type)
			p.exist = append(p.exist, pass == 1)
		}
		if pass == 0 {
			p.univ = len(p.varType)
		}
	}
	term := func(t mln.Term) mln.Term {
		if !t.IsVar() {
			return t
		}
		r := find(t.Var())
		if val[r] >= 0 {
			return mln.ConstTerm(val[r])
		}
		return mln.VarTerm(newVar[r])
	}
	for _, v := range c.Plus {
		p.plus = append(p.plus, term(mln.VarTerm(v)))
	}
	inS := map[int]bool{}
	for _, j := range S {
		inS[j] = true
	}
	for i, l := range c.Lits {
		if inS[i] {
			continue
		}
		pl := planLit{pred: l.Pred, builtin: l.Builtin, neg: l.Neg, exist: litExist[i]}
		for _, t := range l.Args {
			pl.args = append(pl.args, term(t))
		}
		if i == pivot {
			p.pivot = len(p.lits)
		}
		p.lits = append(p.lits, pl)
	}
	p.schedule()
	return p
}

// schedule orders the plan's steps: joins over the negative universal
// literals (most bound arguments first), then the remaining universal
// variables, each check placed right after the step that binds its last
// variable.
func (p *countPlan) schedule() {
	bound := make([]bool, len(p.varType))
	isBound := func(l *planLit) bool {
		for _, t := range l.args {
			if t.IsVar() && !p.exist[t.Var()] && !bound[t.Var()] {
				return false
			}
		}
		return true
	}
	done := make([]bool, len(p.lits)) // checked, joined or the pivot
	neqDone := make([]bool, len(p.lits))
	var pivotPred mln.PredID = -2
	if p.pivot >= 0 {
		pivotPred = p.lits[p.pivot].pred
		done[p.pivot] = true
	}
	for j, l := range p.lits {
		if j == p.pivot || l.pred != pivotPred || l.exist {
			neqDone[j] = true
		}
	}
	p.tallyStep = -2
	pivotBound := func() bool { return p.pivot < 0 || isBound(&p.lits[p.pivot]) }
	ready := func() bool { // the pivot and the "+" variables are bound
		if !pivotBound() {
			return false
		}
		for _, t := range p.plus {
			if t.IsVar() && !bound[t.Var()] {
				return false
			}
		}
		return true
	}
	// collect returns the checks that have become ready.
	collect := func() (checks, neq []int) {
		for j := range p.lits {
			l := &p.lits[j]
			if !done[j] && (l.neg == false || l.pred < 0 || l.exist) && isBound(l) {
				if l.exist && p.pivot < 0 {
					continue // expanded at the leaves of the existential plan
				}
				done[j] = true
				checks = append(checks, j)
			}
			if !neqDone[j] && isBound(l) && pivotBound() {
				neqDone[j] = true
				neq = append(neq, j)
			}
		}
		return
	}
	p.pre, p.preNeq = collect()
	if ready() {
		p.tallyStep = -1
	}
	for {
		// Next join: the negative universal literal with most bound args.
		best, bestScore := -1, -1
		for j := range p.lits {
			l := &p.lits[j]
			if done[j] || !l.neg || l.pred < 0 || l.exist {
				continue
			}
			s := 0
			for _, t := range l.args {
				if !t.IsVar() || bound[t.Var()] {
					s++
				}
			}
			if s > bestScore {
				best, bestScore = j, s
			}
		}
		var st planStep
		if best >= 0 {
			done[best] = true
			st = planStep{kind: stepJoin, lit: best}
			for _, t := range p.lits[best].args {
				st.bound = append(st.bound, !t.IsVar() || bound[t.Var()])
			}
			for _, t := range p.lits[best].args {
				if t.IsVar() {
					bound[t.Var()] = true
				}
			}
		} else {
			// Next variable: the one completing most checks.
			bv, bs := -1, -1
			for v := 0; v < p.univ; v++ {
				if bound[v] {
					continue
				}
				s := 0
				for j := range p.lits {
					l := &p.lits[j]
					has := false
					for _, t := range l.args {
						if t.IsVar() && t.Var() == v {
							has = true
						}
					}
					if !has {
						continue
					}
					s += 2
					bound[v] = true
					if isBound(l) && (!done[j] || j == p.pivot) {
						s += 4
					}
					bound[v] = false
				}
				if s > bs {
					bv, bs = v, s
				}
			}
			if bv < 0 {
				break
			}
			bound[bv] = true
			st = planStep{kind: stepEnum, v: bv}
		}
		wasBound := p.tallyStep != -2
		st.checks, st.neq = collect()
		p.steps = append(p.steps, st)
		if !wasBound && ready() {
			p.tallyStep = len(p.steps) - 1
		}
	}
	p.indepFrom = len(p.steps) + 1
	if p.pivot < 0 {
		p.tallyStep = len(p.steps) // the leaves
		return
	}
	if k := len(p.steps) - 1; k > p.tallyStep && p.steps[k].kind == stepEnum && len(p.steps[k].neq) == 0 {
		st := &p.steps[k]
		st.countOnly = true
		for _, j := range st.checks {
			if l := &p.lits[j]; l.pred < 0 || l.neg || l.exist {
				st.countOnly = false
			}
		}
	}
	p.findSuffix()
}

// findSuffix marks the closed enumeration steps and the independent
// suffix (countPlan.indepFrom).
func (p *countPlan) findSuffix() {
	// boundBy[v]: the step that binds variable v (-1: bound before any).
	boundBy := make([]int, len(p.varType))
	for v := range boundBy {
		boundBy[v] = -1
	}
	for k := len(p.steps) - 1; k >= 0; k-- {
		st := &p.steps[k]
		if st.kind == stepEnum {
			boundBy[st.v] = k
			continue
		}
		for _, t := range p.lits[st.lit].args {
			if t.IsVar() {
				boundBy[t.Var()] = k
			}
		}
	}
	eligible := make([]bool, len(p.steps))
	for k := range p.steps {
		st := &p.steps[k]
		if st.kind != stepEnum {
			continue
		}
		eligible[k], st.closed = true, true
		for _, j := range st.checks {
			switch l := &p.lits[j]; {
			case l.exist:
				eligible[k], st.closed = false, false
			case l.pred < 0 || l.neg:
				st.closed = false
			}
		}
	}
	// mentions reports whether step k's checks and neq mention a variable
	// bound at or after step from other than its own.
	mentions := func(k, from int) bool {
		st := &p.steps[k]
		late := func(l *planLit) bool {
			for _, t := range l.args {
				if t.IsVar() && t.Var() != st.v && boundBy[t.Var()] >= from {
					return true
				}
			}
			return false
		}
		for _, j := range st.checks {
			if late(&p.lits[j]) {
				return true
			}
		}
		for _, j := range st.neq {
			if late(&p.lits[j]) || late(&p.lits[p.pivot]) {
				return true
			}
		}
		return false
	}
	for from := len(p.steps) - 1; from > p.tallyStep; from-- {
		ok := eligible[from]
		for k := from; ok && k < len(p.steps); k++ {
			ok = !mentions(k, from)
		}
		if !ok {
			break
		}
		p.indepFrom = from
	}
	// later[v]: some step after the current one (or the tally after it)
	// mentions variable v; steps are visited from the last.
	later := make([]bool, len(p.varType))
	mark := func(l *planLit) {
		for _, t := range l.args {
			if t.IsVar() {
				later[t.Var()] = true
			}
		}
	}
	for k := len(p.steps) - 1; k >= 0; k-- {
		st := &p.steps[k]
		if k+1 == p.indepFrom {
			for v, b := range boundBy {
				if b <= k && later[v] {
					p.sufVars = append(p.sufVars, v)
				}
			}
		}
		if k != p.tallyStep {
			st.dangling = true
			any := false
			for v, b := range boundBy {
				if b == k {
					any = true
					if later[v] {
						st.dangling = false
					}
				}
			}
			st.dangling = st.dangling && any
			if !st.dangling && st.kind == stepJoin {
				// One new variable mentioned later and another not: the
				// passing atoms are grouped by the first's value.
				var used, unused []int
				for v, b := range boundBy {
					if b == k {
						if later[v] {
							used = append(used, v)
						} else {
							unused = append(unused, v)
						}
					}
				}
				if len(used) == 1 && len(unused) > 0 {
					for j, t := range p.lits[st.lit].args {
						if t.IsVar() && t.Var() == used[0] {
							st.grouped, st.groupPos = true, j
							break
						}
					}
				}
			}
		}
		if k == p.tallyStep {
			mark(&p.lits[p.pivot])
			for _, t := range p.plus {
				if t.IsVar() {
					later[t.Var()] = true
				}
			}
		}
		if st.kind == stepJoin {
			mark(&p.lits[st.lit])
		} else {
			later[st.v] = true
		}
		for _, j := range st.checks {
			mark(&p.lits[j])
		}
		for _, j := range st.neq {
			mark(&p.lits[j])
			mark(&p.lits[p.pivot])
		}
	}
	if k := p.tallyStep; k >= 0 && k < len(p.steps) {
		st := &p.steps[k]
		st.uniform = st.kind == stepEnum && st.closed && (k+1 == len(p.steps) || k+1 == p.indepFrom && !slices.Contains(p.sufVars, st.v))
	}
	for k := range p.steps {
		st := &p.steps[k]
		if st.kind != stepEnum || !st.closed {
			continue
		}
		add := func(l *planLit) {
			for _, t := range l.args {
				if t.IsVar() && t.Var() != st.v && !slices.Contains(st.markVars, t.Var()) {
					st.markVars = append(st.markVars, t.Var())
				}
			}
		}
		for _, j := range st.checks {
			add(&p.lits[j])
		}
		for _, j := range st.neq {
			add(&p.lits[j])
			add(&p.lits[p.pivot])
		}
	}
}

// counter enumerates plans in one world; its scratch space is reused.
type counter struct {
	sp    *atomSpace
	w     *cworld
	m     *mln.Model
	p     *countPlan
	bind  []mln.ConstID
	limit int64 // groundings examined allowed (<= 0: none)
	seen  int64
	over  bool
	// tally receives (predicate, atom id, Δ).
	// and the binding of the clause's "+" variables (nil without them).
	tally func(p mln.PredID, id int64, d int64, plus []mln.ConstID)
	// direct, when set (a clause without "+" variables, every row kept),
	// receives the tallies instead: Δ at row rowOff[p]+id (none when
	// rowOff[p] < 0).
	direct  *countScratch
	rowOff  []int64
	plusBuf []mln.ConstID
	// scratch for existential expansion
	exAtoms map[[2]int64]uint8
	// scratch for falseCount: mark[i] == stamp for values already hit
	mark  []uint32
	stamp uint32
	// stepMarks[k] marks the values failing the checks of closed step k.
	stepMarks []stepMark
	// stepCounts[k] remembers the count of closed suffix step k.
	stepCounts []stepCount
	// groups[k] is the scratch of grouped join step k.
	groups []groupScratch
	// suf is scratch for suffix.
	suf []int64
	// lastEntry is seen at the last call of rec.
	lastEntry int64
	// mult multiplies the tallies: the copies of the enumeration below
	// the dangling steps above the tally (copies).
	mult int64
	// sufMemo is the last result of suffix, valid while the plan's
	// sufVars keep the values sufKey.
	sufMemo struct {
		valid                        bool
		key                          []mln.ConstID
		nodes, calls, trailing, n, k int64
	}
}

// stepCount is the last falseCount of a step of the independent suffix
// (counter.suffixCount), for the values key of its markVars.
type stepCount struct {
	valid          bool
	key            []mln.ConstID
	count, scanned int64
	// For a step whose checks mention one other variable: its count
	// and scan per position of that variable's value in its type, valid
	// where stamps holds stamp.
	stamp         uint32
	stamps        []uint32
	counts, scans []int64
}

// stepMark is a mark array with its current stamp (counter.markHits).
type stepMark struct {
	mark  []uint32
	stamp uint32
	// The marks are those of the values key of the step's markVars
	// (valid), hit of them.
	valid bool
	key   []mln.ConstID
	hit   int
}

// run enumerates plan p.
func (cn *counter) run(p *countPlan) {
	cn.p = p
	if cap(cn.bind) < len(p.varType) {
		cn.bind = make([]mln.ConstID, len(p.varType))
	}
	cn.bind = cn.bind[:len(p.varType)]
	for i := range cn.bind {
		cn.bind[i] = -1
	}
	cn.mult = 1
	cn.sufMemo.valid = false
	for i := range cn.stepMarks {
		cn.stepMarks[i].valid = false
	}
	for i := range cn.stepCounts {
		sc := &cn.stepCounts[i]
		sc.valid = false
		sc.stamp++
		if sc.stamp == 0 {
			clear(sc.stamps)
			sc.stamp = 1
		}
	}
	if !cn.checks(p.pre, p.preNeq) {
		return
	}
	if p.tallyStep == -1 {
		cn.doTally(cn.rec(0))
		return
	}
	cn.rec(0)
}

// dom returns the domain of type t in the counter's world.
func (cn *counter) dom(t mln.TypeID) []mln.ConstID {
	if cn.w.dom != nil {
		return cn.w.dom[t]
	}
	return cn.m.Types[t].Consts
}

func (cn *counter) term(t mln.Term) mln.ConstID {
	if t.IsVar() {
		return cn.bind[t.Var()]
	}
	return t.Const()
}

// evalBuiltin evaluates a comparison or internal function literal on the
// current binding, ignoring negation.
func (cn *counter) evalBuiltin(l *planLit) bool {
	if !l.builtin.IsArith() {
		return cn.m.EvalBuiltin(l.builtin, cn.term(l.args[0]), cn.term(l.args[1]))
	}
	var buf [3]mln.ConstID
	args := buf[:0]
	for _, t := range l.args {
		args = append(args, cn.term(t))
	}
	return cn.m.EvalLiteral(l.builtin, args)
}

// atomID returns the id of l's ground atom under the current binding
// (-1 when an argument is outside its type).
func (cn *counter) atomID(l *planLit) int64 {
	id := int64(0)
	for j, t := range l.args {
		c := mln.ConstID(t)
		if t.IsVar() {
			c = cn.bind[t.Var()]
		}
		i := l.tidx[j][c]
		if i < 0 {
			return -1
		}
		id += int64(i) * l.stride[j]
	}
	return id
}

// atomTrue reports whether the ground atom of l is true.
func (cn *counter) atomTrue(l *planLit) bool {
	id := cn.atomID(l)
	return id >= 0 && cn.w.preds[l.pred].has(id)
}

// checks runs the checks of a step: literals that must be false, atoms
// that must differ from the pivot's.
func (cn *counter) checks(lits, neq []int) bool {
	p := cn.p
	for _, j := range lits {
		l := &p.lits[j]
		switch {
		case l.pred < 0:
			if cn.evalBuiltin(l) != l.neg {
				return false
			}
		case l.exist:
			if cn.anyInstanceTrue(l) {
				return false
			}
		default:
			if cn.atomTrue(l) != l.neg {
				return false
			}
		}
	}
	for _, j := range neq {
		a, b := &p.lits[j], &p.lits[p.pivot]
		same := true
		for k := range a.args {
			if cn.term(a.args[k]) != cn.term(b.args[k]) {
				same = false
				break
			}
		}
		if same {
			return false
		}
	}
	return true
}

// anyInstanceTrue reports whether some instance of existential literal l
// (over its existential variables) is true.
func (cn *counter) anyInstanceTrue(l *planLit) bool {
	var ev []int
	for _, t := range l.args {
		if t.IsVar() && cn.p.exist[t.Var()] && cn.bind[t.Var()] < 0 && !slices.Contains(ev, t.Var()) {
			ev = append(ev, t.Var())
		}
	}
	found := false
	cn.enumVars(ev, func() bool {
		cn.seen++
		found = cn.atomTrue(l) != l.neg
		return !found
	})
	return found
}

// enumVars binds the variables vs to every combination of values of
// their domains and calls fn, until fn returns false; it leaves them
// unbound.
func (cn *counter) enumVars(vs []int, fn func() bool) bool {
	if len(vs) == 0 {
		return fn()
	}
	v := vs[0]
	defer func() { cn.bind[v] = -1 }()
	for _, c := range cn.dom(cn.p.varType[v]) {
		cn.bind[v] = c
		if !cn.enumVars(vs[1:], fn) {
			return false
		}
	}
	return true
}

// rec runs steps k.. and returns the number of completions (groundings).
func (cn *counter) rec(k int) int64 {
	p := cn.p
	if cn.over {
		return 0
	}
	cn.seen++
	cn.lastEntry = cn.seen
	if cn.limit > 0 && cn.seen > cn.limit {
		cn.over = true
		return 0
	}
	if k == len(p.steps) {
		if p.pivot < 0 {
			cn.expand()
			return 0
		}
		return 1
	}
	if k >= p.indepFrom && countSuffix {
		return cn.suffix(k)
	}
	st := &p.steps[k]
	var n int64
	if st.countOnly {
		c, scanned := cn.falseCount(st)
		cn.seen += scanned
		return c
	}
	if st.kind == stepEnum {
		dom := cn.dom(p.varType[st.v])
		if st.closed && countSuffix {
			// The values failing a check or a neq, marked from the true
			// atoms.
			for len(cn.stepMarks) <= k {
				cn.stepMarks = append(cn.stepMarks, stepMark{})
			}
			sm := &cn.stepMarks[k]
			same := sm.valid
			for i, v := range st.markVars {
				if !same {
					break
				}
				same = cn.bind[v] == sm.key[i]
			}
			if !same {
				sm.hit, _ = cn.markHits(st, &sm.mark, &sm.stamp)
				sm.valid = true
				sm.key = sm.key[:0]
				for _, v := range st.markVars {
					sm.key = append(sm.key, cn.bind[v])
				}
			}
			hit := sm.hit
			if hit == len(dom) {
				return 0
			}
			ti := cn.sp.typeIdx[p.varType[st.v]]
			mark, stamp := sm.mark, sm.stamp
			if st.uniform {
				return cn.tallyUniform(k, dom, int64(len(dom)-hit), mark, stamp, ti)
			}
			pos := cn.w.domPos(p.varType[st.v])
			if st.dangling {
				for i, d := range pos {
					if mark[d] != stamp {
						cn.bind[st.v] = dom[i]
						break
					}
				}
				n = cn.copies(k, int64(len(dom)-hit))
				cn.bind[st.v] = -1
				return n
			}
			for i, d := range pos {
				if mark[d] == stamp {
					continue
				}
				cn.bind[st.v] = dom[i]
				n += cn.after(k)
			}
			cn.bind[st.v] = -1
			return n
		}
		if st.dangling && countSuffix {
			var m int64
			first := mln.ConstID(-1)
			for _, c := range dom {
				cn.bind[st.v] = c
				if cn.checks(st.checks, st.neq) {
					if m == 0 {
						first = c
					}
					m++
				}
			}
			if m > 0 {
				cn.bind[st.v] = first
				n = cn.copies(k, m)
			}
			cn.bind[st.v] = -1
			return n
		}
		for _, c := range cn.dom(p.varType[st.v]) {
			cn.bind[st.v] = c
			if cn.checks(st.checks, st.neq) {
				n += cn.after(k)
			}
		}
		cn.bind[st.v] = -1
		return n
	}
	l := &p.lits[st.lit]
	wp := &cn.w.preds[l.pred]
	all := true
	var cands []int32
	first := true
	for j, t := range l.args {
		if !st.bound[j] {
			all = false
			continue
		}
		if first {
			first = false
			ti := l.tidx[j][cn.term(t)]
			if ti < 0 {
				return 0
			}
			cands = wp.post[j][ti]
		}
	}
	if all {
		if !cn.atomTrue(l) {
			return 0
		}
		if cn.checks(st.checks, st.neq) {
			n += cn.after(k)
		}
		return n
	}
	var setv [16]int
	if st.dangling && countSuffix {
		var m int64
		pick := int32(-1)
		count := func(a int32) {
			ns, ok := cn.bindAtom(l, wp, a, setv[:])
			if ok && cn.checks(st.checks, st.neq) {
				if m == 0 {
					pick = a
				}
				m++
			}
			cn.unbind(setv[:ns])
		}
		wp.each(first, cands, count)
		if m == 0 {
			return 0
		}
		ns, _ := cn.bindAtom(l, wp, pick, setv[:])
		n = cn.copies(k, m)
		cn.unbind(setv[:ns])
		return n
	}
	if st.grouped && countSuffix {
		return cn.joinGrouped(k, first, cands)
	}
	visit := func(a int32) {
		ns, ok := cn.bindAtom(l, wp, a, setv[:])
		if ok && cn.checks(st.checks, st.neq) {
			n += cn.after(k)
		}
		cn.unbind(setv[:ns])
	}
	wp.each(first, cands, visit)
	return n
}

// groupScratch is joinGrouped's scratch at one step: per value of the
// grouping argument (its position in the argument's type), a stamp, the
// passing atoms and one of them, and the values in the order met.
type groupScratch struct {
	mark  []uint32
	stamp uint32
	cnt   []int64
	rep   []int32
	order []int32
}

// joinGrouped runs grouped join step k (planStep.grouped) over the true
// atoms (all) or cands: the passing atoms grouped by the value of the
// grouping argument, the enumeration below runs once per group with its
// number of atoms (copies). The group of the last passing atom runs
// last, so that the last call of rec, and the bound's decision, are the
// enumeration's.
func (cn *counter) joinGrouped(k int, all bool, cands []int32) int64 {
	p := cn.p
	st := &p.steps[k]
	l := &p.lits[st.lit]
	wp := &cn.w.preds[l.pred]
	ar := wp.arity
	gp := st.groupPos
	ti := l.tidx[gp]
	for len(cn.groups) <= k {
		cn.groups = append(cn.groups, groupScratch{})
	}
	g := &cn.groups[k]
	if sz := cn.m.Types[l.argType[gp]].Size(); len(g.mark) < sz {
		g.mark = make([]uint32, sz)
		g.cnt = make([]int64, sz)
		g.rep = make([]int32, sz)
	}
	g.stamp++
	if g.stamp == 0 {
		clear(g.mark)
		g.stamp = 1
	}
	stamp := g.stamp
	order := g.order[:0]
	last := int32(-1)
	var setv [16]int
	n := len(cands)
	if all {
		n = wp.numTrue()
	}
	for i := 0; i < n; i++ {
		a := int32(i)
		if !all {
			a = cands[i]
		}
		ns, ok := cn.bindAtom(l, wp, a, setv[:])
		if ok && cn.checks(st.checks, st.neq) {
			d := ti[wp.args[int(a)*ar+gp]]
			if g.mark[d] != stamp {
				g.mark[d], g.cnt[d], g.rep[d] = stamp, 0, a
				order = append(order, d)
			}
			g.cnt[d]++
			last = d
		}
		cn.unbind(setv[:ns])
	}
	g.order = order
	var r int64
	run := func(d int32) {
		a := g.rep[d]
		ns, _ := cn.bindAtom(l, wp, a, setv[:])
		r += cn.copies(k, g.cnt[d])
		cn.unbind(setv[:ns])
	}
	for _, d := range order {
		if d != last {
			run(d)
			if cn.over {
				return 0
			}
		}
	}
	if last >= 0 {
		run(last)
	}
	if cn.over {
		return 0
	}
	return r
}

// falseCount returns the number of values of a closed step's variable
// for which every check (a positive literal) is false and every neq
// literal's atom differs from the pivot's: the domain size minus the
// values for which some check's atom is true, found from the true atoms
// matching the bound arguments, and minus the values that make a neq
// literal's atom the pivot's. scanned is the number of true atoms looked
// at (the groundings a countOnly step examines).
func (cn *counter) falseCount(st *planStep) (count, scanned int64) {
	hit, scanned := cn.countHits(st)
	return int64(len(cn.dom(cn.p.varType[st.v])) - hit), scanned
}

// checkCands returns the true atoms of positive check l that can match
// the current binding for some value of v: those with l's first argument
// other than v (all of them when every argument is v).
func (cn *counter) checkCands(l *planLit, v int) (cands []int32, all bool) {
	wp := &cn.w.preds[l.pred]
	for k, a := range l.args {
		if a.IsVar() && a.Var() == v {
			continue
		}
		ix := l.tidx[k][cn.term(a)]
		if ix < 0 {
			return nil, false
		}
		return wp.post[k][ix], false
	}
	return nil, true
}

// checkVals returns the positions in their type of argument vp of the
// candidates checkCands returns for simple check l (planStep.vpos: at
// most two arguments), from the world's index: every true atom's (all),
// else those of the atoms whose other argument is bound.
func (cn *counter) checkVals(l *planLit, vp int, all bool) []int32 {
	wp := &cn.w.preds[l.pred]
	if all {
		return wp.pos[vp]
	}
	k := 1 - vp // the other argument, bound (checkCands)
	return wp.other[k][l.tidx[k][cn.term(l.args[k])]]
}

// countHits returns the hits and the true atoms scanned of markHits on a
// closed step without marking them when the step has one simple check
// (planStep.vpos) and no neq: the check's candidate atoms each give a
// distinct value of v.
func (cn *counter) countHits(st *planStep) (hit int, scanned int64) {
	if countSuffix && len(st.checks) == 1 && len(st.neq) == 0 && st.vpos[0] >= 0 {
		l := &cn.p.lits[st.checks[0]]
		cands, all := cn.checkCands(l, st.v)
		n := len(cands)
		if all {
			n = cn.w.preds[l.pred].numTrue()
		}
		return n, int64(n)
	}
	return cn.markHits(st, &cn.mark, &cn.stamp)
}

// markHits marks in *mark, with a new *stamp, the positions of the
// values of a closed step's variable that fail a check or a neq, and
// returns their number and the true atoms scanned (see falseCount).
func (cn *counter) markHits(st *planStep, markp *[]uint32, stampp *uint32) (hit int, scanned int64) {
	p := cn.p
	v := st.v
	t := p.varType[v]
	dom := cn.dom(t)
	if n := cn.m.Types[t].Size(); len(*markp) < n {
		*markp = make([]uint32, n) // indexed by the position in the model's domain
	}
	mark := *markp
	*stampp++
	if *stampp == 0 {
		clear(mark)
		*stampp = 1
	}
	stamp := *stampp
	ti := cn.sp.typeIdx[t]
	for ci, j := range st.checks {
		l := &p.lits[j]
		wp := &cn.w.preds[l.pred]
		ar := wp.arity
		cands, all := cn.checkCands(l, v)
		n := len(cands)
		if all {
			n = wp.numTrue()
		}
		scanned += int64(n)
		if vp := st.vpos[ci]; vp >= 0 && countSuffix {
			// Every candidate matches; its value of v is its argument vp
			// (positions in the type read from the world's index).
			if n == 0 {
				continue
			}
			for _, d := range cn.checkVals(l, vp, all) {
				if mark[d] != stamp {
					mark[d] = stamp
					hit++
				}
			}
			continue
		}
		for i := 0; i < n; i++ {
			a := i
			if !all {
				a = int(cands[i])
			}
			args := wp.args[a*ar : a*ar+ar]
			x := mln.ConstID(-1)
			ok := true
			for k, at := range l.args {
				if at.IsVar() && at.Var() == v {
					if x >= 0 && x != args[k] {
						ok = false
						break
					}
					x = args[k]
				} else if cn.term(at) != args[k] {
					ok = false
					break
				}
			}
			if !ok || x < 0 {
				continue
			}
			if d := ti[x]; d >= 0 && mark[d] != stamp {
				mark[d] = stamp
				hit++
			}
		}
	}
	// A neq literal's atom is the pivot's for at most one value of v (the
	// pivot's argument where the literal has v, or the literal's where
	// the pivot has v, if consistent, the other arguments equal and the
	// value in the domain), or for all of them (where each has v the
	// other has v too, the other arguments equal).
	piv := &p.lits[p.pivot]
	for _, j := range st.neq {
		l := &p.lits[j]
		x := mln.ConstID(-1)
		ok := true
		for k, at := range l.args {
			pt := piv.args[k]
			av, pv := at.IsVar() && at.Var() == v, pt.IsVar() && pt.Var() == v
			var want mln.ConstID
			switch {
			case av && pv:
				continue
			case av:
				want = cn.term(pt)
			case pv:
				want = cn.term(at)
			default:
				if cn.term(at) != cn.term(pt) {
					ok = false
				}
			}
			if !ok {
				break
			}
			if av || pv {
				if x >= 0 && x != want {
					ok = false
					break
				}
				x = want
			}
		}
		if !ok {
			continue
		}
		if x < 0 {
			return len(dom), scanned // every value makes the two atoms equal
		}
		if d := ti[x]; d >= 0 && mark[d] != stamp && cn.inDom(t, d) {
			mark[d] = stamp
			hit++
		}
	}
	return hit, scanned
}

// inDom reports whether the d-th constant of type t is in the world's
// domain.
func (cn *counter) inDom(t mln.TypeID, d int32) bool {
	return cn.w.dom == nil || cn.w.in[t][d]
}

// countSuffix turns on counting the independent suffix of a plan in
// closed form, and the shortcuts for simple checks (planStep.vpos)
// (tests turn it off to compare with the enumeration).
var countSuffix = true

// suffix returns the completions of steps k.. of the independent suffix
// (k ≥ indepFrom), rec(k) having counted itself: the product of each
// step's passing values. It adds the groundings the enumeration of those
// steps would examine, and stops the count when the enumeration would
// have passed the bound on groundings at a call of rec.
func (cn *counter) suffix(k int) int64 {
	p := cn.p
	e := len(p.steps) - 1
	memo := &cn.sufMemo
	if k == p.indepFrom {
		if memo.valid && cn.boundAs(p.sufVars, memo.key) {
			return cn.suffixResult(memo.nodes, memo.calls, memo.trailing, memo.n)
		}
	}
	cs := cn.suf[:0]
	var scanned int64 // the last step's, when it is countOnly
	for i := k; i <= e; i++ {
		st := &p.steps[i]
		var c int64
		switch {
		case st.countOnly:
			c, scanned = cn.suffixCount(i)
		case st.closed:
			c, _ = cn.suffixCount(i)
		default:
			for _, x := range cn.dom(p.varType[st.v]) {
				cn.bind[st.v] = x
				if cn.checks(st.checks, st.neq) {
					c++
				}
			}
			cn.bind[st.v] = -1
		}
		cs = append(cs, c)
		if c == 0 {
			break // the later steps are not reached
		}
	}
	cn.suf = cs
	// nodes: the calls of rec below rec(k) and the groundings they
	// examine, as the enumeration counts them; calls: the calls of rec
	// below rec(k); trailing: what the enumeration adds after its last
	// call of rec (a countOnly last step's scan).
	last := k + len(cs) - 1 // the last step reached
	countOnly := last == e && p.steps[e].countOnly
	var nodes, calls, trailing, inv int64 = 0, 0, 0, 1
	for i := k; i <= last; i++ {
		if i > k {
			calls = satAdd(calls, inv)
			nodes = satAdd(nodes, inv)
		}
		if i == e && countOnly {
			nodes = satAdd(nodes, satMul(inv, scanned))
			if i > k {
				trailing = scanned
			}
			break
		}
		inv = satMul(inv, cs[i-k])
		if i == e { // the leaves
			calls = satAdd(calls, inv)
			nodes = satAdd(nodes, inv)
		}
	}
	n := int64(0)
	if len(cs) == e-k+1 {
		n = 1
		for _, c := range cs {
			n *= c
		}
	}
	if k == p.indepFrom {
		memo.valid = true
		memo.key = cn.appendBinding(memo.key[:0], p.sufVars)
		memo.nodes, memo.calls, memo.trailing, memo.n = nodes, calls, trailing, n
	}
	return cn.suffixResult(nodes, calls, trailing, n)
}

// suffixCount returns falseCount of closed step k of the independent
// suffix, remembered while the variables its checks mention (markVars)
// keep their values.
func (cn *counter) suffixCount(k int) (count, scanned int64) {
	for len(cn.stepCounts) <= k {
		cn.stepCounts = append(cn.stepCounts, stepCount{stamp: 1})
	}
	st := &cn.p.steps[k]
	sc := &cn.stepCounts[k]
	if len(st.markVars) == 1 && cn.sp.typeIdx[cn.p.varType[st.markVars[0]]][cn.bind[st.markVars[0]]] >= 0 {
		// Remembered per value of the one variable, for the plan's run.
		u := st.markVars[0]
		t := cn.p.varType[u]
		if n := cn.m.Types[t].Size(); len(sc.stamps) < n {
			sc.stamps = make([]uint32, n)
			sc.counts = make([]int64, n)
			sc.scans = make([]int64, n)
		}
		d := cn.sp.typeIdx[t][cn.bind[u]]
		if sc.stamps[d] == sc.stamp {
			return sc.counts[d], sc.scans[d]
		}
		c, s := cn.falseCount(st)
		sc.stamps[d], sc.counts[d], sc.scans[d] = sc.stamp, c, s
		return c, s
	}
	if sc.valid && cn.boundAs(st.markVars, sc.key) {
		return sc.count, sc.scanned
	}
	sc.count, sc.scanned = cn.falseCount(st)
	sc.valid = true
	sc.key = cn.appendBinding(sc.key[:0], st.markVars)
	return sc.count, sc.scanned
}

// boundAs reports whether variables vars have the values key (as
// appendBinding wrote them).
func (cn *counter) boundAs(vars []int, key []mln.ConstID) bool {
	for i, v := range vars {
		if cn.bind[v] != key[i] {
			return false
		}
	}
	return true
}

// appendBinding appends the values of variables vars to key.
func (cn *counter) appendBinding(key []mln.ConstID, vars []int) []mln.ConstID {
	for _, v := range vars {
		key = append(key, cn.bind[v])
	}
	return key
}

// suffixResult adds the groundings an independent suffix examines
// (nodes, of which calls are calls of rec and trailing follow the last
// call) and returns its completions n, or stops the count when the
// enumeration would have passed the bound at a call of rec.
func (cn *counter) suffixResult(nodes, calls, trailing, n int64) int64 {
	before := cn.seen
	cn.seen = satAdd(cn.seen, nodes)
	if calls > 0 {
		cn.lastEntry = satAdd(before, nodes-trailing)
		if cn.limit > 0 && cn.lastEntry > cn.limit {
			cn.over = true
			return 0
		}
	}
	return n
}

// satAdd and satMul add and multiply non-negative counts, saturating.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// copies runs the enumeration after dangling step k once for its m
// passing values (bound to one of them), which would each enumerate the
// same: it multiplies the tallies below (a step before the tally) or the
// completions (after it) by m, and adds the groundings the m−1 other
// copies would examine, stopping the count when the last call of rec of
// the last copy would have passed the bound.
func (cn *counter) copies(k int, m int64) int64 {
	if m == 1 {
		return cn.rec(k + 1)
	}
	s0 := cn.seen
	mult := cn.mult
	if k < cn.p.tallyStep {
		cn.mult *= m
	}
	r := cn.rec(k + 1)
	cn.mult = mult
	if cn.over {
		return 0
	}
	if cn.repeated(s0, m) {
		return 0
	}
	return r * m
}

// repeated counts the groundings examined since s0 (one enumeration) m
// times, the last entry in the last of the m copies, and reports whether
// that passes the bound (then the count stops: cn.over).
func (cn *counter) repeated(s0, m int64) bool {
	size, last := cn.seen-s0, cn.lastEntry-s0
	cn.seen = satAdd(s0, satMul(m, size))
	cn.lastEntry = satAdd(s0, satAdd(satMul(m-1, size), last))
	if cn.limit > 0 && cn.lastEntry > cn.limit {
		cn.over = true
	}
	return cn.over
}

// tallyUniform runs a uniform tally step k: the enumeration below it
// once, for the first of its m values not marked, and each value's
// pivot atom tallied with its completions; it adds the groundings the
// other m−1 enumerations would examine and stops the count when the last
// call of rec of the last one would have passed the bound.
func (cn *counter) tallyUniform(k int, dom []mln.ConstID, m int64, mark []uint32, stamp uint32, ti []int32) int64 {
	p := cn.p
	v := p.steps[k].v
	defer func() { cn.bind[v] = -1 }()
	// The pivot atom's id is base + coef·(v's position in its type) (or
	// base when v is not in the pivot).
	piv := &p.lits[p.pivot]
	var base, coef int64
	var tv []int32
	valid := true
	for j, t := range piv.args {
		if t.IsVar() && t.Var() == v {
			coef += piv.stride[j]
			tv = piv.tidx[j]
			continue
		}
		i := piv.tidx[j][cn.term(t)]
		if i < 0 {
			valid = false
			break
		}
		base += int64(i) * piv.stride[j]
	}
	wp := &cn.w.preds[piv.pred]
	// same: v's positions in the pivot are of v's type, so that its
	// position in its type places the pivot atom.
	same := tv != nil
	for j, t := range piv.args {
		if t.IsVar() && t.Var() == v && piv.argType[j] != p.varType[v] {
			same = false
		}
	}
	if same && cn.direct != nil && countSuffix {
		return cn.tallyUniformDirect(k, dom, m, mark, stamp, valid, base, coef)
	}
	var r int64
	first := true
	for _, c := range dom {
		if mark[ti[c]] == stamp {
			continue
		}
		cn.bind[v] = c
		if first {
			first = false
			s0 := cn.seen
			r = cn.rec(k + 1)
			if cn.over {
				return 0
			}
			if cn.repeated(s0, m) {
				return 0
			}
			if r == 0 || !valid {
				return 0
			}
			r *= cn.mult
		}
		id := base // v not in the pivot: a "+" variable
		if tv != nil {
			i := tv[c]
			if i < 0 {
				continue
			}
			id += int64(i) * coef
		}
		n := r
		if wp.has(id) == piv.neg {
			n = -n // the pivot literal is false: the grounding is false
		}
		cn.emit(piv.pred, id, n)
	}
	return 0
}

// tallyUniformDirect is tallyUniform into the direct accumulator when
// v's position in its type places the pivot atom: its id is base +
// coef·position.
func (cn *counter) tallyUniformDirect(k int, dom []mln.ConstID, m int64, mark []uint32, stamp uint32, valid bool, base, coef int64) int64 {
	p := cn.p
	v := p.steps[k].v
	pos := cn.w.domPos(p.varType[v])
	i0 := 0
	for i0 < len(pos) && mark[pos[i0]] == stamp {
		i0++
	}
	if i0 == len(pos) {
		return 0
	}
	cn.bind[v] = dom[i0]
	s0 := cn.seen
	r := cn.rec(k + 1)
	cn.bind[v] = -1
	if cn.over {
		return 0
	}
	if cn.repeated(s0, m) {
		return 0
	}
	piv := &p.lits[p.pivot]
	off := cn.rowOff[piv.pred]
	if r == 0 || !valid || off < 0 {
		return 0
	}
	r *= cn.mult
	wp := &cn.w.preds[piv.pred]
	// n[1] where the pivot literal is true, n[0] where it is false (the
	// grounding is false).
	var n [2]int64
	n[0], n[1] = -r, r
	acc := cn.direct
	for _, d := range pos[i0:] {
		if mark[d] == stamp {
			continue
		}
		id := base + int64(d)*coef
		t := 0
		if wp.has(id) != piv.neg {
			t = 1
		}
		acc.add(off+id, n[t])
	}
	return 0
}

// emit tallies n at atom id of predicate p with the current binding of
// the "+" variables: straight into the direct accumulator when the
// counter has one.
func (cn *counter) emit(p mln.PredID, id int64, n int64) {
	if cn.direct != nil {
		if off := cn.rowOff[p]; off >= 0 {
			cn.direct.add(off+id, n)
		}
		return
	}
	cn.tally(p, id, n, cn.plusBinding())
}

// after continues after step k, tallying when the pivot has just become
// bound.
func (cn *counter) after(k int) int64 {
	if k == cn.p.tallyStep {
		cn.doTally(cn.rec(k + 1))
		return 0
	}
	return cn.rec(k + 1)
}

// doTally adds n critical groundings to the pivot's atom.
func (cn *counter) doTally(n int64) {
	if n == 0 || cn.over {
		return
	}
	l := &cn.p.lits[cn.p.pivot]
	id := cn.atomID(l)
	if id < 0 {
		return
	}
	n *= cn.mult
	if cn.w.preds[l.pred].has(id) == l.neg {
		n = -n // the pivot literal is false: the grounding is false
	}
	cn.emit(l.pred, id, n)
}

// plusBinding returns the current binding of the "+" variables (nil
// without them).
func (cn *counter) plusBinding() []mln.ConstID {
	if len(cn.p.plus) == 0 {
		return nil
	}
	cn.plusBuf = cn.plusBuf[:0]
	for _, t := range cn.p.plus {
		cn.plusBuf = append(cn.plusBuf, cn.term(t))
	}
	return cn.plusBuf
}

// expand handles a leaf of the existential plan: every universal literal
// is false; the existential literals' instances decide.
func (cn *counter) expand() {
	p := cn.p
	if cn.exAtoms == nil {
		cn.exAtoms = map[[2]int64]uint8{}
	}
	clear(cn.exAtoms)
	trueAtoms := 0
	var ev []int
	for v := p.univ; v < len(p.varType); v++ {
		ev = append(ev, v)
	}
	stop := !cn.enumVars(ev, func() bool {
		for j := range p.lits {
			l := &p.lits[j]
			if !l.exist {
				continue
			}
			cn.seen++
			id := cn.atomID(l)
			if id < 0 {
				continue
			}
			t := cn.w.preds[l.pred].has(id) != l.neg
			key := [2]int64{int64(l.pred), id}
			f := cn.exAtoms[key]
			if t {
				if f&1 == 0 {
					trueAtoms++
					if trueAtoms > 1 {
						return false
					}
				}
				f |= 1
			} else {
				f |= 2
			}
			cn.exAtoms[key] = f
		}
		return true
	})
	if stop {
		return
	}
	for key, f := range cn.exAtoms {
		switch {
		case trueAtoms == 1 && f == 1:
			cn.emit(mln.PredID(key[0]), key[1], 1)
		case trueAtoms == 0:
			cn.emit(mln.PredID(key[0]), key[1], -1)
		}
	}
}

// clauseError names a clause in an error.
func clauseError(m *mln.Model, c *mln.Clause, err error) error {
	return fmt.Errorf("%w (clause %s)", err, clauseString(m, c))
}

// clauseString prints a clause.
func clauseString(m *mln.Model, c *mln.Clause) string {
	s := ""
	for i, l := range c.Lits {
		if i > 0 {
			s += " v "
		}
		if l.Neg {
			s += "!"
		}
		var args []string
		for _, t := range l.Args {
			if t.IsVar() {
				args = append(args, c.Vars[t.Var()].Name)
			} else {
				args = append(args, m.ConstName(t.Const()))
			}
		}
		if l.Pred < 0 && l.Builtin.IsArith() {
			s += args[0] + " = " + l.Builtin.String() + "(" + strings.Join(args[1:], ", ") + ")"
			continue
		}
		if l.Pred < 0 {
			s += args[0] + " " + l.Builtin.String() + " " + args[1]
			continue
		}
		s += m.Preds[l.Pred].Name + "("
		for k, a := range args {
			if k > 0 {
				s += ","
			}
			s += a
		}
		s += ")"
	}
	return s
}

// bindAtom binds the variables of literal l to the arguments of true atom
// a of its predicate (wp), as mln.BindArgs does, recording the variables
// it sets in setv.
func (cn *counter) bindAtom(l *planLit, wp *cwPred, a int32, setv []int) (int, bool) {
	ar := wp.arity
	return mln.BindArgs(l.args, wp.args[int(a)*ar:int(a)*ar+ar], cn.bind, setv)
}

// unbind clears the variables bindAtom set.
func (cn *counter) unbind(setv []int) {
	for _, v := range setv {
		cn.bind[v] = -1
	}
}

// each calls f on every true atom of the predicate when all, else on
// cands.
func (wp *cwPred) each(all bool, cands []int32, f func(a int32)) {
	if all {
		for a := 0; a < wp.numTrue(); a++ {
			f(int32(a))
		}
		return
	}
	for _, a := range cands {
		f(a)
	}
}
