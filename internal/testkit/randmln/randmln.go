// Package randmln generates small random Markov logic networks as Alchemy
// text (a .mln model and a .db evidence file) for brute-force tests: a few
// types of two or three constants, two to four predicates of arity one or
// two, two to five formulas mixing !, ^, v, =>, <=>, EXIST, "+" variables,
// = and != (and < on a numeric type), hard formulas and weights of both
// signs, and evidence with true, false and "?" atoms, keeping the number of
// unknown ground atoms small enough to enumerate every world.
//
// The same seed always gives the same case.
package randmln

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// Config bounds a generated case. Zero fields take the defaults.
type Config struct {
	MaxUnknown  int // unknown ground atoms, at most (default 12)
	MaxFormulas int // formulas, at most (default 5; at least 2 are made)
	MaxAtoms    int // atoms and comparisons per formula, at most (default 4)
}

// Case is a random MLN problem.
type Case struct {
	Seed int64
	MLN  string // the model, Alchemy syntax
	DB   string // the evidence, Alchemy syntax
	// Query names the query predicates, OpenWorld further open-world
	// predicates (Alchemy's -ow); all the others are closed world.
	Query     []string
	OpenWorld []string
	// Unknown is the number of unknown ground atoms under that world
	// assumption.
	Unknown int
}

// Generate returns the case of seed with the default configuration.
func Generate(seed int64) *Case { return GenerateConfig(seed, Config{}) }

type typ struct {
	name    string
	consts  []string
	vars    []string
	numeric bool
}

type pred struct {
	name string
	args []int // type indices
}

type gen struct {
	r      *rand.Rand
	cfg    Config
	types  []typ
	preds  []pred
	atoms  int // atoms used in the current formula
	exists int
	plus   string // the "+" variable of the current formula
	scope  []scoped
}

type scoped struct {
	name string
	t    int
}

// GenerateConfig returns the case of seed.
func GenerateConfig(seed int64, cfg Config) *Case {
	if cfg.MaxUnknown <= 0 {
		cfg.MaxUnknown = 12
	}
	if cfg.MaxFormulas < 2 {
		cfg.MaxFormulas = 5
	}
	if cfg.MaxAtoms <= 0 {
		cfg.MaxAtoms = 4
	}
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x6d6c6e)), cfg: cfg}
	var mlnText strings.Builder

	// Types.
	nt := 1 + g.r.IntN(2)
	for i := 0; i < nt; i++ {
		t := typ{name: "t" + string(rune('a'+i))}
		n := 2 + g.r.IntN(2)
		for k := 1; k <= n; k++ {
			t.consts = append(t.consts, fmt.Sprintf("%c%d", 'A'+i, k))
		}
		t.vars = []string{fmt.Sprintf("%c1", 'x'+i), fmt.Sprintf("%c2", 'x'+i)}
		g.types = append(g.types, t)
	}
	if g.r.IntN(4) == 0 {
		t := typ{name: "tn", numeric: true, vars: []string{"n1", "n2"}}
		n := 2 + g.r.IntN(2)
		for k := 1; k <= n; k++ {
			t.consts = append(t.consts, fmt.Sprint(k))
		}
		g.types = append(g.types, t)
	}
	for _, t := range g.types {
		fmt.Fprintf(&mlnText, "%s = {%s}\n", t.name, strings.Join(t.consts, ", "))
	}

	// Predicates.
	np := 2 + g.r.IntN(3)
	for i := 0; i < np; i++ {
		p := pred{name: fmt.Sprintf("P%d", i)}
		ar := 1 + g.r.IntN(2)
		var names []string
		for j := 0; j < ar; j++ {
			t := g.r.IntN(len(g.types))
			p.args = append(p.args, t)
			names = append(names, g.types[t].name)
		}
		g.preds = append(g.preds, p)
		fmt.Fprintf(&mlnText, "%s(%s)\n", p.name, strings.Join(names, ", "))
	}

	// Formulas. A formula the front end rejects (a variable only in
	// comparisons, an unsatisfiable hard formula...) is drawn again.
	nf := 2 + g.r.IntN(cfg.MaxFormulas-1)
	for i := 0; i < nf; i++ {
		for try := 0; try < 20; try++ {
			hard := g.r.IntN(5) == 0
			g.atoms, g.plus = 0, ""
			if !hard && g.r.IntN(3) == 0 {
				t := g.r.IntN(len(g.types))
				g.plus = g.types[t].vars[g.r.IntN(2)]
			}
			f := g.formula(2)
			var line string
			switch {
			case hard:
				line = f + ".\n"
			case g.r.IntN(10) == 0:
				line = f + "\n" // no weight: 0
			default:
				w := float64(g.r.IntN(501)-250) / 100
				line = fmt.Sprintf("%.2f %s\n", w, f)
			}
			if m, err := mln.ParseModel("check.mln", mlnText.String()+line); err == nil && m.Compile() == nil {
				mlnText.WriteString(line)
				break
			}
		}
	}

	c := &Case{Seed: seed, MLN: mlnText.String()}

	// World assumption.
	perm := g.r.Perm(np)
	nq := 1 + g.r.IntN(2)
	open := make([]bool, np)
	for _, p := range perm[:nq] {
		c.Query = append(c.Query, g.preds[p].name)
		open[p] = true
	}
	if np > nq && g.r.IntN(5) == 0 {
		p := perm[nq]
		c.OpenWorld = append(c.OpenWorld, g.preds[p].name)
		open[p] = true
	}

	// Evidence: for each ground atom, listed true, false, unknown or not
	// listed; then unknown atoms are made evidence until few enough remain.
	type atom struct {
		text string
		val  int // 0 unlisted, 1 true, 2 false, 3 "?"
		open bool
	}
	var atoms []atom
	for pi, p := range g.preds {
		g.tuples(p.args, func(args []string) {
			a := atom{text: p.name + "(" + strings.Join(args, ",") + ")", open: open[pi]}
			switch r := g.r.Float64(); {
			case r < 0.35:
				a.val = 1
			case r < 0.5:
				a.val = 2
			case r < 0.6:
				a.val = 3
			}
			atoms = append(atoms, a)
		})
	}
	unknown := func(a atom) bool { return a.val == 3 || (a.val == 0 && a.open) }
	var unk []int
	for i, a := range atoms {
		if unknown(a) {
			unk = append(unk, i)
		}
	}
	g.r.Shuffle(len(unk), func(i, j int) { unk[i], unk[j] = unk[j], unk[i] })
	for len(unk) > cfg.MaxUnknown {
		atoms[unk[0]].val = 1 + g.r.IntN(2)
		unk = unk[1:]
	}
	c.Unknown = len(unk)
	var db strings.Builder
	for _, a := range atoms {
		switch a.val {
		case 1:
			db.WriteString(a.text + "\n")
		case 2:
			db.WriteString("!" + a.text + "\n")
		case 3:
			db.WriteString("?" + a.text + "\n")
		}
	}
	c.DB = db.String()
	return c
}

