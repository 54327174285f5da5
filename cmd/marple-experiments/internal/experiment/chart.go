package experiment

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Series is one line of a LineChart: a name and a y value per x position
// (NaN: no point).
type Series struct {
	Name   string
	Y      []float64
	Dashed bool
}

// LineChart is a line chart over categorical x positions (such as C =
// 1, 10, ..., 10000 or p = 0%, 10%, ...), drawn as SVG by WriteSVG.
type LineChart struct {
	Title, XLabel, YLabel string
	// X labels the x positions, evenly spaced.
	X      []string
	Series []Series
}

var chartColours = []string{"#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b7791f", "#718096"}

// WriteSVG draws the chart; the y axis spans the data rounded out to whole
// units of a step of 1, 2 or 5.
func (c *LineChart) WriteSVG(w io.Writer) error {
	const (
		width, height           = 720, 420
		left, right, top, below = 70, 200, 40, 60
	)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, y := range s.Y {
			if !math.IsNaN(y) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	step := niceStep((hi - lo) / 6)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if hi <= lo {
		hi = lo + step
	}
	pw, ph := float64(width-left-right), float64(height-top-below)
	xAt := func(i int) float64 {
		if len(c.X) < 2 {
			return left + pw/2
		}
		return left + pw*float64(i)/float64(len(c.X)-1)
	}
	yAt := func(v float64) float64 { return top + ph*(hi-v)/(hi-lo) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(c.Title))
	for v := lo; v <= hi+step/2; v += step {
		y := yAt(v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, left+pw, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", left-6, y+4, math.Round(v*1000)/1000)
	}
	for i, x := range c.X {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", xAt(i), top+ph+18, html.EscapeString(x))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", left+pw/2, height-14, html.EscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">%s</text>`+"\n", top+ph/2, top+ph/2, html.EscapeString(c.YLabel))
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#888"/>`+"\n", left, top, pw, ph)
	for k, s := range c.Series {
		col := chartColours[k%len(chartColours)]
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		var pts []string
		for i, y := range s.Y {
			if i < len(c.X) && !math.IsNaN(y) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xAt(i), yAt(y)))
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", xAt(i), yAt(y), col)
			}
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), col, dash)
		}
		ly := top + 10 + 20*k
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", left+pw+12, ly, left+pw+36, ly, col, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", left+pw+42, ly+4, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 || math.IsNaN(x) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}
