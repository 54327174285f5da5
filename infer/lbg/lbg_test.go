package lbg

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// randomCase is a satisfiable random MLN, ground, with its exact
// marginals.
type randomCase struct {
	name string
	net  *ground.Network
	want []float64
	hard bool
}

func randomCases(t *testing.T, n, maxAtoms int) []randomCase {
	t.Helper()
	var out []randomCase
	for seed := int64(0); len(out) < n; seed++ {
		c := randmln.GenerateConfig(seed, randmln.Config{MaxUnknown: maxAtoms})
		m, db, query, ow, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if net.NumAtoms() < 2 || net.NumAtoms() > maxAtoms || net.HardFalse > 0 {
			continue
		}
		if _, _, h := brute.MAP(net); h > 0 {
			continue
		}
		rc := randomCase{name: fmt.Sprintf("randmln seed %d", seed), net: net, want: brute.Marginals(net)}
		for c := range net.NumClauses() {
			rc.hard = rc.hard || net.IsHard(c)
		}
		out = append(out, rc)
	}
	return out
}

// TestBlockExact: a block holding every atom of a network samples from
// the network's distribution, so its conditional marginals are the exact
// marginals.
func TestBlockExact(t *testing.T) {
	checked := 0
	for _, rc := range randomCases(t, 20, 12) {
		n := rc.net.NumAtoms()
		atoms := make([]int32, n)
		for a := range atoms {
			atoms[a] = int32(a)
		}
		b, ok := newBlock(rc.net, atoms, map[int32]int32{})
		if !ok {
			continue
		}
		checked++
		hc, err := infer.CheckHard(context.Background(), rc.net)
		if err != nil {
			t.Fatal(err)
		}
		y := hc.World
		rb := make([]float64, n)
		rng := rand.New(rand.NewPCG(1, 2))
		s := &sampler{}
		for range 3 {
			if !b.sample(y, rng, s, rb) {
				t.Fatalf("%s: no assignment", rc.name)
			}
			for a := range rb {
				if math.Abs(rb[a]-rc.want[a]) > 1e-9 {
					t.Errorf("%s: atom %d: block marginal %.12f, exact %.12f (cut %d, components %d)", rc.name, a, rb[a], rc.want[a], len(b.cut), len(b.comps))
				}
			}
			if _, h := rc.net.Score(y); h > 0 {
				t.Errorf("%s: the sample violates %d hard clauses", rc.name, h)
			}
		}
	}
	if checked < 15 {
		t.Errorf("only %d of 20 networks fit one block", checked)
	}
}

// TestRandomModels: on 20 random MLNs, with the clusterings Run builds,
// every marginal is within the sampler's reported error of the exact one
// (four standard errors, and 0.005 for the error of the error), or the
// run reports R-hat above the threshold.
func TestRandomModels(t *testing.T) {
	worst, sampled := 0.0, 0
	for i, rc := range randomCases(t, 20, 10) {
		// A third of the runs keep the initial clusters (one per
		// predicate), the others cluster sequentially or at random.
		opt := Options{Samples: 2000, BurnIn: 50, Chains: 4, Workers: 2, Cluster: i%3 != 0, Mode: Mode(i % 2)}
		opt.Seed = int64(i)
		r, err := Run(context.Background(), rc.net, opt)
		if err != nil {
			t.Fatalf("%s: %v", rc.name, err)
		}
		d := r.Diagnostics
		flagged := d.NumAbove > 0
		if slices.Max(d.StdErr) > 1e-9 {
			sampled++
		}
		for a, p := range r.Marginals {
			e := math.Abs(p - rc.want[a])
			tol := 4*d.StdErr[a] + 0.005
			worst = max(worst, e/tol)
			if e > tol && !flagged {
				t.Errorf("%s (%s): atom %d: %.4f, exact %.4f, standard error %.4f, R-hat %.3f", rc.name, r.Plan.Clustering, a, p, rc.want[a], d.StdErr[a], d.Rhat[a])
			}
		}
	}
	t.Logf("largest error / tolerance: %.2f; %d runs of 20 with a sampled (not exact) marginal", worst, sampled)
	if sampled < 10 {
		t.Errorf("only %d runs sampled: the test does not test the sampler", sampled)
	}
}

const smokers = `Friends(person, person)
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`

