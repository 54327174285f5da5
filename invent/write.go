package invent

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// Invented is one invented predicate: a cluster of constants.
type Invented struct {
	Name    string
	Domain  int
	Members []int32 // local IDs of Domain
}

// Rule is one atom prediction rule: the atoms of Pred whose arguments fall
// in the clusters Args (indices into the invented predicates) are true with
// probability sigmoid(Weight).
type Rule struct {
	Pred        mln.PredID
	Args        []int
	Weight      float64
	True, False int
}

// Rules returns the invented predicates (one per distinct constant cluster
// of a leaf combination, named prefix1, prefix2, ...) and the atom
// prediction rules of every leaf combination, one per predicate of its
// predicate cluster. Combinations without training atoms get the group's
// prior rate.
func (m *Model) Rules(prefix string) ([]Invented, []Rule) {
	d := m.Data
	var inv []Invented
	byKey := map[string]int{}
	name := func(dom int, ms []int32) int {
		var b strings.Builder
		fmt.Fprintf(&b, "%d:", dom)
		for _, x := range ms {
			fmt.Fprintf(&b, "%d,", x)
		}
		k := b.String()
		if i, ok := byKey[k]; ok {
			return i
		}
		n := fmt.Sprintf("%s%d", prefix, len(inv)+1)
		for {
			if _, taken := d.Model.Pred(n); !taken {
				break
			}
			n += "_"
		}
		byKey[k] = len(inv)
		inv = append(inv, Invented{Name: n, Domain: dom, Members: ms})
		return len(inv) - 1
	}
	var rules []Rule
	var walk func(n *Node)
	walk = func(n *Node) {
		for gi := range n.Groups {
			ng := &n.Groups[gi]
			pi := ng.Prior
			total := int64(1)
			for _, r := range ng.radix {
				total *= r
			}
			cl := make([]int, len(ng.Pos))
			for key := int64(0); key < total; key++ {
				rem := key
				for q := range cl {
					cl[q] = int(rem % ng.radix[q])
					rem /= ng.radix[q]
				}
				c := ng.byKey[key]
				if c != nil && c.Child != nil {
					continue
				}
				// An empty combination predicts the rate of the
				// combination its node refines, as Prob does.
				t, f, rate := 0, 0, ng.Parent
				if c != nil {
					t, f, rate = c.True, c.False, pi
				}
				args := make([]int, len(cl)-1)
				for q := 1; q < len(cl); q++ {
					ns := &n.Sets[ng.Pos[q]]
					args[q-1] = name(ns.Domain, ns.Clusters[cl[q]])
				}
				ps := &n.Sets[ng.Pos[0]]
				for _, p := range ps.Clusters[cl[0]] {
					rules = append(rules, Rule{
						Pred:   mln.PredID(d.Domains[ps.Domain].Members[p]),
						Args:   args,
						Weight: Weight(t, f, rate, m.Opt.Beta),
						True:   t, False: f,
					})
				}
			}
			for _, c := range ng.Combos {
				if c.Child != nil {
					walk(c.Child)
				}
			}
		}
	}
	walk(m.Root)
	return inv, rules
}

// WriteMLN writes the model as a first-order MLN that marple infer (and
// Alchemy) run unchanged: the data's predicate declarations, one unary
// predicate per invented cluster, and the atom prediction rules
//
//	w  Cluster3(a1) ^ Cluster7(a2) => Pred(a1,a2)
//
// With the membership evidence of WriteDB, each ground atom satisfies the
// body of exactly one rule, so its marginal probability is sigmoid(w), the
// rate Prob returns. Predicate clusters are written as comments: first-order
// formulas cannot quantify over predicates, so each is expanded into one rule
// per member.
func (m *Model) WriteMLN(w io.Writer, prefix string) error {
	bw := bufio.NewWriter(w)
	d := m.Data
	inv, rules := m.Rules(prefix)
	fmt.Fprintf(bw, "// MRC (multiple relational clusterings) learned by marple invent: lambda %g, beta %g, %d restarts, seed %d\n", m.Opt.Lambda, m.Opt.Beta, m.Opt.Restarts, m.Opt.Seed)
	fmt.Fprintf(bw, "// %d invented predicates, %d atom prediction rules; membership evidence in the companion .db\n\n", len(inv), len(rules))
	for _, p := range d.Model.Preds {
		fmt.Fprintln(bw, declaration(d.Model, p))
	}
	fmt.Fprintln(bw)
	for _, iv := range inv {
		fmt.Fprintf(bw, "%s(%s)\n", iv.Name, d.Model.Types[d.Domains[iv.Domain].Type].Name)
	}
	fmt.Fprintln(bw)
	last := -1
	for _, r := range rules {
		g := int(d.predGroup[r.Pred])
		if g != last {
			fmt.Fprintf(bw, "\n// %s\n", d.Domains[d.Groups[g].Preds].Name)
			last = g
		}
		var body []string
		vars := make([]string, len(r.Args))
		for i, a := range r.Args {
			vars[i] = fmt.Sprintf("a%d", i+1)
			body = append(body, fmt.Sprintf("%s(%s)", inv[a].Name, vars[i]))
		}
		head := fmt.Sprintf("%s(%s)", d.Model.Preds[r.Pred].Name, strings.Join(vars, ","))
		wt := r.Weight
		if math.IsInf(wt, 0) || math.IsNaN(wt) {
			return fmt.Errorf("invent: weight of a rule for %s is %v", head, wt)
		}
		fmt.Fprintf(bw, "%.6f  %s => %s\n", wt, strings.Join(body, " ^ "), head)
	}
	return bw.Flush()
}

func declaration(m *mln.Model, p *mln.Predicate) string {
	ts := make([]string, len(p.Args))
	for i, t := range p.Args {
		ts[i] = m.Types[t].Name
		if i < len(p.Unique) && p.Unique[i] {
			ts[i] += "!"
		}
	}
	if len(ts) == 0 {
		return p.Name
	}
	return fmt.Sprintf("%s(%s)", p.Name, strings.Join(ts, ","))
}

// WriteDB writes the membership evidence of the invented predicates: one
// true atom Cluster3(Alice) per member of each cluster.
func (m *Model) WriteDB(w io.Writer, prefix string) error {
	bw := bufio.NewWriter(w)
	inv, _ := m.Rules(prefix)
	for _, iv := range inv {
		for _, x := range iv.Members {
			fmt.Fprintf(bw, "%s(%s)\n", iv.Name, m.Data.SymbolName(iv.Domain, x))
		}
	}
	return bw.Flush()
}
