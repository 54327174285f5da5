package transfer

import (
	"fmt"
	"strings"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// DeclareFromData builds a model declaring the predicates that occur in
// .db sources (name and text), for data without a model file. Argument
// types are inferred: two argument positions get the same type when some
// constant occurs in both (union-find over positions); types are named
// t0, t1, ... in order of first appearance.
func DeclareFromData(srcs map[string][]byte, order []string) (*mln.Model, error) {
	type pos struct {
		pred string
		arg  int
	}
	parent := map[pos]pos{}
	var find func(p pos) pos
	find = func(p pos) pos {
		q, ok := parent[p]
		if !ok || q == p {
			parent[p] = p
			return p
		}
		r := find(q)
		parent[p] = r
		return r
	}
	arity := map[string]int{}
	var preds []string
	firstPos := map[string]pos{} // constant -> first position seen
	var errs []string
	for _, name := range order {
		err := syntax.ScanDB(name, srcs[name], func(a *syntax.RawAtom) {
			p := string(a.Pred)
			if n, ok := arity[p]; !ok {
				arity[p] = len(a.Args)
				preds = append(preds, p)
			} else if n != len(a.Args) {
				if len(errs) < 10 {
					errs = append(errs, fmt.Sprintf("%s: predicate %s has %d argument(s), found %d", a.PredPos(), p, n, len(a.Args)))
				}
				return
			}
			for i, b := range a.Args {
				here := pos{p, i}
				find(here)
				if fp, ok := firstPos[string(b)]; ok {
					parent[find(here)] = find(fp)
				} else {
					firstPos[string(b)] = here
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	typeName := map[pos]string{}
	var b strings.Builder
	for _, p := range preds {
		var args []string
		for i := 0; i < arity[p]; i++ {
			r := find(pos{p, i})
			n, ok := typeName[r]
			if !ok {
				n = fmt.Sprintf("t%d", len(typeName))
				typeName[r] = n
			}
			args = append(args, n)
		}
		fmt.Fprintf(&b, "%s(%s)\n", p, strings.Join(args, ","))
	}
	return mln.ParseModel("(declarations inferred from the data)", b.String())
}
