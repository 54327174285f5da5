package eval

import (
	"fmt"
	"slices"
)

// Filter decides whether an atom is scored. Atoms it rejects are left out
// of every count, as if they were not query atoms.
type Filter func(a Atom) bool

// JoinFilter returns a filter that keeps an atom of predicate pred iff some
// true atom of predicate evPred in evidence agrees with it on the mapped
// arguments: the atom's argument args[k] equals the evidence atom's
// argument evArgs[k] for every k. Atoms of other predicates are kept; atoms
// of pred with too few arguments are rejected. Constants are compared as
// written (a quoted constant differs from the bare one). It panics if args
// and evArgs differ in length. The filter is safe for concurrent use.
func JoinFilter(evidence *AtomSet, pred string, args []int, evPred string, evArgs []int) Filter {
	if len(args) != len(evArgs) {
		panic("eval: JoinFilter: args and evArgs differ in length")
	}
	args = slices.Clone(args)
	keep := make(map[string]struct{})
	var buf []byte
	if p, ok := evidence.predIdx[evPred]; ok {
	atoms:
		for i, a := range evidence.atoms {
			if evidence.pred[i] != p || evidence.vals[i] < 0.5 {
				continue
			}
			buf = buf[:0]
			for _, j := range evArgs {
				if j < 0 || j >= len(a.Args) {
					continue atoms
				}
				buf = append(buf, a.Args[j]...)
				buf = append(buf, 0)
			}
			if _, ok := keep[string(buf)]; !ok {
				keep[string(buf)] = struct{}{}
			}
		}
	}
	return func(a Atom) bool {
		if a.Pred != pred {
			return true
		}
		var arr [128]byte
		b := arr[:0]
		for _, j := range args {
			if j < 0 || j >= len(a.Args) {
				return false
			}
			b = append(b, a.Args[j]...)
			b = append(b, 0)
		}
		_, ok := keep[string(b)]
		return ok
	}
}

// TokenFilter returns the CiteSeer token filter: it keeps an atom
// InField(bib, field, position) iff the evidence holds a true atom
// Token(word, position, bib) for some word, i.e. only positions that carry
// a token are scored, as in the segmentation papers (Poon & Domingos 2007;
// Huynh & Mooney). Atoms of other predicates are kept. It is
// JoinFilter(evidence, "InField", {0, 2}, "Token", {2, 1}).
func TokenFilter(evidence *AtomSet) Filter {
	return JoinFilter(evidence, "InField", []int{0, 2}, "Token", []int{2, 1})
}

// Options controls an evaluation.
//
// The universe of a query predicate is the set of its atoms that are
// scored. It always contains the atoms listed in the prediction and the
// gold-true atoms (both after filtering); an atom missing from the
// prediction is predicted false with probability 0. It is known in full,
// making TN, Atoms and HammingNorm exact (Metrics.UniverseKnown), when
//
//   - Universe is set: its atoms of the predicate are added; or else
//   - UniverseSize gives the predicate's number of query atoms, the
//     unlisted ones counting as predicted false with probability 0 and
//     gold false; or else
//   - the prediction is Complete (e.g. a marginal result file listing
//     every query atom).
//
// Otherwise only the listed atoms are scored: precision, recall, F1 and
// Hamming (FP+FN) are still exact, but TN is partial, HammingNorm is 0 and,
// for marginal evaluation, CLL and AUC-PR ignore the unlisted atoms.
type Options struct {
	// Query lists the predicates to score, in report order. If empty, every
	// predicate of the prediction or the truth is scored, in sorted order.
	Query []string
	// Filter, if not nil, restricts scoring to the atoms it accepts.
	Filter Filter
	// Universe, if not nil, lists the query atoms (values ignored).
	Universe *AtomSet
	// UniverseSize gives the number of query atoms of some predicates,
	// after filtering (the filter is not applied to it). It must be at
	// least the number of atoms scored for the predicate.
	UniverseSize map[string]int
	// Threshold is the value from which a predicted atom counts as true for
	// the count-based metrics; 0 means 0.5.
	Threshold float64
}

// Report holds the result of an evaluation.
type Report struct {
	// Marginal reports that CLL, AUC-PR and AP were computed.
	Marginal bool `json:"marginal"`
	// Preds holds one entry per query predicate, in Options.Query order.
	Preds []Metrics `json:"preds"`
	// Micro pools the atoms of every query predicate: counts are summed,
	// CLL is the mean over all atoms and AUC-PR ranks all atoms together.
	Micro Metrics `json:"micro"`
	// Macro is Average(Preds...): the unweighted mean over predicates.
	Macro Metrics `json:"macro"`
	// Filtered is the number of distinct query atoms the filter rejected.
	Filtered int `json:"filtered"`
	// Unknown is the number of query atoms not scored because their gold
	// or predicted value is unknown.
	Unknown int `json:"unknown"`
}

// Pred returns the metrics of a query predicate.
func (r *Report) Pred(name string) (Metrics, bool) {
	for _, m := range r.Preds {
		if m.Pred == name {
			return m, true
		}
	}
	return Metrics{}, false
}

// EvaluateMAP scores a MAP (0/1) prediction against the truth: precision,
// recall, F1 and Hamming loss per query predicate, micro and macro. See
// Options for the universe of scored atoms. The error reports an invalid
// UniverseSize.
func EvaluateMAP(pred, truth *AtomSet, opt Options) (*Report, error) {
	return evaluate(pred, truth, opt, false)
}