// tuples calls fn with every tuple of constants over the types.
func (g *gen) tuples(ts []int, fn func([]string)) {
	args := make([]string, len(ts))
	var rec func(i int)
	rec = func(i int) {
		if i == len(ts) {
			fn(args)
			return
		}
		for _, c := range g.types[ts[i]].consts {
			args[i] = c
			rec(i + 1)
		}
	}
	rec(0)
}

// formula returns a random formula of at most the given depth.
func (g *gen) formula(depth int) string {
	if depth == 0 || g.atoms >= g.cfg.MaxAtoms-1 || g.r.IntN(3) == 0 {
		return g.literal()
	}
	switch g.r.IntN(8) {
	case 0:
		return "!(" + g.formula(depth-1) + ")"
	case 1:
		// EXIST e: the body uses e in its first atom.
		t := g.r.IntN(len(g.types))
		g.exists++
		e := fmt.Sprintf("e%d", g.exists)
		g.scope = append(g.scope, scoped{e, t})
		body := g.atomWith(e, t)
		if g.atoms < g.cfg.MaxAtoms && g.r.IntN(2) == 0 {
			ops := []string{" v ", " ^ ", " => "}
			body = g.binary(body, ops[g.r.IntN(len(ops))], g.formula(depth-1))
		}
		g.scope = g.scope[:len(g.scope)-1]
		return "EXIST " + e + " (" + body + ")"
	}
	ops := []string{" ^ ", " v ", " => ", " <=> ", " v ", " ^ "}
	op := ops[g.r.IntN(len(ops))]
	a := g.formula(depth - 1)
	b := g.formula(depth - 1)
	return g.binary(a, op, b)
}

// binary joins two formulas. The parser reads "v (" as an atom of a
// predicate named v, so a disjunction never has "(" after the "v".
func (g *gen) binary(a, op, b string) string {
	if op != " v " {
		return "(" + a + ")" + op + "(" + b + ")"
	}
	switch {
	case isLiteral(b):
		return "(" + a + ") v " + b
	case isLiteral(a):
		return "(" + b + ") v " + a
	}
	return "!((!(" + a + ")) ^ (!(" + b + ")))"
}

