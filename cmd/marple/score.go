package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/marple-mln/marple/eval"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/syntax"
)

const scoreSynopsis = `-i model.mln -e evidence.db -w world.result -q Pred1,Pred2

Scores a world against the model: the world is the evidence plus the query
atoms of the -w file, a result file of marple infer or Alchemy's infer (MAP
lines "Smokes(Anna)" list the true atoms, "Smokes(Anna) 1" lines give each
value; the query atoms it does not list are false). Prints, at full
precision, the world's MaxWalkSAT cost (what MAP minimises), its
log-weight (the weights of the satisfied soft ground clauses: log P + log
Z), the hard ground clauses it violates, and per formula the ground clauses
that add to the cost and their weight, so that the answers of two systems
can be compared on the same model.`

func runScore(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "score", scoreSynopsis)
	var (
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated")
		evidence   = fs.String("e", "", "evidence database file(s) (.db), comma-separated")
		world      = fs.String("w", "", "the world's query atoms: a result file (required)")
		verbose    = fs.Bool("v", false, "report every stage on stderr")
	)
	var wf worldFlags
	wf.register(true, fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := wf.check(); err != nil {
		return err
	}
	if *world == "" {
		return usagef("no world: give -w world.result")
	}
	if wf.query == "" {
		return usagef("no query predicates: give -q Pred1,Pred2 (the predicates the world file gives)")
	}
	atoms, err := eval.LoadAtoms(*world)
	if err != nil {
		return err
	}
	p := newProgress(e.stderr, *verbose)
	m, db, err := loadProblem(ctx, p, &wf, splitList(*modelFiles), splitList(*evidence))
	if err != nil {
		return err
	}
	net, _, err := groundProblem(ctx, p, e, &wf, m, db)
	if err != nil {
		return err
	}
	if m.Dialect == syntax.Tuffy {
		atoms = tuffyAtoms(atoms)
	}
	// The world: the -w atoms true at 0.5 or more, the other unknown atoms
	// false. An atom of the file that is not an unknown atom of the
	// network is evidence or not a query atom: it must agree with the
	// evidence or be named in the summary.
	y := make([]bool, net.NumAtoms())
	known := make(map[string]bool, net.NumAtoms())
	for a := range y {
		name := net.AtomName(int32(a))
		known[name] = true
		if v, ok := atoms.Get(name); ok {
			y[a] = v >= 0.5
		}
	}
	outside := 0
	for i := 0; i < atoms.Len(); i++ {
		if a := atoms.Atom(i); !known[a.Key] && atoms.Value(i) >= 0.5 {
			outside++
		}
	}
	s := infer.ScoreWorld(net, y)
	w := e.stdout
	full := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	fmt.Fprintf(w, "cost\t%s\n", full(s.Cost))
	fmt.Fprintf(w, "log-weight\t%s\n", full(s.LogWeight))
	fmt.Fprintf(w, "hard clauses violated\t%d (%d by the evidence alone)\n", s.HardViolated, s.HardFalse)
	fmt.Fprintf(w, "atoms\t%d unknown, %d true in the world; %d true atoms of -w are not unknown query atoms (evidence, or not asked for)\n",
		net.NumAtoms(), countTrue(y), outside)
	fmt.Fprintln(w, "formula\tviolated\thard violated\tcost")
	for i, f := range s.Formulas {
		fm := m.Formulas[i]
		if fm.Synthetic || fm.AST == nil {
			continue
		}
		text := syntax.FormulaString(fm.AST)
		if fm.Hard {
			text += "."
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\n", text, f.Violated, f.Hard, full(f.Cost))
	}
	return nil
}

func countTrue(y []bool) int {
	n := 0
	for _, v := range y {
		if v {
			n++
		}
	}
	return n
}

// tuffyAtoms returns the atoms of a world file written by Tuffy, whose
// string constants are quoted (Cancer("Anna")), named as the Tuffy
// dialect names them (syntax.TuffyConst: Cancer(Anna)).
func tuffyAtoms(in *eval.AtomSet) *eval.AtomSet {
	out := &eval.AtomSet{}
	for i := 0; i < in.Len(); i++ {
		a := in.Atom(i)
		args := make([]string, len(a.Args))
		for j, c := range a.Args {
			args[j] = syntax.TuffyConst(c)
		}
		out.SetArgs(a.Pred, args, in.Value(i)) // the names come from a parsed file: no error
	}
	return out
}
