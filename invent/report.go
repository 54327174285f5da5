package invent

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// ClusterName returns a readable description of cluster c of set s of node
// n: its members, abbreviated after max names.
func (m *Model) clusterText(ns *NodeSet, c int, max int) string {
	ms := ns.Clusters[c]
	var b strings.Builder
	b.WriteByte('{')
	for i, x := range ms {
		if i == max {
			fmt.Fprintf(&b, " ... +%d", len(ms)-max)
			break
		}
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(m.Data.SymbolName(ns.Domain, x))
	}
	b.WriteByte('}')
	return b.String()
}

// WriteReport writes a readable account of the model: per node its
// clusterings (sizes and members), and the strongest leaf combinations
// (highest rate of true atoms, among those with at least two true atoms).
func (m *Model) WriteReport(w io.Writer, top int) error {
	d := m.Data
	fmt.Fprintf(w, "MRC: %d problems searched, log-posterior %.3f (lambda %g, beta %g, %d restarts, seed %d)\n\n",
		m.Stats.Problems, m.LogPosterior(), m.Opt.Lambda, m.Opt.Beta, m.Opt.Restarts, m.Opt.Seed)
	type leaf struct {
		path string
		rate float64
		c    *Combo
	}
	var leaves []leaf
	nodes, clusters := 0, 0
	var walk func(n *Node, path string, depth int)
	walk = func(n *Node, path string, depth int) {
		nodes++
		ind := strings.Repeat("  ", depth)
		fmt.Fprintf(w, "%snode %s (gain %.2f):\n", ind, path, n.Gain)
		for _, s := range n.Sets {
			clusters += len(s.Clusters)
			sizes := make([]string, len(s.Clusters))
			for c, ms := range s.Clusters {
				sizes[c] = fmt.Sprint(len(ms))
			}
			fmt.Fprintf(w, "%s  %s: %d clusters, sizes %s\n", ind, d.Domains[s.Domain].Name, len(s.Clusters), strings.Join(sizes, " "))
			for c := range s.Clusters {
				fmt.Fprintf(w, "%s    %d %s\n", ind, c, m.clusterText(&s, c, 12))
			}
		}
		for _, ng := range n.Groups {
			pi := ng.Prior
			for ci, c := range ng.Combos {
				p := fmt.Sprintf("%s.%d", path, ci)
				if len(n.Groups) > 1 {
					p = fmt.Sprintf("%s.g%d.%d", path, ng.Group, ci)
				}
				if c.Child != nil {
					walk(c.Child, p, depth+1)
					continue
				}
				var parts []string
				for q, cl := range c.Clusters {
					parts = append(parts, m.clusterText(&n.Sets[ng.Pos[q]], cl, 4))
				}
				leaves = append(leaves, leaf{p + " " + strings.Join(parts, " x "), Rate(c.True, c.False, pi, m.Opt.Beta), c})
			}
		}
	}
	walk(m.Root, "root", 0)
	sort.SliceStable(leaves, func(i, j int) bool {
		if leaves[i].rate != leaves[j].rate {
			return leaves[i].rate > leaves[j].rate
		}
		return leaves[i].c.True > leaves[j].c.True
	})
	fmt.Fprintf(w, "\n%d nodes, %d clusters, %d leaf combinations\n", nodes, clusters, len(leaves))
	fmt.Fprintf(w, "strongest combinations (rate, true/false atoms):\n")
	shown := 0
	for _, l := range leaves {
		if shown == top {
			break
		}
		if l.c.True < 2 {
			continue
		}
		fmt.Fprintf(w, "  %.3f %d/%d %s\n", l.rate, l.c.True, l.c.False, l.path)
		shown++
	}
	return nil
}