// isLiteral reports whether f is an atom, a negated atom or a comparison
// (no connective at top level, no quantifier).
func isLiteral(f string) bool {
	if strings.HasPrefix(f, "EXIST") || strings.HasPrefix(f, "(") || strings.HasPrefix(f, "!(") {
		return false
	}
	depth := 0
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ' ':
			if depth == 0 && i+2 < len(f) && (f[i+1] == 'v' || f[i+1] == '^' || f[i+1] == '=' || f[i+1] == '<') && f[i+2] == ' ' {
				return false
			}
		}
	}
	return true
}

// literal returns an atom, a negated atom or a comparison.
func (g *gen) literal() string {
	if g.r.IntN(7) == 0 {
		t := g.r.IntN(len(g.types))
		x, y := strings.TrimPrefix(g.varOf(t), "+"), strings.TrimPrefix(g.varOf(t), "+")
		if g.r.IntN(4) == 0 {
			y = g.types[t].consts[g.r.IntN(len(g.types[t].consts))]
		}
		g.atoms++
		op := " = "
		switch {
		case g.types[t].numeric && g.r.IntN(2) == 0:
			op = []string{" < ", " <= ", " > ", " >= "}[g.r.IntN(4)]
		case g.r.IntN(2) == 0:
			op = " != "
		}
		return x + op + y
	}
	p := g.preds[g.r.IntN(len(g.preds))]
	s := g.atom(p, "", -1)
	if g.r.IntN(2) == 0 {
		return "!" + s
	}
	return s
}

// atomWith returns an atom with variable e (of type t) in some argument
// of that type, choosing a predicate that has one (or a comparison).
func (g *gen) atomWith(e string, t int) string {
	var cands []pred
	for _, p := range g.preds {
		for _, a := range p.args {
			if a == t {
				cands = append(cands, p)
				break
			}
		}
	}
	if len(cands) == 0 {
		g.atoms++
		return e + " = " + g.types[t].consts[g.r.IntN(len(g.types[t].consts))]
	}
	s := g.atom(cands[g.r.IntN(len(cands))], e, t)
	if g.r.IntN(3) == 0 {
		return "!" + s
	}
	return s
}

// atom renders p with random arguments; when e is set, the first argument
// of type t is e.
func (g *gen) atom(p pred, e string, t int) string {
	g.atoms++
	args := make([]string, len(p.args))
	for j, at := range p.args {
		switch {
		case e != "" && at == t:
			args[j], e = e, ""
		case g.r.IntN(7) == 0:
			cs := g.types[at].consts
			args[j] = cs[g.r.IntN(len(cs))]
		default:
			args[j] = g.varOf(at)
		}
	}
	return p.name + "(" + strings.Join(args, ",") + ")"
}

// varOf returns a variable of type t: a free one, or an existential one
// in scope.
func (g *gen) varOf(t int) string {
	for i := len(g.scope) - 1; i >= 0; i-- {
		if g.scope[i].t == t && g.r.IntN(3) == 0 {
			return g.scope[i].name
		}
	}
	v := g.types[t].vars[g.r.IntN(2)]
	if v == g.plus {
		return "+" + v
	}
	return v
}

// Load parses the case's model and evidence, compiles the model and
// returns them with the query and open-world predicates.
func (c *Case) Load() (m *mln.Model, db *mln.Database, query, openWorld []mln.PredID, err error) {
	m, err = mln.ParseModel(fmt.Sprintf("rand%d.mln", c.Seed), c.MLN)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	db, err = mln.ParseDatabase(m, fmt.Sprintf("rand%d.db", c.Seed), c.DB)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err = m.Compile(); err != nil {
		return nil, nil, nil, nil, err
	}
	look := func(names []string) ([]mln.PredID, error) {
		var ids []mln.PredID
		for _, n := range names {
			p, ok := m.Pred(n)
			if !ok {
				return nil, fmt.Errorf("randmln: no predicate %s", n)
			}
			ids = append(ids, p.ID)
		}
		return ids, nil
	}
	if query, err = look(c.Query); err != nil {
		return nil, nil, nil, nil, err
	}
	if openWorld, err = look(c.OpenWorld); err != nil {
		return nil, nil, nil, nil, err
	}
	return m, db, query, openWorld, nil
}

// String renders the case for test failure messages.
func (c *Case) String() string {
	return fmt.Sprintf("seed %d, query %v, open world %v\n--- mln\n%s--- db\n%s", c.Seed, c.Query, c.OpenWorld, c.MLN, c.DB)
}