// EvaluateMarginals scores marginal probabilities against the truth: the
// metrics of EvaluateMAP (atoms thresholded at Options.Threshold) plus CLL,
// AUC-PR (Davis & Goadrich interpolation) and average precision. Atoms of
// the universe missing from the prediction have probability 0.
func EvaluateMarginals(pred, truth *AtomSet, opt Options) (*Report, error) {
	return evaluate(pred, truth, opt, true)
}

// Evaluate calls EvaluateMarginals if pred is Probabilistic and EvaluateMAP
// otherwise.
func Evaluate(pred, truth *AtomSet, opt Options) (*Report, error) {
	return evaluate(pred, truth, opt, pred.Probabilistic())
}

// predMap maps the predicate indices of s to query indices (-1 if none).
func predMap(s *AtomSet, qi map[string]int) []int {
	m := make([]int, len(s.preds))
	for i, p := range s.preds {
		q, ok := qi[p]
		if !ok {
			q = -1
		}
		m[i] = q
	}
	return m
}

func evaluate(pred, truth *AtomSet, opt Options, marginal bool) (*Report, error) {
	if pred == nil {
		pred = NewAtomSet()
	}
	if truth == nil {
		truth = NewAtomSet()
	}
	query := opt.Query
	if len(query) == 0 {
		query = slices.Concat(pred.preds, truth.preds)
		slices.Sort(query)
		query = slices.Compact(query)
	}
	qi := make(map[string]int, len(query))
	for i, q := range query {
		if _, dup := qi[q]; !dup {
			qi[q] = i
		}
	}
	thr := opt.Threshold
	if thr == 0 {
		thr = 0.5
	}
	keep := func(a Atom) bool { return opt.Filter == nil || opt.Filter(a) }
	rep := &Report{Marginal: marginal, Preds: make([]Metrics, 0, len(query))}
	items := make([][]scored, len(query))

	// Predicted atoms.
	pq := predMap(pred, qi)
	for i, a := range pred.atoms {
		q := pq[pred.pred[i]]
		if q < 0 {
			continue
		}
		if !keep(a) {
			rep.Filtered++
			continue
		}
		p, g := pred.vals[i], 0.0
		if j := truth.lookup(a.Key); j >= 0 {
			g = truth.vals[j]
		}
		if p == Unknown || g == Unknown {
			rep.Unknown++
			continue
		}
		items[q] = append(items[q], scored{p, g >= 0.5})
	}
	// Gold-true atoms missing from the prediction.
	tq := predMap(truth, qi)
	for i, a := range truth.atoms {
		q := tq[truth.pred[i]]
		if q < 0 || pred.lookup(a.Key) >= 0 {
			continue
		}
		g := truth.vals[i]
		if g != Unknown && g < 0.5 {
			continue
		}
		if !keep(a) {
			rep.Filtered++
			continue
		}
		if g == Unknown {
			rep.Unknown++
			continue
		}
		items[q] = append(items[q], scored{0, true})
	}
	// Remaining atoms of the universe.
	if u := opt.Universe; u != nil {
		uq := predMap(u, qi)
		for i, a := range u.atoms {
			q := uq[u.pred[i]]
			if q < 0 || pred.lookup(a.Key) >= 0 {
				continue
			}
			g := 0.0
			if j := truth.lookup(a.Key); j >= 0 {
				if g = truth.vals[j]; g >= 0.5 {
					continue // counted with the truth
				}
			}
			if !keep(a) {
				rep.Filtered++
				continue
			}
			if g == Unknown {
				rep.Unknown++
				continue
			}
			items[q] = append(items[q], scored{0, false})
		}
	}

	var (
		all      []scored
		extraAll int
		cllSum   float64
		micro    Counts
		known    = len(query) > 0
	)
	for q, name := range query {
		if qi[name] != q {
			continue // duplicate in Query
		}
		its := items[q]
		extra, ok := 0, false
		switch n, sized := opt.UniverseSize[name]; {
		case opt.Universe != nil:
			ok = true
		case sized:
			if n < len(its) {
				return nil, fmt.Errorf("eval: UniverseSize[%s] = %d is less than the %d atoms scored", name, n, len(its))
			}
			extra, ok = n-len(its), true
		default:
			ok = pred.Complete
		}
		var c Counts
		for _, it := range its {
			switch p := it.p >= thr; {
			case p && it.gold:
				c.TP++
			case p:
				c.FP++
			case it.gold:
				c.FN++
			default:
				c.TN++
			}
		}
		c.TN += extra
		m := c.Metrics(ok)
		m.Pred = name
		if marginal {
			m.Marginal = true
			var s float64
			for _, it := range its {
				s += logGold(it.p, it.gold)
			}
			s += float64(extra) * logGold(0, false)
			cllSum += s
			m.CLL = s / float64(max(1, m.Atoms))
			all = append(all, its...)
			extraAll += extra
			m.AUCPR, m.AP = rankMetrics(its, extra)
		}
		micro = micro.Add(c)
		known = known && ok
		rep.Preds = append(rep.Preds, m)
	}
	rep.Micro = micro.Metrics(known)
	if marginal {
		rep.Micro.Marginal = true
		rep.Micro.CLL = cllSum / float64(max(1, rep.Micro.Atoms))
		rep.Micro.AUCPR, rep.Micro.AP = rankMetrics(all, extraAll)
	}
	rep.Macro = Average(rep.Preds...)
	return rep, nil
}
