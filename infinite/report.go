package infinite

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// FormatNum writes x briefly, "inf" for +Inf.
func FormatNum(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.4g", x)
}

// LocalFinitenessVerdict is the one-line verdict on local finiteness.
func (r *Report) LocalFinitenessVerdict() string {
	n := 0
	for i := range r.Sites {
		if !r.Sites[i].Bounded() {
			n++
		}
	}
	if r.LocallyFinite {
		return fmt.Sprintf("locally finite: every atom lies in finitely many ground clauses as %s grow (%d sites, all bounded)",
			r.growingNames(), len(r.Sites))
	}
	return fmt.Sprintf("not locally finite: %d of %d sites give an atom unboundedly many ground clauses as %s grow",
		n, len(r.Sites), r.growingNames())
}

// UniquenessVerdict is the one-line verdict on the uniqueness condition.
func (r *Report) UniquenessVerdict() string {
	if !r.LocallyFinite {
		return "uniqueness: not applicable: a model that is not locally finite defines no Gibbs measure in the limit"
	}
	name := "-"
	if r.SupPred >= 0 {
		name = r.Model.Preds[r.SupPred].Name
	}
	if r.Sup < Bound {
		return fmt.Sprintf("uniqueness: holds: sum %s (at %s) < %g: the limit measure is unique, whatever the evidence outside a finite window",
			FormatNum(r.Sup), name, Bound)
	}
	return fmt.Sprintf("uniqueness: not shown: sum %s (at %s) >= %g: the condition is sufficient, not necessary; the limit may depend on the boundary (a phase transition)",
		FormatNum(r.Sup), name, Bound)
}

func (r *Report) growingNames() string {
	if len(r.Growing) == 0 {
		return "no domain"
	}
	var ns []string
	for _, t := range r.Growing {
		ns = append(ns, r.Model.Types[t].Name)
	}
	return "the domains of " + strings.Join(ns, ", ")
}

// Write prints the report: the sites formula by formula, with positions,
// the uniqueness sums and the verdicts.
func (r *Report) Write(w io.Writer) {
	m := r.Model
	fmt.Fprintf(w, "infinite domains (Singla & Domingos 2007)\n")
	fmt.Fprintf(w, "growing types: %s\n", strings.TrimPrefix(r.growingNames(), "the domains of "))
	var qs []string
	for _, p := range r.Query {
		qs = append(qs, m.Preds[p].Name)
	}
	fmt.Fprintf(w, "random predicates: %s (the others are evidence, closed world)\n", strings.Join(qs, ", "))
	fmt.Fprintf(w, "local finiteness, per formula and atom (groundings per atom, other random atoms per grounding, |weight|):\n")
	last := -1
	for i := range r.Sites {
		s := &r.Sites[i]
		if s.Clause != last {
			fmt.Fprintf(w, "  %s: %s\n", s.Pos, s.Text)
			last = s.Clause
		}
		var parts []string
		for _, b := range s.Vars {
			switch {
			case b.By != "":
				parts = append(parts, fmt.Sprintf("%s by %s", b.Var, b.By))
			case b.Count < 0:
				parts = append(parts, fmt.Sprintf("%s UNBOUNDED (growing %s)", b.Var, b.Type))
			}
		}
		vars := "no other variable"
		if len(parts) > 0 {
			vars = strings.Join(parts, "; ")
		}
		fmt.Fprintf(w, "    atom %s: %s\n", s.Atom, vars)
		if s.Bounded() {
			fmt.Fprintf(w, "      %s groundings x %s others x |w| %s = %s\n",
				FormatNum(s.Groundings), FormatNum(s.Others), FormatNum(s.Weight), FormatNum(s.Contribution))
		} else {
			fmt.Fprintf(w, "      unboundedly many groundings: %s\n", s.Remedy)
		}
	}
	fmt.Fprintln(w, r.LocalFinitenessVerdict())
	fmt.Fprintf(w, "uniqueness condition: for every atom X, sum over ground clauses C containing X of (|C|-1)|w_C| < %g\n", Bound)
	for _, ps := range r.Sums {
		// the terms, one per formula
		var order []int
		terms := make(map[int]float64)
		for i := range r.Sites {
			s := &r.Sites[i]
			if s.Pred != ps.Pred {
				continue
			}
			c := s.Contribution
			if !s.Bounded() && s.Others > 0 && s.Weight > 0 {
				c = math.Inf(1)
			}
			if c == 0 {
				continue
			}
			if _, ok := terms[s.Formula]; !ok {
				order = append(order, s.Formula)
			}
			terms[s.Formula] += c
		}
		var parts []string
		for _, f := range order {
			parts = append(parts, fmt.Sprintf("%s (%s)", FormatNum(terms[f]), m.Formulas[f].Pos))
		}
		detail := "no non-unit clause"
		if len(parts) > 0 {
			detail = strings.Join(parts, " + ")
		}
		fmt.Fprintf(w, "  %s: %s = %s\n", m.Preds[ps.Pred].Name, FormatNum(ps.Sum), detail)
	}
	if in := r.Instance; in != nil && in.Atoms > 0 {
		at := ""
		if in.Atom != "" {
			at = " at " + in.Atom
		}
		fmt.Fprintf(w, "  on the evidence's ground network (%d atoms): %s%s\n", in.Atoms, FormatNum(in.Value), at)
	}
	fmt.Fprintln(w, r.UniquenessVerdict())
}

// PredName names predicate p of the report's model.
func (r *Report) PredName(p mln.PredID) string { return r.Model.Preds[p].Name }
