package mln_test

import (
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// pf is a random formula over P(t), Q(t), R(t, t) and the variables x, y
// (and z, quantified), printable in pracmln's two grammars and evaluable
// in a world.
type pf struct {
	op   string // "P", "Q", "R", "=", "!", "^", "v", "=>", "<=>", "EXIST"
	args []string
	kids []*pf
}

func randPF(r *rand.Rand, depth int, vars []string) *pf {
	if depth == 0 || r.Intn(4) == 0 {
		v := func() string { return vars[r.Intn(len(vars))] }
		switch r.Intn(5) {
		case 0:
			return &pf{op: "P", args: []string{v()}}
		case 1:
			return &pf{op: "Q", args: []string{v()}}
		case 2:
			return &pf{op: "=", args: []string{v(), v()}}
		default:
			return &pf{op: "R", args: []string{v(), v()}}
		}
	}
	switch r.Intn(7) {
	case 0:
		return &pf{op: "!", kids: []*pf{randPF(r, depth-1, vars)}}
	case 1:
		if len(vars) < 3 {
			return &pf{op: "EXIST", kids: []*pf{randPF(r, depth-1, append(vars[:len(vars):len(vars)], "z"))}}
		}
	}
	ops := []string{"^", "v", "=>", "<=>"}
	return &pf{op: ops[r.Intn(len(ops))], kids: []*pf{randPF(r, depth-1, vars), randPF(r, depth-1, vars)}}
}

func (f *pf) text(prac bool) string {
	name := func(v string) string {
		if prac {
			return "?" + v
		}
		return v
	}
	switch f.op {
	case "P", "Q", "R":
		as := make([]string, len(f.args))
		for i, a := range f.args {
			as[i] = name(a)
		}
		return f.op + "(" + strings.Join(as, ",") + ")"
	case "=":
		return "(" + name(f.args[0]) + " = " + name(f.args[1]) + ")"
	case "!":
		return "!(" + f.kids[0].text(prac) + ")"
	case "EXIST":
		return "(EXIST " + name("z") + " (" + f.kids[0].text(prac) + "))"
	}
	return "(" + f.kids[0].text(prac) + " " + f.op + " " + f.kids[1].text(prac) + ")"
}

func (f *pf) eval(b map[string]string, consts []string, atom func(pred string, args []string) bool) bool {
	switch f.op {
	case "P", "Q", "R":
		as := make([]string, len(f.args))
		for i, a := range f.args {
			as[i] = b[a]
		}
		return atom(f.op, as)
	case "=":
		return b[f.args[0]] == b[f.args[1]]
	case "!":
		return !f.kids[0].eval(b, consts, atom)
	case "EXIST":
		old := b["z"]
		defer func() { b["z"] = old }()
		for _, c := range consts {
			b["z"] = c
			if f.kids[0].eval(b, consts, atom) {
				return true
			}
		}
		return false
	}
	x, y := f.kids[0].eval(b, consts, atom), f.kids[1].eval(b, consts, atom)
	switch f.op {
	case "^":
		return x && y
	case "v":
		return x || y
	case "=>":
		return !x || y
	}
	return x == y
}

func writeTemp(t *testing.T, name, src string) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pracmln weighs a formula as a whole: a world's log-weight is Σ w·(true
// groundings of the formula), whatever its CNF, where Alchemy splits the
// weight over the CNF's clauses. Checked by enumerating every world of
// random formulas, in both of pracmln's grammars.
func TestPracmlnWholeFormulaBrute(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	consts := []string{"A", "B"}
	checked, refused := 0, 0
	for trial := 0; trial < 120; trial++ {
		f := randPF(r, 3, []string{"x", "y"})
		prac := trial%2 == 1
		w := math.Round((r.Float64()*4-2)*100) / 100
		src := "t = {A, B}\nP(t)\nQ(t)\nR(t, t)\n" + strconv.FormatFloat(w, 'f', 2, 64) + " " + f.text(prac) + "\n"
		path := writeTemp(t, "m.mln", src)
		m, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: syntax.Pracmln}, path)
		if err != nil && strings.Contains(err.Error(), "cannot infer the type") {
			continue // a variable only compared: no type
		}
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		db := mln.NewDatabase(m)
		if err := m.Compile(); err != nil {
			if strings.Contains(err.Error(), "weighs a formula as a whole") {
				refused++
				continue
			}
			t.Fatalf("%s: %v", src, err)
		}
		var open []mln.PredID
		for i := range m.Preds {
			open = append(open, mln.PredID(i))
		}
		p := brute.NewProblem(m, db, open)
		n := len(p.Atoms)
		var offset float64
		for wi := 0; wi < 1<<n; wi++ {
			world := make([]bool, n)
			for i := range world {
				world[i] = wi>>i&1 == 1
			}
			atom := func(pred string, args []string) bool {
				pr, _ := m.Pred(pred)
				ids := make([]mln.ConstID, len(args))
				for i, a := range args {
					ids[i], _ = m.Const(a)
				}
				k, ok := p.Index(pr.ID, ids)
				if !ok {
					t.Fatalf("no atom %s%v", pred, args)
				}
				return world[k]
			}
			want := 0.0
			for _, x := range consts {
				for _, y := range consts {
					if usesVar(f, "y") || y == "A" {
						if usesVar(f, "x") || x == "A" {
							if f.eval(map[string]string{"x": x, "y": y}, consts, atom) {
								want += w
							}
						}
					}
				}
			}
			got := p.Eval(world).Score
			if wi == 0 {
				offset = got - want
			} else if d := got - want - offset; math.Abs(d) > 1e-9 {
				t.Fatalf("%s: world %d: clause score %v, formula score %v + constant %v", src, wi, got, want, offset)
			}
		}
		checked++
	}
	if checked < 80 {
		t.Errorf("only %d formulas checked (%d refused)", checked, refused)
	}
}

