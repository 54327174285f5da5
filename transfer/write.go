package transfer

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Write writes the ranked templates, readable and readable back by
// ReadTemplates: a "template" line per template (rank, score, number of
// source cliques, the template) followed by "clique" lines for its best
// cliques (score, groundings counted, the clique, its best
// decomposition). Lines starting with "#" are comments; header lines
// (header, each prefixed with "# ") come first.
func Write(w io.Writer, r *Result, header []string) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	fmt.Fprintf(bw, "# %d templates enumerated, %d with cliques in the source, %d cliques scored; template score = mean of its %d best clique scores (KL, nats)\n",
		r.Enumerated, len(r.Templates), r.Cliques, r.K)
	for i, sc := range r.Templates {
		fmt.Fprintf(bw, "\ntemplate %d %.6g %d  %s\n", i+1, sc.Score, sc.NumCliques, sc.Template)
		for _, c := range sc.Top {
			fmt.Fprintf(bw, "  clique %.6g %d  %s  =  %s\n", c.Score, c.Groundings(), c.Format(sc.Template), c.FormatDecomp(sc.Template))
		}
	}
	return bw.Flush()
}

// Ranked is a template read back from a templates file, with its score.
type Ranked struct {
	Template *Template
	Score    float64
}

// ReadTemplates reads the "template" lines of a file written by Write, in
// file order (best first). name is used in error messages.
func ReadTemplates(r io.Reader, name string) ([]Ranked, error) {
	var out []Ranked
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(text, "template ") {
			continue
		}
		f := strings.Fields(text)
		if len(f) < 5 {
			return nil, fmt.Errorf("%s:%d:1: expected \"template rank score cliques literals\"", name, line)
		}
		score, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d:1: bad score %q", name, line, f[2])
		}
		lits := strings.Join(f[4:], " ")
		t, err := ParseTemplate(lits)
		if err != nil {
			return nil, fmt.Errorf("%s:%d:1: %v", name, line, err)
		}
		out = append(out, Ranked{Template: t, Score: score})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no template lines", name)
	}
	return out, nil
}
