package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// writeCounts writes the clause counts of -counts: for every parameter of
// the model (a formula, or a formula and a binding of its "+" variables),
// in parameter order, its count and the formula:
//
//	count<TAB>formula
//
// with the "+" binding appended as "  // +v=C". The count is the number
// that multiplies the parameter's weight in the world's log-probability:
// the number of its true groundings, each clause of a formula whose CNF
// has k clauses counting 1/k, the evidence's groundings included.
func writeCounts(w io.Writer, m *mln.Model, counts []float64) error {
	for p, n := range counts {
		f := m.Formulas[m.ParamFormula[p]]
		var text string
		if f.AST != nil {
			text = syntax.FormulaString(f.AST)
		} else {
			text = "(exactly one value of a \"!\" argument)"
		}
		if f.Hard {
			text += "."
		}
		if len(f.PlusVars) > 0 && p < len(m.ParamBinding) {
			var b []string
			for i, v := range f.PlusVars {
				if i < len(m.ParamBinding[p]) {
					b = append(b, "+"+v+"="+m.ConstName(m.ParamBinding[p][i]))
				}
			}
			text += "  // " + strings.Join(b, " ")
		}
		if _, err := fmt.Fprintf(w, "%s\t%s\n", fmtCount(n), text); err != nil {
			return err
		}
	}
	return nil
}

// fmtCount formats a count at full precision: the shortest decimal that
// reads back as the same float64 (an integer when it is one: 1234567,
// not 1.23457e+06).
func fmtCount(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// expectedCounts returns the average of the counts over samples MC-SAT
// samples of net (after burnIn steps): the expected counts of the
// network's distribution.
func expectedCounts(ctx context.Context, net *ground.Network, opt mcsat.Options) ([]float64, error) {
	ch, err := mcsat.NewChain(net, opt)
	if err != nil {
		return nil, err
	}
	if opt.BurnIn > 0 {
		if err := ch.Sample(ctx, opt.BurnIn, func([]bool) {}); err != nil {
			return nil, err
		}
	}
	var sum []float64
	if err := ch.Sample(ctx, opt.Samples, func(y []bool) {
		c := net.Counts(y)
		if sum == nil {
			sum = make([]float64, len(c))
		}
		for i, x := range c {
			sum[i] += x
		}
	}); err != nil {
		return nil, err
	}
	for i := range sum {
		sum[i] /= float64(opt.Samples)
	}
	return sum, nil
}
