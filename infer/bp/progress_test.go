package bp

import (
	"context"
	"testing"

	"github.com/marple-mln/marple/ground"
)

// TestProgress: Options.Progress hears of every iteration, and of each
// round of the check with iteration 0 and its samples per chain.
func TestProgress(t *testing.T) {
	net := ground.NewNetwork(3)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false), ground.MakeLit(1, false)}, 1.2, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(1, true), ground.MakeLit(2, false)}, 0.7, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(2, true), ground.MakeLit(0, false)}, 0.4, -1, -1, 1)
	var iters, rounds int
	last := 0
	_, st, err := Marginals(context.Background(), net, Options{Check: 200, Progress: func(it int, change float64) {
		if it == 0 {
			rounds++
			if change < 200 {
				t.Errorf("a check round of %v samples", change)
			}
			return
		}
		if it != last+1 {
			t.Errorf("iteration %d after %d", it, last)
		}
		last = it
		iters++
	}})
	if err != nil {
		t.Fatal(err)
	}
	if iters != st.Iterations || rounds < 1 {
		t.Errorf("%d iterations reported of %d, %d check rounds", iters, st.Iterations, rounds)
	}
}
