package eval_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/marple-mln/marple/eval"
)

func Example() {
	// A MAP result (true atoms only) and the truth (closed world).
	pred, _ := eval.ReadAtoms(strings.NewReader(`
InField(B1,Fauthor,P00)
InField(B1,Fauthor,P01)
InField(B1,Ftitle,P02)
`), "map.result")
	truth, _ := eval.ReadAtoms(strings.NewReader(`
InField(B1,Fauthor,P00)
InField(B1,Ftitle,P01)
InField(B1,Ftitle,P02)
InField(B1,Ftitle,P03)   // position without a token: filtered out
`), "truth.db")
	evidence, _ := eval.ReadAtoms(strings.NewReader(`
Token(Tsmith,P00,B1)
Token(Tfoo,P01,B1)
Token(Tbar,P02,B1)
`), "evidence.db")

	r, err := eval.EvaluateMAP(pred, truth, eval.Options{
		Query:        []string{"InField"},
		Filter:       eval.TokenFilter(evidence),
		UniverseSize: map[string]int{"InField": 3 * 4}, // 3 tokens x 4 fields
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := r.Pred("InField")
	fmt.Printf("P=%.3f R=%.3f F1=%.3f Hamming=%d (%.3f)\n", m.Precision, m.Recall, m.F1, m.Hamming, m.HammingNorm)
	r.WriteText(os.Stdout)
	// Output:
	// P=0.667 R=0.667 F1=0.667 Hamming=2 (0.167)
	// pred     atoms  TP  FP  FN  TN    prec  recall      F1  Hamming   Ham/N
	// InField     12   2   1   1   8  0.6667  0.6667  0.6667        2  0.1667
	// micro       12   2   1   1   8  0.6667  0.6667  0.6667        2  0.1667
	// (atoms filtered out: 1, unknown: 0)
}

func ExampleAUCPR() {
	scores := []float64{0.9, 0.8, 0.7, 0.6}
	gold := []bool{true, false, true, false}
	fmt.Printf("AUC-PR %.4f  AP %.4f  CLL %.4f\n",
		eval.AUCPR(scores, gold), eval.AveragePrecision(scores, gold), eval.CLL(scores, gold))
	// Output:
	// AUC-PR 0.7917  AP 0.8333  CLL -0.7469
}

func ExampleF1Loss() {
	pred := []bool{true, true, false}
	gold := []bool{true, false, true}
	fmt.Printf("F1 %.3f  loss %.1f\n", eval.F1(pred, gold), eval.F1Loss(pred, gold))
	// Output:
	// F1 0.500  loss 50.0
}
