package learn

import (
	"context"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// handExample is the network of the hand-computed tests: atoms a0, a1;
// clause c0 = (a0) with parameter 0, clause c1 = (¬a0 ∨ a1) with parameter
// 1, both coefficient 1; truth a0 = a1 = true, so n(y) = (1, 1).
//
// Brute-force MAP breaks ties towards the lowest mask: (F,F), (T,F),
// (F,T), (T,T). The counts of the four worlds are
//
//	(F,F): (0,1)   (T,F): (1,0)   (F,T): (0,1)   (T,T): (1,1)
func handExample() *Example {
	net := ground.NewNetwork(2)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 0, 0, 0, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, false)}, 0, 1, 1, 1)
	return &Example{Net: net, Truth: []bool{true, true}, Name: "hand"}
}

// runHand runs method over the hand example three times (t = 1, 2, 3) and
// checks the weights after each step and the final averaged and last
// weights.
func runHand(t *testing.T, method Method, loss LabelLoss, want [][2]float64, avg [2]float64) {
	t.Helper()
	ex := handExample()
	for steps := 1; steps <= len(want); steps++ {
		model := &mln.Model{Weights: []float64{0, 0}}
		exs := make(Examples, steps)
		for i := range exs {
			exs[i] = ex
		}
		st, err := Online(context.Background(), model, exs, method,
			Settings{Solver: bruteSolver, Loss: loss, NoAverage: true})
		if err != nil {
			t.Fatal(err)
		}
		w := want[steps-1]
		if !near(st.Last[0], w[0], 1e-12) || !near(st.Last[1], w[1], 1e-12) {
			t.Errorf("%s: w_%d = %v, want %v", method.Name(), steps+1, st.Last, w)
		}
	}
	model := &mln.Model{Weights: []float64{0, 0}}
	_, err := Online(context.Background(), model, Examples{ex, ex, ex}, method,
		Settings{Solver: bruteSolver, Loss: loss})
	if err != nil {
		t.Fatal(err)
	}
	if !near(model.Weights[0], avg[0], 1e-12) || !near(model.Weights[1], avg[1], 1e-12) {
		t.Errorf("%s: average %v, want %v", method.Name(), model.Weights, avg)
	}
}

func TestHandCDAPL(t *testing.T) {
	// σ = 1, Hamming loss, w_1 = 0.
	// t=1: all worlds score 0, ŷ = (F,F); Δφ = (1,1)−(0,1) = (1,0); ρ = 2;
	//      l = [2 − 0]_+ = 2; step min{1/(1·1), 2/1} = 1; w_2 = (1,0).
	// t=2: scores (F,F) 0, (T,F) 1, (F,T) 0, (T,T) 1: ŷ = (T,F);
	//      Δφ = (0,1); ρ = 1; l = [1 − ½·0]_+ = 1; step min{1/2, 1} = ½;
	//      w_3 = ½·(1,0) + ½·(0,1) = (½,½).
	// t=3: (T,T) scores 1, the others ½: ŷ = y, Δφ = 0, w_4 = ⅔·w_3 = (⅓,⅓).
	// Average (w_2+w_3+w_4)/3 = ((1+½+⅓)/3, (0+½+⅓)/3) = (11/18, 5/18).
	runHand(t, DefaultCDA(), Hamming,
		[][2]float64{{1, 0}, {0.5, 0.5}, {1.0 / 3, 1.0 / 3}},
		[2]float64{11.0 / 18, 5.0 / 18})
}

func TestHandCDAPLF1(t *testing.T) {
	// σ = 1, loss 100(1−F1).
	// t=1: ŷ = (F,F): no predicted true atom, F1 = 0, ρ = 100; Δφ = (1,0);
	//      l = 100; step min{1, 100/1} = 1; w_2 = (1,0).
	// t=2: ŷ = (T,F): tp = 1, F1 = 2·1/(2+1) = ⅔, ρ = 100/3; Δφ = (0,1);
	//      l = 100/3; step min{½, 100/3} = ½; w_3 = (½,½).
	// t=3: ŷ = y, w_4 = (⅓,⅓) — the same path as Hamming (σ binds).
	runHand(t, DefaultCDA(), F1,
		[][2]float64{{1, 0}, {0.5, 0.5}, {1.0 / 3, 1.0 / 3}},
		[2]float64{11.0 / 18, 5.0 / 18})
}

