package hybrid

import (
	"context"
	"math"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/mln"
)

const robotmap = "../../examples/robotmap/"

// testCLL learns the weights of a robot-mapping model on the training
// files and returns the mean conditional log-likelihood of the test
// labels under hybrid MC-SAT marginals.
func testCLL(t *testing.T, model, evidence string) float64 {
	t.Helper()
	ctx := context.Background()
	// One model for training and one for testing, so that each is ground
	// over its own segments (the features come in the same order).
	m, err := mln.LoadModel(robotmap + model)
	if err != nil {
		t.Fatal(err)
	}
	train, err := mln.LoadDatabase(m, robotmap+"train.db", robotmap+"train-"+evidence+".db")
	if err != nil {
		t.Fatal(err)
	}
	q, _ := m.PredIDs("Wall,Door")
	w, err := Learn(ctx, m, []*mln.Database{train}, LearnOptions{Query: q, Iterations: 40, Samples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m, err = mln.LoadModel(robotmap + model); err != nil {
		t.Fatal(err)
	}
	test, err := mln.LoadDatabase(m, robotmap+"test.db", robotmap+"test-"+evidence+".db")
	if err != nil {
		t.Fatal(err)
	}
	truth, err := mln.LoadDatabase(m, robotmap+"test-truth.db")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Ground(context.Background(), m, test, Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	copy(p.Weights, w)
	res, err := p.Sample(ctx, SampleOptions{Seed: 1, Samples: 300})
	if err != nil {
		t.Fatal(err)
	}
	cll := 0.0
	for i, a := range p.Bools {
		pr := min(max(res.True[i], 1e-3), 1-1e-3)
		if v, _ := truth.Get(a.Pred, a.Args); v == mln.True {
			cll += math.Log(pr)
		} else {
			cll += math.Log(1 - pr)
		}
	}
	return cll / float64(len(p.Bools))
}

// The robot-mapping example: the hybrid model, which sees the lengths and
// angles, predicts the held-out labels better than the Boolean model,
// which sees them discretised.
func TestRobotMapHybridBeatsBoolean(t *testing.T) {
	if testenv.Short() {
		t.Skip("learns two models")
	}
	h := testCLL(t, "robotmap.mln", "real")
	b := testCLL(t, "robotmap-bool.mln", "bool")
	t.Logf("test CLL: hybrid %.4f, Boolean %.4f", h, b)
	if !(h > b+0.02) {
		t.Fatalf("hybrid CLL %.4f is not above the Boolean model's %.4f", h, b)
	}
}

// testF1MaxMargin learns max-margin weights (C = 10000, the value -C auto
// chooses for the hybrid model) for a robot-mapping model on the training
// files and returns the F1 (percent) of the MAP labels of the test scans.
func testF1MaxMargin(t *testing.T, model, evidence string) float64 {
	t.Helper()
	ctx := context.Background()
	m, err := mln.LoadModel(robotmap + model)
	if err != nil {
		t.Fatal(err)
	}
	train, err := mln.LoadDatabase(m, robotmap+"train.db", robotmap+"train-"+evidence+".db")
	if err != nil {
		t.Fatal(err)
	}
	q, _ := m.PredIDs("Wall,Door")
	res, err := LearnMaxMargin(ctx, m, []*mln.Database{train}, MaxMarginOptions{Query: q, C: 10000, MAP: MAPOptions{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if m, err = mln.LoadModel(robotmap + model); err != nil {
		t.Fatal(err)
	}
	test, err := mln.LoadDatabase(m, robotmap+"test.db", robotmap+"test-"+evidence+".db", robotmap+"test-truth.db")
	if err != nil {
		t.Fatal(err)
	}
	exs, err := groundExamples(context.Background(), m, []*mln.Database{test}, q)
	if err != nil {
		t.Fatal(err)
	}
	f1, err := mapF1(ctx, exs, res.Weights, MAPOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f1
}

// Max-margin weights of the hybrid robot-mapping model label the held-out
// scans at least as well (MAP F1) as those of the Boolean model.
func TestRobotMapMaxMargin(t *testing.T) {
	if testenv.Short() {
		t.Skip("learns two models")
	}
	h := testF1MaxMargin(t, "robotmap.mln", "real")
	b := testF1MaxMargin(t, "robotmap-bool.mln", "bool")
	t.Logf("test F1: hybrid %.2f, Boolean %.2f", h, b)
	if !(h >= b) {
		t.Fatalf("hybrid F1 %.2f is below the Boolean model's %.2f", h, b)
	}
}
