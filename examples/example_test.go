package examples_test

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/invent"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
	"github.com/marple-mln/marple/transfer"
)

// check stops the example on an error.
func check(err error) {
	if err != nil {
		panic(err)
	}
}

// Example_infer loads the weighted friends-and-smokers model with the test
// evidence, prints the most probable world of the query predicates (MAP
// with the default engine: the true atoms, evidence first) and then the
// probabilities of the Cancer atoms from the MC-SAT engine (here exact:
// every connected component is small enough to enumerate).
func Example_infer() {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"smokers/smoking-weighted.mln"}, []string{"smokers/smoking-test.db"})
	check(err)
	query, err := m.PredIDs("Smokes,Cancer")
	check(err)
	net, err := ground.Ground(ctx, m, db, ground.Options{Query: query})
	check(err)
	res, err := engines.Default().Solve(ctx, net, infer.Options{Seed: 1})
	check(err)
	check(infer.WriteMAP(os.Stdout, db, net, res.Assign, query))
	s := engines.DefaultSettings()
	s.Chains = 4 // the default is one per core; a fixed number gives the same output on every machine
	mcsat, err := engines.NewMarginal("mcsat", s)
	check(err)
	probs, err := mcsat.Marginals(ctx, net, infer.Options{Seed: 1})
	check(err)
	check(infer.WriteMarginals(os.Stdout, net, probs, query[1:])) // Cancer only
	// Output:
	// Smokes(Ivan)
	// Smokes(Nick)
	// Smokes(John)
	// Smokes(Michael)
	// Cancer(Ivan)
	// Cancer(John)
	// Cancer(Michael)
	// Cancer(Nick)
	// Cancer(Ivan) 0.817574
	// Cancer(John) 0.705644
	// Cancer(Katherine) 0.602981
	// Cancer(Lars) 0.602981
	// Cancer(Michael) 0.768862
	// Cancer(Nick) 0.817574
}

// Example_learn learns the weights of the unweighted friends-and-smokers
// model from the training database with CDA (Smokes and Cancer are the
// query predicates, Friends the evidence) and prints the model with its
// weights rounded. No MAP engine is given: learning predicts with the
// default one (engines.Default).
func Example_learn() {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"smokers/smoking.mln"}, []string{"smokers/smoking-train.db"})
	check(err)
	query, err := m.PredIDs("Smokes,Cancer")
	check(err)
	exs, _, err := learn.NewExamples(ctx, m, []*mln.Database{db}, learn.ExampleOptions{Query: query})
	check(err)
	_, err = learn.Online(ctx, m, exs, learn.DefaultCDA(), learn.Settings{Passes: 20, Seed: 1})
	check(err)
	for i, w := range m.Weights {
		m.Weights[i] = math.Round(w*100) / 100
	}
	check(mln.WriteModel(os.Stdout, m))
	// Output:
	// // predicates
	// Friends(person,person)
	// Smokes(person)
	// Cancer(person)
	//
	// // formulas
	// 0.09 Smokes(x) => Cancer(x)
	// 0.04 Friends(x,y) => (Smokes(x) <=> Smokes(y))
}

// Example_learnstructBatch learns clauses for the friends-and-smokers
// predicates from the training database by beam search (Alchemy's
// learnstruct), with at most two variables and three literals per clause,
// and prints the learned clauses of two or more literals (the model also
// keeps a unit clause per predicate).
func Example_learnstructBatch() {
	ctx := context.Background()
	m, dbs, err := mln.LoadMultiple(ctx, []string{"smokers/smoking.mln"}, []string{"smokers/smoking-train.db"})
	check(err)
	s := structure.DefaultSettings()
	s.Model = m
	s.MaxVars, s.MaxNumPredicates = 2, 3
	r, err := structure.LearnBatch(ctx, structure.MethodBeam, dbs, s, structure.DefaultScoring())
	check(err)
	for _, c := range r.Clauses {
		if len(c.Lits) > 1 {
			fmt.Println(m.ClauseString(c))
		}
	}
	// Output:
	// !Friends(a1,a2) v !Smokes(a2) v !Cancer(a1)
	// Smokes(a1) v !Cancer(a1)
	// !Smokes(a1) v !Friends(a1,a1)
}

