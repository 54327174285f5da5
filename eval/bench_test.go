package eval

import (
	"bytes"
	"fmt"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"testing"
)

// citeseerLike returns a synthetic evidence file, truth and MAP and
// marginal results shaped like one CiteSeer topic: bibs x positions tokens,
// one true InField atom per token among 4 fields, and predictions that are
// right 9 times in 10.
func citeseerLike(bibs, positions int) (ev, truth, mapRes, margRes []byte) {
	var e, t, m, g bytes.Buffer
	fields := []string{"Fauthor", "Ftitle", "Fvenue", "Fother"}
	for b := range bibs {
		for p := range positions {
			fmt.Fprintf(&e, "Token(Tw%d,P%02d,B%04d)\n", (b*7+p)%500, p, b)
			gold := (p * 4 / positions) % 4
			fmt.Fprintf(&t, "InField(B%04d,%s,P%02d)\n", b, fields[gold], p)
			guess := gold
			if (b+p)%10 == 0 {
				guess = (gold + 1) % 4
			}
			fmt.Fprintf(&m, "InField(B%04d,%s,P%02d)\n", b, fields[guess], p)
			for f, name := range fields {
				pr := 0.05
				if f == guess {
					pr = 0.85
				}
				fmt.Fprintf(&g, "InField(B%04d,%s,P%02d) %g\n", b, name, p, pr)
			}
		}
	}
	return e.Bytes(), t.Bytes(), m.Bytes(), g.Bytes()
}

func BenchmarkParse40k(b *testing.B) {
	_, truth, _, _ := citeseerLike(400, 25) // 10,000 lines
	var big []byte
	for range 4 {
		big = append(big, truth...)
	}
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		if _, err := ParseAtoms("x", big); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvaluateMAP(b *testing.B) {
	ev, truth, mapRes, _ := citeseerLike(400, 25)
	e, _ := ParseAtoms("ev", ev)
	t, _ := ParseAtoms("t", truth)
	p, _ := ParseAtoms("p", mapRes)
	opt := Options{Query: []string{"InField"}, Filter: TokenFilter(e)}
	for b.Loop() {
		if _, err := EvaluateMAP(p, t, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateMarginals40k scores 40,000 marginal atoms (CLL, AUC-PR).
func BenchmarkEvaluateMarginals40k(b *testing.B) {
	ev, truth, _, marg := citeseerLike(400, 25)
	e, _ := ParseAtoms("ev", ev)
	t, _ := ParseAtoms("t", truth)
	p, _ := ParseAtoms("p", marg)
	opt := Options{Query: []string{"InField"}, Filter: TokenFilter(e)}
	for b.Loop() {
		if _, err := EvaluateMarginals(p, t, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCiteSeerFace reads the real Face topic (evidence and truth) and
// scores the truth minus every tenth atom against it, with the token
// filter. It skips when the data folder is absent (MARPLE_DATA, default
// ../shared/data relative to the repository root).
func BenchmarkCiteSeerFace(b *testing.B) {
	evPath := datadir.Require(b, "citeseer", "face.evidence.db")
	truthPath := datadir.Require(b, "citeseer", "face.infield.db")
	for b.Loop() {
		ev, err := LoadAtoms(evPath)
		if err != nil {
			b.Fatal(err)
		}
		truth, err := LoadAtoms(truthPath)
		if err != nil {
			b.Fatal(err)
		}
		pred := NewAtomSet()
		for i := range truth.Len() {
			if i%10 != 0 {
				pred.put(truth.Atom(i), 1)
			}
		}
		r, err := EvaluateMAP(pred, truth, Options{Query: []string{"InField"}, Filter: TokenFilter(ev)})
		if err != nil {
			b.Fatal(err)
		}
		if r.Micro.TP == 0 {
			b.Fatal("nothing scored")
		}
	}
}