// usesVar reports whether formula f has free variable v.
func usesVar(f *pf, v string) bool {
	for _, a := range f.args {
		if a == v {
			return true
		}
	}
	for _, k := range f.kids {
		if usesVar(k, v) {
			return true
		}
	}
	return false
}

// The pracmln example written for the tests: weights as expressions,
// ?-variables with lower-case constants, a domain declared in the .db
// file, -float('inf') and #fixweight; marginals checked by enumeration.
func TestPracmlnDialectBrute(t *testing.T) {
	m, net := loadDialect(t, syntax.Pracmln, "pracmln_birds.mln", "pracmln_birds.db", "flies")
	if got := len(m.Types[0].Consts); got != 3 {
		t.Errorf("entity has %d constants, want 3 (one from the .db domain declaration)", got)
	}
	ps := brute.Marginals(net)
	// Per entity e: bird(e) is evidence; penguin(e) and flies(e) unknown
	// (pracmln's open world), penguin => bird hard, and
	//   log(0.9/0.1)  bird(e) ^ flies(e)  (fixed)
	//   logx(0)       penguin(e) ^ flies(e)       (-100)
	//   -float('inf') penguin(e) ^ !bird(e)       (hard: never)
	w1, w2 := math.Log(9), -100.0
	for _, c := range []struct {
		who  string
		bird bool
	}{{"tweety", true}, {"opus", true}, {"rock", false}} {
		var z, pf float64
		for _, pen := range []bool{false, true} {
			if pen && !c.bird {
				continue // hard
			}
			for _, fl := range []bool{false, true} {
				e := 0.0
				if c.bird && fl {
					e += w1
				}
				if pen && fl {
					e += w2
				}
				z += math.Exp(e)
				if fl {
					pf += math.Exp(e)
				}
			}
		}
		if got, want := marginal(t, m, net, ps, "flies("+c.who+")"), pf/z; math.Abs(got-want) > 1e-9 {
			t.Errorf("P(flies(%s)) = %v, want %v", c.who, got, want)
		}
	}
	if !m.Formulas[0].Fixed || m.Formulas[1].Fixed {
		t.Errorf("#fixweight fixed formulas %v, %v; want the first only", m.Formulas[0].Fixed, m.Formulas[1].Fixed)
	}
}

func TestPracmlnRefusals(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"P(t)\n#unique{+?x}\n0 P(+?x)\n", "#unique"},
		{"S(t)\n1 S(x)\nR(S(x)) = 0.3\n", "on a ground formula"},
		{"P(t)\nlog(0) P(x)\n", "math domain error"},
		{"P(t)\n1/0 P(x)\n", "division by zero"},
		{"P(t)\nfloat('nan') P(x)\n", "not a number"},
		{"P(t)\n#group\n", "formula groups"},
	} {
		path := writeTemp(t, "m.mln", c.src)
		_, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: syntax.Pracmln}, path)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "m.mln:") {
			t.Errorf("%q: error %v, want one with a position and %q", c.src, err, c.msg)
		}
	}
	path := writeTemp(t, "m.mln", "P(t)\n1 P(?x)\n")
	m, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: syntax.Pracmln}, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"1.5 P(A)\n", "P(A)\n---\nP(B)\n", "q = {A}\n", "t = {A\n"} {
		if _, err := mln.ParseDatabase(m, "e.db", db); err == nil || !strings.Contains(err.Error(), "e.db:") {
			t.Errorf("%q: error %v, want a positioned refusal", db, err)
		}
	}
}
