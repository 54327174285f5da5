package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/marple-mln/marple/infinite"
	"github.com/marple-mln/marple/mln"
)

const checkSynopsis = `-i model.mln [-e ev.db] [-q Pred1,Pred2]

Parses the model (and evidence), prints its types, predicates and clauses,
and the size of the ground network. Without -q, the predicates with no atom
in the evidence are the query predicates. With -infinite it also reports
whether the model is locally finite as its domains grow and whether the
uniqueness condition of its limit measure holds (docs/infinite.md).`

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "check", checkSynopsis)
	var (
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated")
		evidence   = fs.String("e", "", "evidence database file(s) (.db), comma-separated")
		noGround   = fs.Bool("noGround", false, "do not ground: only parse and compile")
		verbose    = fs.Bool("v", false, "report every stage on stderr")
		infDomains = fs.Bool("infinite", false, "also decide local finiteness and the uniqueness condition as the domains grow (docs/infinite.md)")
		fixed      = fs.String("fixed", "", "with -infinite: types whose domains do not grow, comma-separated (listed types are fixed already)")
	)
	var wf worldFlags
	wf.register(true, fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := wf.check(); err != nil {
		return err
	}
	p := newProgress(e.stderr, *verbose)
	m, db, err := loadProblem(ctx, p, &wf, splitList(*modelFiles), splitList(*evidence))
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "types: %d\n", len(m.Types))
	for _, t := range m.Types {
		fmt.Fprintf(w, "  %s: %d constants\n", t.Name, t.Size())
	}
	if wf.query == "" {
		var qs []string
		for _, pr := range m.Preds {
			if db.Count(pr.ID) == 0 && !pr.Closed {
				qs = append(qs, pr.Name)
			}
		}
		wf.query = strings.Join(qs, ",")
	}
	query, err := preds(m, wf.query, "q")
	if err != nil {
		return usagef("%v", err)
	}
	isQuery := make(map[mln.PredID]bool)
	for _, q := range query {
		isQuery[q] = true
	}
	fmt.Fprintf(w, "predicates: %d\n", len(m.Preds))
	for _, pr := range m.Preds {
		var ts []string
		for i, t := range pr.Args {
			s := m.Types[t].Name
			if pr.Unique[i] {
				s += "!"
			}
			ts = append(ts, s)
		}
		role := "evidence"
		if isQuery[pr.ID] {
			role = "query"
		} else if m.OpenByDefault(pr.ID, db) {
			role = "open world (" + m.Dialect.String() + "'s default)"
		}
		fmt.Fprintf(w, "  %s(%s)  %s, %d evidence atoms\n", pr.Name, strings.Join(ts, ","), role, db.Count(pr.ID))
	}
	hard := 0
	for _, c := range m.Clauses {
		if c.Hard {
			hard++
		}
	}
	fmt.Fprintf(w, "formulas: %d, clauses: %d (%d hard)\n", len(m.Formulas), len(m.Clauses), hard)
	var inf *infinite.Report
	if *infDomains {
		if inf, err = analyzeInfinite(m, db, query, wf.openWorld, *fixed); err != nil {
			return err
		}
	}
	if *noGround {
		if inf != nil {
			inf.Write(w)
		}
		return nil
	}
	net, _, err := groundProblem(ctx, p, e, &wf, m, db)
	if err != nil {
		return err
	}
	nh := 0
	for c := 0; c < net.NumClauses(); c++ {
		if net.IsHard(c) {
			nh++
		}
	}
	comps, largest := net.ComponentSizes()
	fmt.Fprintf(w, "ground network: %d atoms, %d clauses (%d hard), %d literals, %d components (largest %d atoms)\n",
		net.NumAtoms(), net.NumClauses(), nh, net.NumLits(), comps, largest)
	if net.HardFalse > 0 {
		fmt.Fprintf(w, "warning: the evidence alone falsifies %d hard ground clauses\n", net.HardFalse)
	}
	if inf != nil {
		inf.Evaluate(net)
		inf.Write(w)
	}
	return nil
}