func smokersNet(t *testing.T, people int) *ground.Network {
	t.Helper()
	var b strings.Builder
	b.WriteString("person = {")
	for i := range people {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\n")
	m, err := mln.ParseModel("smokers.mln", b.String()+smokers)
	if err == nil {
		err = m.Compile()
	}
	if err != nil {
		t.Fatal(err)
	}
	var query []mln.PredID
	for p := range m.Preds {
		query = append(query, mln.PredID(p))
	}
	net, err := ground.Ground(context.Background(), m, mln.NewDatabase(m), ground.Options{Query: query, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// TestClusterFile: a clustering written as Alchemy's cluster file and
// read back gives the same clusters.
func TestClusterFile(t *testing.T) {
	net := smokersNet(t, 4)
	var buf bytes.Buffer
	plan, err := Cluster(context.Background(), net, Sequential, 0, 1, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Clustering.Merges) == 0 {
		t.Fatalf("no merge on friends and smokers: %s", plan.Clustering)
	}
	path := filepath.Join(t.TempDir(), "cluster.cls")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteClusterFile(f, plan.Clustering.Merges); err != nil {
		t.Fatal(err)
	}
	f.Close()
	merges, err := ReadClusterFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(merges, plan.Clustering.Merges) {
		t.Errorf("read %v, wrote %v", merges, plan.Clustering.Merges)
	}
	again, err := Apply(context.Background(), net, merges)
	if err != nil {
		t.Fatal(err)
	}
	if again.Clustering.String() != plan.Clustering.String() || again.Cost != plan.Cost {
		t.Errorf("applied %s (cost %v), clustered %s (cost %v)", again.Clustering, again.Cost, plan.Clustering, plan.Cost)
	}
	t.Logf("%s; cost %.0f, Gibbs %.0f\n%s", plan.Clustering, plan.Cost, plan.GibbsCost, buf.String())
	os.WriteFile(path, []byte("1 0 1\n2 x 0\n"), 0o644)
	if _, err := ReadClusterFile(path); err == nil || !strings.Contains(err.Error(), ":2:3:") {
		t.Errorf("bad cluster file: error %v, want one at line 2, column 3", err)
	}
	if _, err := Apply(context.Background(), net, []Merge{{1, 0, 7}}); err == nil {
		t.Errorf("a merge of a cluster that does not exist: no error")
	}
}

// TestSmokers: on friends and smokers the sampler agrees with the exact
// marginals of a small domain.
func TestSmokers(t *testing.T) {
	net := smokersNet(t, 3)
	want := brute.Marginals(net)
	opt := Options{Samples: 3000, Chains: 4, Cluster: true}
	r, err := Run(context.Background(), net, opt)
	if err != nil {
		t.Fatal(err)
	}
	for a, p := range r.Marginals {
		if e := math.Abs(p - want[a]); e > 4*r.Diagnostics.StdErr[a]+0.005 {
			t.Errorf("atom %d: %.4f, exact %.4f (standard error %.4f)", a, p, want[a], r.Diagnostics.StdErr[a])
		}
	}
	// The same seed, the same marginals, whatever the workers.
	opt.Workers = 1
	r1, err := Run(context.Background(), net, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1.Marginals, r.Marginals) {
		t.Errorf("the marginals depend on the workers")
	}
}

// TestCancel: a cancelled context stops the run with its error.
func TestCancel(t *testing.T) {
	net := smokersNet(t, 6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, net, Options{Samples: 100000}); err == nil {
		t.Errorf("no error after cancellation")
	}
}

// TestSymmetricBlock: a predicate whose atoms one clause ties pairwise
// (every pair alike) forms one block of interchangeable atoms, sampled by
// counting; the marginals agree with the closed form.
func TestSymmetricBlock(t *testing.T) {
	const n = 40
	var b strings.Builder
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nP(person)\nQ(person)\n0.4 !P(x) v !P(y)\n0.8 P(x) => Q(x)\n-0.2 Q(x)\n0.3 P(x)\n")
	m, err := mln.ParseModel("sym.mln", b.String())
	if err == nil {
		err = m.Compile()
	}
	if err != nil {
		t.Fatal(err)
	}
	query, _ := m.PredIDs("P,Q")
	net, err := ground.Ground(context.Background(), m, mln.NewDatabase(m), ground.Options{Query: query, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Apply(context.Background(), net, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Largest != n || plan.Split != 0 {
		t.Fatalf("largest block %d atoms, %d split, want one block of %d", plan.Largest, plan.Split, n)
	}
	// Closed form: K atoms of P true; each Q summed out given its P.
	f1, f0 := math.Log(math.Exp(0.6)+1), math.Log(math.Exp(0.6)+math.Exp(0.8))
	lw := make([]float64, n+1)
	for k := range lw {
		lg, _ := math.Lgamma(float64(n + 1))
		l1, _ := math.Lgamma(float64(k + 1))
		l2, _ := math.Lgamma(float64(n - k + 1))
		kf := float64(k)
		lw[k] = lg - l1 - l2 + kf*(f1+0.3) + (n-kf)*(f0+0.4) + 0.8*(n*(n-1)/2-kf*(kf-1)/2)
	}
	mx := slices.Max(lw)
	z, pk, pq1, pq0 := 0.0, 0.0, 0.0, 0.0
	for k, l := range lw {
		w := math.Exp(l - mx)
		z += w
		pk += w * float64(k) / n
	}
	pP := pk / z
	pq1 = math.Exp(0.6) / (math.Exp(0.6) + 1)             // Q given P true
	pq0 = math.Exp(0.6) / (math.Exp(0.6) + math.Exp(0.8)) // Q given P false
	pQ := pP*pq1 + (1-pP)*pq0
	r, err := Run(context.Background(), net, Options{Samples: 2000, Chains: 4})
	if err != nil {
		t.Fatal(err)
	}
	for a, p := range r.Marginals {
		want := pP
		if m.Preds[net.AtomPred[a]].Name == "Q" {
			want = pQ
		}
		if e := math.Abs(p - want); e > 4*r.Diagnostics.StdErr[a]+0.005 {
			t.Errorf("%s: %.4f, closed form %.4f (standard error %.4f)", m.AtomString(net.AtomPred[a], net.AtomArgs[a]), p, want, r.Diagnostics.StdErr[a])
		}
	}
}
