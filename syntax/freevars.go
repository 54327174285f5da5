package syntax

// FreeVars returns the variables of f that no quantifier binds, in order
// of first occurrence (those inside function terms included).
func FreeVars(f Formula) []string {
	var out []string
	seen := map[string]bool{}
	var term func(t Term, bound map[string]int)
	term = func(t Term, bound map[string]int) {
		switch t.Kind {
		case VarTerm:
			if bound[t.Name] == 0 && !seen[t.Name] {
				seen[t.Name] = true
				out = append(out, t.Name)
			}
		case FuncTerm:
			for _, a := range t.Args {
				term(a, bound)
			}
		}
	}
	var walk func(f Formula, bound map[string]int)
	walk = func(f Formula, bound map[string]int) {
		switch f := f.(type) {
		case *Atom:
			for _, t := range f.Args {
				term(t, bound)
			}
		case *Compare:
			term(f.X, bound)
			term(f.Y, bound)
		case *Not:
			walk(f.X, bound)
		case *Binary:
			walk(f.X, bound)
			walk(f.Y, bound)
		case *Quant:
			for _, v := range f.Vars {
				bound[v.Name]++
			}
			walk(f.Body, bound)
			for _, v := range f.Vars {
				bound[v.Name]--
			}
		}
	}
	walk(f, map[string]int{})
	return out
}
