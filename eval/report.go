package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// metricsJSON is the JSON form of Metrics: metrics that do not apply are
// left out.
type metricsJSON struct {
	Pred          string   `json:"pred,omitempty"`
	Atoms         int      `json:"atoms"`
	TP            int      `json:"tp"`
	FP            int      `json:"fp"`
	FN            int      `json:"fn"`
	TN            int      `json:"tn"`
	Precision     float64  `json:"precision"`
	Recall        float64  `json:"recall"`
	F1            float64  `json:"f1"`
	Hamming       int      `json:"hamming"`
	UniverseKnown bool     `json:"universe_known"`
	HammingNorm   *float64 `json:"hamming_norm,omitempty"`
	CLL           *float64 `json:"cll,omitempty"`
	AUCPR         *float64 `json:"auc_pr,omitempty"`
	AP            *float64 `json:"ap,omitempty"`
}

// MarshalJSON writes the metrics as a JSON object with lower-case keys
// (pred, atoms, tp, fp, fn, tn, precision, recall, f1, hamming,
// universe_known, hamming_norm, cll, auc_pr, ap); hamming_norm is present
// only when the universe is known and cll, auc_pr, ap only for marginal
// metrics.
func (m Metrics) MarshalJSON() ([]byte, error) {
	j := metricsJSON{
		Pred: m.Pred, Atoms: m.Atoms,
		TP: m.TP, FP: m.FP, FN: m.FN, TN: m.TN,
		Precision: m.Precision, Recall: m.Recall, F1: m.F1,
		Hamming: m.Hamming, UniverseKnown: m.UniverseKnown,
	}
	if m.UniverseKnown {
		j.HammingNorm = &m.HammingNorm
	}
	if m.Marginal {
		j.CLL, j.AUCPR, j.AP = &m.CLL, &m.AUCPR, &m.AP
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form written by MarshalJSON; Marginal is set when
// the marginal metrics are present.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var j metricsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*m = Metrics{
		Pred: j.Pred, Atoms: j.Atoms,
		Counts:    Counts{TP: j.TP, FP: j.FP, FN: j.FN, TN: j.TN},
		Precision: j.Precision, Recall: j.Recall, F1: j.F1,
		Hamming: j.Hamming, UniverseKnown: j.UniverseKnown,
	}
	if j.HammingNorm != nil {
		m.HammingNorm = *j.HammingNorm
	}
	if j.CLL != nil || j.AUCPR != nil || j.AP != nil {
		m.Marginal = true
		for _, f := range []struct {
			dst *float64
			src *float64
		}{{&m.CLL, j.CLL}, {&m.AUCPR, j.AUCPR}, {&m.AP, j.AP}} {
			if f.src != nil {
				*f.dst = *f.src
			}
		}
	}
	return nil
}

// WriteJSON writes the report as indented JSON (the form of "marple eval
// -json").
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as an aligned table: one row per predicate,
// then a "micro" row and, with several predicates, a "macro" row.
// Precision, recall, F1 and AUC-PR are fractions in [0,1]. The Ham/N column
// (HammingNorm) shows "-" when the universe is unknown; the CLL, AUC-PR and
// AP columns appear for marginal reports only.
func (r *Report) WriteText(w io.Writer) error {
	header := []string{"pred", "atoms", "TP", "FP", "FN", "TN", "prec", "recall", "F1", "Hamming", "Ham/N"}
	if r.Marginal {
		header = append(header, "CLL", "AUC-PR", "AP")
	}
	rows := [][]string{header}
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	add := func(name string, m Metrics) {
		row := []string{name, strconv.Itoa(m.Atoms), strconv.Itoa(m.TP), strconv.Itoa(m.FP), strconv.Itoa(m.FN),
			strconv.Itoa(m.TN), f4(m.Precision), f4(m.Recall), f4(m.F1), strconv.Itoa(m.Hamming), "-"}
		if m.UniverseKnown {
			row[10] = f4(m.HammingNorm)
		}
		if r.Marginal {
			row = append(row, f4(m.CLL), f4(m.AUCPR), f4(m.AP))
		}
		rows = append(rows, row)
	}
	for _, m := range r.Preds {
		add(m.Pred, m)
	}
	add("micro", r.Micro)
	if len(r.Preds) > 1 {
		add("macro", r.Macro)
	}
	width := make([]int, len(header))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	var b []byte
	for _, row := range rows {
		for i, c := range row {
			if i == 0 { // left-aligned
				b = append(b, c...)
				b = append(b, strings.Repeat(" ", width[0]-len(c))...)
				continue
			}
			b = append(b, strings.Repeat(" ", 2+width[i]-len(c))...)
			b = append(b, c...)
		}
		b = append(b, '\n')
	}
	if r.Filtered > 0 || r.Unknown > 0 {
		b = fmt.Appendf(b, "(atoms filtered out: %d, unknown: %d)\n", r.Filtered, r.Unknown)
	}
	_, err := w.Write(b)
	return err
}
