// Package plantdb generates relational data with planted second-order
// regularities, for testing deep transfer: a symmetric relation
// (Sym(x,y) ⇔ Sym(y,x)), a transitive chain over three differently named
// relations (Left(x,y) ∧ Right(y,z) ⇒ Comp(x,z), and Comp true only that
// way, but for noise), and unrelated random relations of the same density.
package plantdb

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Config sizes the data.
type Config struct {
	N       int     // constants of the one type "obj"
	Density float64 // share of true atoms of each random relation
	Noise   float64 // share of Comp atoms flipped at random
	Noise2  int     // unrelated random relations Rand0, Rand1, ...
	Seed    uint64
}

// Generate returns the declarations (.mln) and the true atoms (.db,
// closed world) of a data set drawn from c.
func Generate(c Config) (mlnText, dbText string) {
	rng := rand.New(rand.NewPCG(c.Seed, 0x706c616e74))
	var m, db strings.Builder
	preds := []string{"Sym", "Left", "Right", "Comp"}
	for i := 0; i < c.Noise2; i++ {
		preds = append(preds, fmt.Sprintf("Rand%d", i))
	}
	for _, p := range preds {
		fmt.Fprintf(&m, "%s(obj, obj)\n", p)
	}
	name := func(i int) string { return fmt.Sprintf("O%d", i) }
	random := func() [][]bool {
		r := make([][]bool, c.N)
		for i := range r {
			r[i] = make([]bool, c.N)
			for j := range r[i] {
				r[i][j] = i != j && rng.Float64() < c.Density
			}
		}
		return r
	}
	emit := func(p string, r [][]bool) {
		for i := range r {
			for j := range r[i] {
				if r[i][j] {
					fmt.Fprintf(&db, "%s(%s,%s)\n", p, name(i), name(j))
				}
			}
		}
	}
	sym := random()
	for i := range sym {
		for j := 0; j < i; j++ {
			sym[j][i] = sym[i][j]
		}
	}
	emit("Sym", sym)
	left, right := random(), random()
	emit("Left", left)
	emit("Right", right)
	comp := make([][]bool, c.N)
	for x := range comp {
		comp[x] = make([]bool, c.N)
		for z := range comp[x] {
			if x == z {
				continue
			}
			for y := 0; y < c.N; y++ {
				if left[x][y] && right[y][z] {
					comp[x][z] = true
				}
			}
			if rng.Float64() < c.Noise {
				comp[x][z] = !comp[x][z]
			}
		}
	}
	emit("Comp", comp)
	for i := 0; i < c.Noise2; i++ {
		emit(fmt.Sprintf("Rand%d", i), random())
	}
	return m.String(), db.String()
}