func TestHandCDAML(t *testing.T) {
	// σ = 1, loss-augmented (Hamming) label.
	// t=1: w = 0, score+loss is the Hamming loss: ŷ = (F,F), ρ = 2,
	//      Δφ = (1,0), l = 2, step min{1, 2} = 1: w_2 = (1,0).
	// t=2: score+loss: (F,F) 0+2, (T,F) 1+1, (F,T) 0+1, (T,T) 1+0:
	//      ŷ = (F,F) (tie, lowest mask); Δφ = (1,0), ρ = 2,
	//      l = [2 − ½·1]_+ = 3/2, step min{½, 3/2} = ½:
	//      w_3 = ½·(1,0) + ½·(1,0) = (1,0).
	// t=3: same label; l = [2 − ⅔·1]_+ = 4/3, step min{⅓, 4/3} = ⅓:
	//      w_4 = ⅔·(1,0) + ⅓·(1,0) = (1,0). Average (1,0).
	runHand(t, &CDA{Sigma: 1, Inference: MaxLoss}, Hamming,
		[][2]float64{{1, 0}, {1, 0}, {1, 0}},
		[2]float64{1, 0})
}

func TestHandCDASigma(t *testing.T) {
	// σ = 4 makes 1/(σt) bind from the start.
	// t=1: ŷ = (F,F), Δφ = (1,0), l = 2, step min{¼, 2} = ¼: w_2 = (¼,0).
	// t=2: scores (T,F) = (T,T) = ¼ > 0: ŷ = (T,F), Δφ = (0,1), ρ = 1,
	//      l = [1 − ½·0]_+ = 1, step min{⅛, 1} = ⅛: w_3 = (⅛,⅛).
	// t=3: ŷ = y (score ¼ vs ⅛): w_4 = ⅔·(⅛,⅛) = (1/12,1/12).
	// Average ((¼+⅛+1/12)/3, (0+⅛+1/12)/3) = (11/72, 5/72).
	runHand(t, &CDA{Sigma: 4}, Hamming,
		[][2]float64{{0.25, 0}, {0.125, 0.125}, {1.0 / 12, 1.0 / 12}},
		[2]float64{11.0 / 72, 5.0 / 72})
}

func TestHandSubgradient(t *testing.T) {
	// σ = 2, maximal-loss label (the default).
	// t=1: ŷ = (F,F) (pure Hamming), Δφ = (1,0), hinge 2 > 0:
	//      w_2 = 0·w_1 + 1/(2·1)·(1,0) = (½,0).
	// t=2: score+loss (F,F) 0+2, (T,F) ½+1, (F,T) 0+1, (T,T) ½: ŷ = (F,F),
	//      hinge 2 − ½ > 0: w_3 = ½·(½,0) + 1/(2·2)·(1,0) = (½,0).
	// t=3: same: w_4 = ⅔·(½,0) + 1/6·(1,0) = (½,0). Average (½,0).
	runHand(t, &Subgradient{Sigma: 2}, Hamming,
		[][2]float64{{0.5, 0}, {0.5, 0}, {0.5, 0}},
		[2]float64{0.5, 0})
}

func TestHandSubgradientPL(t *testing.T) {
	// σ = 1, prediction label.
	// t=1: ŷ = (F,F), Δφ = (1,0): w_2 = (1,0).
	// t=2: ŷ = (T,F), Δφ = (0,1), hinge 1 − 0 > 0:
	//      w_3 = ½·(1,0) + ½·(0,1) = (½,½).
	// t=3: ŷ = y, Δφ = 0: w_4 = ⅔·(½,½) = (⅓,⅓). Average (11/18, 5/18).
	runHand(t, &Subgradient{Sigma: 1, Inference: Prediction}, Hamming,
		[][2]float64{{1, 0}, {0.5, 0.5}, {1.0 / 3, 1.0 / 3}},
		[2]float64{11.0 / 18, 5.0 / 18})
}

