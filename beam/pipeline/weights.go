package pipeline

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/mln"
)

// Weights is a weight vector keyed by parameter name (ParamName), sorted
// by name: the form in which weights move between workers, whose models
// number the parameters of "+" formulas in the order they met them.
type Weights struct {
	Names  []string
	Values []float64
}

// ParamName names parameter p of m by its formula's index and the names of
// the constants binding the formula's "+" variables, each prefixed by its
// length in bytes: "3" or "3|7:Fauthor|3:W17". The lengths make the name
// unambiguous whatever the constants hold (a quoted constant may contain
// '|' or ':'); ParseParamName reads it back.
func ParamName(m *mln.Model, p int) string {
	names := make([]string, len(m.ParamBinding[p]))
	for i, c := range m.ParamBinding[p] {
		names[i] = m.ConstName(c)
	}
	return paramName(m.ParamFormula[p], names)
}

func paramName(f int, consts []string) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(f))
	for _, c := range consts {
		b.WriteByte('|')
		b.WriteString(strconv.Itoa(len(c)))
		b.WriteByte(':')
		b.WriteString(c)
	}
	return b.String()
}

// ParseParamName splits a parameter name (ParamName) into the formula's
// index and the constants' names.
func ParseParamName(k string) (int, []string, error) {
	bad := func() (int, []string, error) { return 0, nil, fmt.Errorf("pipeline: malformed parameter name %q", k) }
	i := strings.IndexByte(k, '|')
	if i < 0 {
		i = len(k)
	}
	f, err := strconv.Atoi(k[:i])
	if err != nil || f < 0 {
		return bad()
	}
	var consts []string
	for rest := k[i:]; rest != ""; {
		if rest[0] != '|' {
			return bad()
		}
		colon := strings.IndexByte(rest, ':')
		if colon < 0 {
			return bad()
		}
		n, err := strconv.Atoi(rest[1:colon])
		if err != nil || n < 0 || n > len(rest)-colon-1 || rest[1] == '+' || rest[1] == '-' {
			return bad()
		}
		consts = append(consts, rest[colon+1:colon+1+n])
		rest = rest[colon+1+n:]
	}
	return f, consts, nil
}

// Of returns the weights w of m's parameters by name.
func Of(m *mln.Model, w []float64) Weights {
	type kv struct {
		k string
		v float64
	}
	kvs := make([]kv, len(w))
	for p := range w {
		kvs[p] = kv{ParamName(m, p), w[p]}
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].k < kvs[j].k })
	out := Weights{Names: make([]string, len(kvs)), Values: make([]float64, len(kvs))}
	for i, x := range kvs {
		out.Names[i], out.Values[i] = x.k, x.v
	}
	return out
}

// Get returns the weight named k (0 when absent).
func (w Weights) Get(k string) float64 {
	i := sort.SearchStrings(w.Names, k)
	if i < len(w.Names) && w.Names[i] == k {
		return w.Values[i]
	}
	return 0
}

// Apply sets m's weights from w by name; parameters w does not name get 0.
func (w Weights) Apply(m *mln.Model) {
	for p := range m.Weights {
		m.Weights[p] = w.Get(ParamName(m, p))
	}
}

// Allocate makes sure m has a parameter for every name in w (allocating the
// parameters of "+" bindings m has not met, their constants interned by
// name), then sets the weights from w.
func (w Weights) Allocate(m *mln.Model) error {
	if err := w.allocate(m); err != nil {
		return err
	}
	w.Apply(m)
	return nil
}

// allocate makes sure m has a parameter for every name in w, in w's order.
func (w Weights) allocate(m *mln.Model) error {
	for _, k := range w.Names {
		f, consts, err := ParseParamName(k)
		if err != nil {
			return err
		}
		if f >= len(m.Formulas) {
			return fmt.Errorf("pipeline: weight %q names no formula of the model", k)
		}
		var binding []mln.ConstID
		for _, name := range consts {
			binding = append(binding, m.AddConst(name))
		}
		if len(binding) != len(m.Formulas[f].PlusVars) {
			return fmt.Errorf("pipeline: weight %q: formula %d has %d \"+\" variables", k, f, len(m.Formulas[f].PlusVars))
		}
		m.Param(f, binding)
	}
	return nil
}

// accum is a weighted sum of weight vectors by name.
type accum map[string]float64

func (a accum) add(w Weights, scale float64) {
	for i, k := range w.Names {
		a[k] += scale * w.Values[i]
	}
}

func (a accum) weights(scale float64) Weights {
	out := Weights{Names: make([]string, 0, len(a))}
	for k := range a {
		out.Names = append(out.Names, k)
	}
	sort.Strings(out.Names)
	out.Values = make([]float64, len(out.Names))
	for i, k := range out.Names {
		out.Values[i] = a[k] * scale
	}
	return out
}

// WriteModel writes the model of d with weights w to path, atomically.
func WriteModel(d Data, w Weights, path string) error {
	m, err := d.LoadModel()
	if err != nil {
		return err
	}
	if err := w.Allocate(m); err != nil {
		return err
	}
	return atomicfile.Write(path, func(f io.Writer) error { return mln.WriteModel(f, m) })
}
