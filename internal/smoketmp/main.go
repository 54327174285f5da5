package main

import (
	"fmt"
	"os"

	"github.com/marple-mln/marple/mln"
)

func main() {
	m, err := mln.LoadModel(os.Args[1:]...)
	if err != nil {
		fmt.Println(err)
	}
	if err := m.Compile(); err != nil {
		fmt.Println(err)
	}
	for _, c := range m.Clauses {
		fmt.Printf("f%d coef=%.3g hard=%v plus=%v  %s\n", c.Formula, c.Coef, c.Hard, c.Plus, m.ClauseString(c))
	}
	mln.WriteModel(os.Stdout, m)
}