func TestHandMIRA(t *testing.T) {
	// t=1: ŷ = (F,F), Δφ = (1,0), ρ = 2: τ = [2 − 0]_+/1 = 2, w_2 = (2,0).
	// t=2: (T,F) and (T,T) score 2: ŷ = (T,F), Δφ = (0,1), ρ = 1:
	//      τ = [1 − 0]_+/1 = 1, w_3 = (2,1).
	// t=3: (T,T) scores 3, the best: ŷ = y, no update, w_4 = (2,1).
	// Average ((2+2+2)/3, (0+1+1)/3) = (2, ⅔).
	runHand(t, DefaultMIRA(), Hamming,
		[][2]float64{{2, 0}, {2, 1}, {2, 1}},
		[2]float64{2, 2.0 / 3})
}

func TestHandMIRAClip(t *testing.T) {
	// C = ½ clips every step at ½.
	// t=1: ŷ = (F,F), Δφ = (1,0), τ = min{½, 2} = ½: w_2 = (½,0).
	// t=2: ŷ = (T,F), Δφ = (0,1), τ = min{½, 1} = ½: w_3 = (½,½).
	// t=3: (T,T) scores 1: ŷ = y, w_4 = (½,½). Average (½, ⅓).
	runHand(t, &MIRA{C: 0.5}, Hamming,
		[][2]float64{{0.5, 0}, {0.5, 0.5}, {0.5, 0.5}},
		[2]float64{0.5, 1.0 / 3})
}

func TestHandAdaGradFB(t *testing.T) {
	// λ = 0.1, η = 1, δ = 1.
	// t=1: ŷ = (F,F), Δφ = (1,0).
	//      p0: G = 1, H = 1+1 = 2, z = 0 + ½·1 = ½, w = ½ − 0.1/2 = 0.45.
	//      p1: G = 0, H = 1, z = 0, w = [0 − 0.1]_+ = 0.        w_2 = (0.45, 0)
	// t=2: (T,F) and (T,T) score 0.45: ŷ = (T,F), Δφ = (0,1), hinge 1 > 0.
	//      p0: Δφ = 0, H = 2 unchanged: w = 0.45 − 0.05 = 0.40.
	//      p1: G = 1, H = 2, z = ½, w = ½ − 0.05 = 0.45.       w_3 = (0.40, 0.45)
	// t=3: (T,T) scores 0.85, the best: ŷ = y, Δφ = 0: both shrink by 0.05.
	//                                                          w_4 = (0.35, 0.40)
	// Average ((0.45+0.40+0.35)/3, (0+0.45+0.40)/3) = (0.40, 0.85/3).
	runHand(t, &AdaGradFB{Lambda: 0.1, Eta: 1, Delta: 1}, Hamming,
		[][2]float64{{0.45, 0}, {0.40, 0.45}, {0.35, 0.40}},
		[2]float64{0.40, 0.85 / 3})
}

func TestHandAdaGradFBZeroing(t *testing.T) {
	// λ = 1, η = 1, δ = 1: the l1 term zeroes everything.
	// t=1: p0: G = 1, H = 2, z = ½, w = [½ − ½]_+ = 0; p1 stays 0.
	//      w_2 = (0,0), and then every step repeats t=1's prediction
	//      (F,F) with the same Δφ = (1,0): G grows, H = 1+√G,
	//      z = η/H = λη/H, so w stays 0.
	runHand(t, &AdaGradFB{Lambda: 1, Eta: 1, Delta: 1}, Hamming,
		[][2]float64{{0, 0}, {0, 0}, {0, 0}},
		[2]float64{0, 0})
}
