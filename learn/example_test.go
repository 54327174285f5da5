package learn_test

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// Learn two weights: parameter 0 says "a word that is capitalised starts
// an author field", parameter 1 "a lower-case word does". Each example is
// a network of unit clauses, one per atom, tied to the parameter of the
// atom's feature. The first example fixes the capitalised weight; the
// lower-case atoms are already predicted false at weight 0, so that weight
// never moves.
func Example() {
	model := &mln.Model{Weights: []float64{0, 0}}
	var exs learn.Examples
	for i := 0; i < 4; i++ {
		net := ground.NewNetwork(3)
		truth := make([]bool, 3)
		for a := int32(0); a < 3; a++ {
			capital := (i+int(a))%2 == 0
			p := int32(1)
			if capital {
				p = 0
			}
			net.AddClause([]ground.Lit{ground.MakeLit(a, false)}, 0, p, p, 1)
			truth[a] = capital
		}
		exs = append(exs, &learn.Example{Net: net, Truth: truth})
	}
	// No Solver: learning predicts with the default MAP engine
	// (engines.Default).
	st, err := learn.Online(context.Background(), model, exs, learn.DefaultCDA(), learn.Settings{Passes: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: loss per pass %v\n", st.Method, st.PassLoss)
	fmt.Printf("capitalised %+.3f, lower-case %+.3f\n", model.Weights[0], model.Weights[1])
	// Output:
	// CDA-PL: loss per pass [0.5 0]
	// capitalised +0.340, lower-case +0.000
}

// ExampleNewExamples builds the training examples of a small segmentation
// model from its training database, one per citation (constant of type
// bib), each ground over its own positions when learning reaches it, and
// learns the weights with CDA and the maximal loss. The commands marple
// learn and learnstruct make this call.
func ExampleNewExamples() {
	m, err := mln.ParseModel("seg.mln", `
Token(token, position, bib)
Next(position, position)
InField(bib, field, position)
!InField(c, Fauthor, i) v !InField(c, Ftitle, i).
Token(+w, i, c) => InField(c, +f, i)
Next(j, i) ^ InField(c, +f, i) => InField(c, +f, j)
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	db, err := mln.ParseDatabase(m, "train.db", `
Next(P1, P0)
Next(P2, P1)
Next(P3, P2)
Token(Tsmith, P0, B1)
Token(Tlogic, P1, B1)
InField(B1, Fauthor, P0)
InField(B1, Ftitle, P1)
Token(Tjones, P0, B2)
Token(Tlee, P1, B2)
Token(Tmarkov, P2, B2)
Token(Tnets, P3, B2)
InField(B2, Fauthor, P0)
InField(B2, Fauthor, P1)
InField(B2, Ftitle, P2)
InField(B2, Ftitle, P3)
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Compile(); err != nil {
		fmt.Println(err)
		return
	}
	inField, _ := m.Pred("InField")
	bib, _ := m.Type("bib")
	ctx := context.Background()
	src, _, err := learn.NewExamples(ctx, m, []*mln.Database{db}, learn.ExampleOptions{
		Query: []mln.PredID{inField.ID},
		Split: learn.SplitType, Type: bib.ID,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < src.Len(); i++ {
		ex, _ := src.Example(ctx, i)
		fmt.Printf("example %s: %d query atoms\n", ex.Name, ex.Net.NumAtoms())
	}
	st, err := learn.Online(ctx, m, src, &learn.CDA{Sigma: 0.1, Inference: learn.Prediction}, learn.Settings{Passes: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: loss per pass %.2f\n", st.Method, st.PassLoss)
	// Output:
	// example B1: 4 query atoms
	// example B2: 8 query atoms
	// CDA-PL: loss per pass [3.00 1.50 0.00 0.00]
}
