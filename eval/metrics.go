package eval

import (
	"cmp"
	"math"
	"slices"
)

// Counts is a confusion matrix over ground atoms.
type Counts struct {
	TP, FP, FN, TN int
}

// Add returns the element-wise sum of c and d.
func (c Counts) Add(d Counts) Counts {
	return Counts{c.TP + d.TP, c.FP + d.FP, c.FN + d.FN, c.TN + d.TN}
}

// Precision returns TP/(TP+FP), or 0 when nothing is predicted true.
func (c Counts) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall returns TP/(TP+FN), or 0 when nothing is true.
func (c Counts) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 returns the harmonic mean of precision and recall,
// 2TP/(2TP+FP+FN), or 0 when there are no true and no predicted atoms.
func (c Counts) F1() float64 { return ratio(2*c.TP, 2*c.TP+c.FP+c.FN) }

// Hamming returns the Hamming loss FP+FN (the number of wrong atoms).
func (c Counts) Hamming() int { return c.FP + c.FN }

// Total returns TP+FP+FN+TN.
func (c Counts) Total() int { return c.TP + c.FP + c.FN + c.TN }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Metrics holds the scores of one predicate, or of all of them (micro or
// macro average). Every field is a finite number; fields that do not apply
// are zero, and the flags say which apply.
type Metrics struct {
	Pred string // the predicate; empty for an average
	Counts
	// Atoms is the number of scored atoms, TP+FP+FN+TN. When UniverseKnown
	// is false it counts only the atoms listed in the prediction, truth or
	// universe, so TN and Atoms are partial.
	Atoms     int
	Precision float64
	Recall    float64
	F1        float64
	Hamming   int // FP + FN
	// HammingNorm is Hamming/Atoms, the fraction of wrong atoms; set only
	// when UniverseKnown.
	HammingNorm float64
	// UniverseKnown reports that every query atom of the predicate was
	// scored (see Options), so TN, Atoms and HammingNorm are exact.
	UniverseKnown bool
	// Marginal reports that CLL, AUCPR and AP were computed.
	Marginal bool
	// CLL is the mean over the scored atoms of the natural log of the
	// predicted probability of the gold value, probabilities clipped to
	// [ClipMin, 1-ClipMin].
	CLL float64
	// AUCPR is the area under the precision-recall curve with the
	// interpolation of Davis & Goadrich (2006), as computed by their
	// AUCCalculator (see AUCPR).
	AUCPR float64
	// AP is the step-wise average precision (see AveragePrecision).
	AP float64
}

// Metrics returns the count-based metrics of c (Precision, Recall, F1,
// Hamming and, when universeKnown, HammingNorm), with Atoms = c.Total().
func (c Counts) Metrics(universeKnown bool) Metrics {
	m := Metrics{
		Counts:        c,
		Atoms:         c.Total(),
		Precision:     c.Precision(),
		Recall:        c.Recall(),
		F1:            c.F1(),
		Hamming:       c.Hamming(),
		UniverseKnown: universeKnown,
	}
	if universeKnown {
		m.HammingNorm = ratio(m.Hamming, m.Atoms)
	}
	return m
}

// Average returns the macro average of ms: Precision, Recall, F1,
// HammingNorm, CLL, AUCPR and AP are unweighted means, while the counts,
// Atoms and Hamming are summed. HammingNorm is averaged only if every
// element has UniverseKnown, and the marginal metrics only if every element
// is Marginal (the flags of the result say so). Pred is empty. Average of
// nothing is the zero Metrics.
func Average(ms ...Metrics) Metrics {
	var a Metrics
	if len(ms) == 0 {
		return a
	}
	a.UniverseKnown, a.Marginal = true, true
	for _, m := range ms {
		a.Counts = a.Counts.Add(m.Counts)
		a.Atoms += m.Atoms
		a.Hamming += m.Hamming
		a.Precision += m.Precision
		a.Recall += m.Recall
		a.F1 += m.F1
		a.HammingNorm += m.HammingNorm
		a.CLL += m.CLL
		a.AUCPR += m.AUCPR
		a.AP += m.AP
		a.UniverseKnown = a.UniverseKnown && m.UniverseKnown
		a.Marginal = a.Marginal && m.Marginal
	}
	n := float64(len(ms))
	a.Precision /= n
	a.Recall /= n
	a.F1 /= n
	a.HammingNorm /= n
	a.CLL /= n
	a.AUCPR /= n
	a.AP /= n
	if !a.UniverseKnown {
		a.HammingNorm = 0
	}
	if !a.Marginal {
		a.CLL, a.AUCPR, a.AP = 0, 0, 0
	}
	return a
}

// MeanStd returns the mean and the sample standard deviation (n-1 in the
// denominator; 0 when len(xs) < 2) of xs, e.g. of per-fold F1 scores. Both
// are 0 for an empty slice.
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// CountBool returns the confusion counts of predicted versus gold values.
// It panics if the slices differ in length.
func CountBool(pred, gold []bool) Counts {
	if len(pred) != len(gold) {
		panic("eval: CountBool: slices differ in length")
	}
	var c Counts
	for i, p := range pred {
		switch {
		case p && gold[i]:
			c.TP++
		case p:
			c.FP++
		case gold[i]:
			c.FN++
		default:
			c.TN++
		}
	}
	return c
}

// F1 returns the F1 score of predicted versus gold values (0 when neither
// has a true value, as Counts.F1). It panics if the slices differ in
// length.
func F1(pred, gold []bool) float64 { return CountBool(pred, gold).F1() }

// F1Loss returns the loss 100(1-F1) of predicted versus gold values, for
// learners that minimise it. Unlike 100(1-F1(pred, gold)), it is 0 when
// neither slice has a true value (nothing to find and nothing predicted is
// a perfect prediction). It panics if the slices differ in length.
func F1Loss(pred, gold []bool) float64 {
	c := CountBool(pred, gold)
	if c.TP+c.FP+c.FN == 0 {
		return 0
	}
	return 100 * (1 - c.F1())
}

// ClipMin bounds probabilities away from 0 and 1 in CLL, as Alchemy and
// Kok & Domingos do: p is clipped to [ClipMin, 1-ClipMin].
const ClipMin = 1e-4

// logGold returns the log of the clipped probability of the gold value.
func logGold(p float64, gold bool) float64 {
	p = min(max(p, ClipMin), 1-ClipMin)
	if gold {
		return math.Log(p)
	}
	return math.Log1p(-p)
}

// CLL returns the conditional log-likelihood of gold values given predicted
// probabilities: the mean over atoms of log P(gold value), probabilities
// clipped to [ClipMin, 1-ClipMin]; 0 for empty slices. It panics if the
// slices differ in length.
func CLL(probs []float64, gold []bool) float64 {
	if len(probs) != len(gold) {
		panic("eval: CLL: slices differ in length")
	}
	if len(probs) == 0 {
		return 0
	}
	var s float64
	for i, p := range probs {
		s += logGold(p, gold[i])
	}
	return s / float64(len(probs))
}

// scored is one ranked atom.
type scored struct {
	p    float64
	gold bool
}

func toScored(probs []float64, gold []bool) []scored {
	if len(probs) != len(gold) {
		panic("eval: slices differ in length")
	}
	items := make([]scored, len(probs))
	for i, p := range probs {
		items[i] = scored{p, gold[i]}
	}
	return items
}

// AUCPR returns the area under the precision-recall curve of the atoms
// ranked by descending score, following Davis & Goadrich (2006) and their
// AUCCalculator 0.2: a point (TP, FP) is taken at each distinct score (tied
// atoms form one threshold); points with TP = 0 are dropped and, if the
// first remaining point has TP > 1, a point with TP = 1 and the same
// precision is put before it; between consecutive points the curve is
// interpolated at every integer TP with FP growing linearly in TP; the area
// is the rectangle from recall 0 to the first point plus trapezoids between
// successive points. It returns 0 when no atom is gold true. It panics if
// the slices differ in length.
func AUCPR(scores []float64, gold []bool) float64 {
	auc, _ := rankMetrics(toScored(scores, gold), 0)
	return auc
}

// AveragePrecision returns the step-wise average precision of the atoms
// ranked by descending score: the sum over distinct scores of (gain in
// recall) x (precision at that score), tied atoms forming one step. It
// returns 0 when no atom is gold true. It panics if the slices differ in
// length.
func AveragePrecision(scores []float64, gold []bool) float64 {
	_, ap := rankMetrics(toScored(scores, gold), 0)
	return ap
}

// rankMetrics returns the Davis & Goadrich AUC-PR and the average
// precision of items, plus extraNeg gold-false atoms of score 0. It sorts
// items in place.
func rankMetrics(items []scored, extraNeg int) (aucpr, ap float64) {
	pos := 0
	for _, it := range items {
		if it.gold {
			pos++
		}
	}
	if pos == 0 {
		return 0, 0
	}
	slices.SortFunc(items, func(a, b scored) int { return cmp.Compare(b.p, a.p) })
	P := float64(pos)
	var (
		tp, fp       int     // cumulative counts
		curTP, curFP float64 // last point on the curve
		prevPrec     float64 // precision at the last point
		started      bool
	)
	// visit takes the next PR point (cumulative tp, fp).
	visit := func(tp, fp int) {
		if tp == 0 {
			return
		}
		t, f := float64(tp), float64(fp)
		if !started {
			started = true
			prec := t / (t + f)
			// Rectangle from recall 0 to the point (1, f/t), which has the
			// same precision; then the flat segment up to (t, f).
			ap += t / P * prec
			aucpr = prec * t / P
			curTP, curFP, prevPrec = t, f, prec
			return
		}
		ap += (t - curTP) / P * (t / (t + f))
		dtp := t - curTP
		if dtp == 0 { // vertical drop in precision
			curFP, prevPrec = f, t/(t+f)
			return
		}
		skew := (f - curFP) / dtp
		for x := 1.0; x <= dtp; x++ {
			it, ifp := curTP+x, curFP+skew*x
			prec := it / (it + ifp)
			aucpr += (prevPrec + prec) / 2 / P
			prevPrec = prec
		}
		curTP, curFP = t, f
	}
	for i := 0; i < len(items); {
		s := items[i].p
		for j := i; i < len(items) && (i == j || items[i].p == s); i++ {
			if items[i].gold {
				tp++
			} else {
				fp++
			}
		}
		if i == len(items) && s == 0 {
			fp += extraNeg // the unlisted atoms tie with the last group
			extraNeg = 0
		}
		visit(tp, fp)
	}
	if extraNeg > 0 {
		visit(tp, fp+extraNeg)
	}
	return aucpr, ap
}
