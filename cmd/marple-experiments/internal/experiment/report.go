package experiment

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// WriteMarkdown writes the table: F1 per test topic and its average next
// to the paper's, then the training time per fold.
func (t *CiteSeerTable) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("### CiteSeer, token-level F1 (train on three topics, test on the fourth)\n\n")
	b.WriteString("| method |")
	for _, tp := range t.Topics {
		fmt.Fprintf(&b, " %s |", tp)
	}
	b.WriteString(" average | paper average | Δ |\n|---|")
	for range t.Topics {
		b.WriteString("---:|")
	}
	b.WriteString("---:|---:|---:|\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "| %s |", r.Method.Name)
		for i, tp := range t.Topics {
			c, ok := r.Cells[tp]
			if !ok {
				b.WriteString(" – |")
				continue
			}
			paper := r.Method.Paper[topicIndex(tp, i)]
			if math.IsNaN(paper) {
				fmt.Fprintf(&b, " %.2f |", c.F1)
			} else {
				fmt.Fprintf(&b, " %.2f (%.2f) |", c.F1, paper)
			}
		}
		avg := r.Average(t.Topics)
		pa := r.Method.PaperAverage()
		fmt.Fprintf(&b, " **%.2f** | %.2f | %+.2f |\n", avg, pa, avg-pa)
	}
	b.WriteString("\nIn parentheses: the paper's figure (Huynh & Mooney, SDM 2011, Table 1; AdaGrad-FB-ISM: the OSL paper's 4-topic average).\n\n")
	b.WriteString("### Training time per fold (seconds; exact MPE inside training)\n\n")
	b.WriteString("| method | passes | σ per topic | ground | learn | σ tuning (all runs) | test (ground + MPE) | paper (one pass) |\n|---|---:|---|---:|---:|---:|---:|---:|\n")
	for _, r := range t.Rows {
		var sig []string
		var g, l, tu, te float64
		n, passes := 0, "–"

		for _, tp := range t.Topics {
			c, ok := r.Cells[tp]
			if !ok {
				continue
			}
			if r.Method.Tune || r.Method.Sigma > 0 {
				sig = append(sig, fmt.Sprintf("%g", c.Sigma))
			}
			if c.Passes > 0 {
				passes = fmt.Sprint(c.Passes)
			}
			g += c.GroundSeconds
			l += c.LearnSeconds
			tu += c.TuneSeconds
			te += c.TestSeconds
			n++
		}
		if n == 0 {
			continue
		}
		fn := float64(n)
		sigma := "–"
		if len(sig) > 0 {
			sigma = strings.Join(sig, ", ")
		}
		paper := "–"
		if !math.IsNaN(r.Method.PaperMinutes) {
			paper = fmt.Sprintf("%.1f min", r.Method.PaperMinutes)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %s |\n", r.Method.Name, passes, sigma, g/fn, l/fn, tu/fn, te/fn, paper)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func topicIndex(topic string, fallback int) int {
	for i, t := range Topics {
		if t == topic {
			return i
		}
	}
	return fallback
}

// WriteSVG writes a bar chart of the average F1 of each method, Marple's
// next to the paper's.
func (t *CiteSeerTable) WriteSVG(w io.Writer) error {
	const (
		width   = 760
		rowH    = 34
		left    = 150
		barMax  = 520.0
		lo, hi  = 80.0, 100.0
		top     = 40
		bottomM = 40
	)
	height := top + rowH*len(t.Rows) + bottomM
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" font-weight="bold">CiteSeer token F1, average over 4 topics (axis from %.0f)</text>`+"\n", left, lo)
	x := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return math.Max(0, math.Min(barMax, (v-lo)/(hi-lo)*barMax))
	}
	for i, r := range t.Rows {
		y := top + i*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+18, html.EscapeString(r.Method.Name))
		avg := r.Average(t.Topics)
		pa := r.Method.PaperAverage()
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="12" fill="#2b6cb0"/>`+"\n", left, y+4, x(avg))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%.2f Marple</text>`+"\n", float64(left)+x(avg)+4, y+14, avg)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="12" fill="#a0aec0"/>`+"\n", left, y+17, x(pa))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#4a5568">%.2f paper</text>`+"\n", float64(left)+x(pa)+4, y+27, pa)
	}
	axisY := top + rowH*len(t.Rows) + 6
	for v := lo; v <= hi; v += 5 {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ccc"/>`+"\n", float64(left)+x(v), top, float64(left)+x(v), axisY)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%.0f</text>`+"\n", float64(left)+x(v), axisY+14, v)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