// Example_osl runs OSL, online structure learning, on two citations of a
// tiny CiteSeer-like training set, starting from the empty CiteSeer model
// with the CiteSeer mode declarations: each citation (constant of type
// bib) is one example, InField the query predicate. It prints the clauses
// OSL adds with their weights.
func Example_osl() {
	ctx := context.Background()
	m, err := mln.LoadModel("citeseer/empty.mln")
	check(err)
	db, err := mln.ParseDatabase(m, "train.db", `
Next(P1, P0)
Next(P2, P1)
Token(Tsmith, P0, B1)
Token(Tlogic, P1, B1)
InField(B1, Fauthor, P0)
InField(B1, Ftitle, P1)
Token(Tjones, P0, B2)
Token(Tmarkov, P1, B2)
Token(Tnets, P2, B2)
InField(B2, Fauthor, P0)
InField(B2, Ftitle, P1)
InField(B2, Ftitle, P2)
`)
	check(err)
	check(m.Compile())
	modes, err := structure.LoadModes(m, "citeseer/citeseer.modes")
	check(err)
	query, err := m.PredIDs("InField")
	check(err)
	bib, _ := m.Type("bib")
	src, err := learn.NewPartitionSource(m, db, query, bib.ID, ground.Options{})
	check(err)
	before := len(m.Formulas)
	osl := &structure.OSL{Modes: modes, MaxLen: 2}
	_, err = osl.Learn(ctx, src, learn.Settings{Seed: 1})
	check(err)
	for _, f := range m.Formulas[before:] {
		fmt.Printf("%.2f %s\n", m.Weights[f.Params[""]], m.ClauseString(m.Clauses[f.Clauses[0]]))
	}
	// Output:
	// 0.50 InField(a1,Fauthor,a2) v !Token(Tsmith,a2,a1)
	// 0.29 InField(a1,Fauthor,a2) v !Next(a3,a2)
	// 0.50 InField(a1,Ftitle,a2) v !Token(Tlogic,a2,a1)
	// 0.50 InField(a1,Ftitle,a2) v !Next(a2,a3)
}

// Example_invent clusters the people and the predicates of the
// friends-and-smokers training database with MRC (predicate invention)
// and prints the invented predicates: the clusters of people.
func Example_invent() {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"smokers/smoking.mln"}, []string{"smokers/smoking-train.db"})
	check(err)
	data, err := invent.FromDatabases(m, []*mln.Database{db}, true) // closed world
	check(err)
	model, err := invent.Learn(ctx, data, invent.Options{Seed: 1, Lambda: 1})
	check(err)
	inv, _ := model.Rules("C")
	for _, c := range inv {
		fmt.Print(c.Name, ":")
		for _, x := range c.Members {
			fmt.Print(" ", data.SymbolName(c.Domain, x))
		}
		fmt.Println()
	}
	// Output:
	// C1: Anna Edward
	// C2: Bob Chris Daniel Frank Gary Helen
	// C3: Anna Edward Frank Gary
	// C4: Bob Chris Daniel Helen
	// C5: Anna
	// C6: Bob Daniel Gary
	// C7: Chris Helen
	// C8: Edward Frank
}

// Example_transfer discovers the clique templates of deep transfer (DTM)
// in the friends-and-smokers training database, closed world, and prints
// the three best with their score and their best clique.
func Example_transfer() {
	src, err := transfer.LoadSource([]string{"smokers/smoking.mln"}, []string{"smokers/smoking-train.db"},
		transfer.SourceOptions{ClosedWorld: true})
	check(err)
	res, err := transfer.Discover(context.Background(), src, transfer.Options{K: 1, Enum: transfer.EnumOptions{MaxLiterals: 2}})
	check(err)
	for _, t := range res.Templates[:3] {
		fmt.Printf("%.3f %s - %s\n", t.Score, t.Template, t.Top[0].Format(t.Template))
	}
	// Output:
	// 0.468 r(x,y), r(y,x) - Friends(x,y), Friends(y,x)
	// 0.065 r(x), s(x) - Smokes(x), Cancer(x)
	// 0.016 r(x), s(x,y) - Cancer(x), Friends(x,y)
}
