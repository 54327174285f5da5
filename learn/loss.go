package learn

import "fmt"

// LabelLoss is a label loss function ρ(y, y') between the true and another
// assignment, counted over the query atoms.
type LabelLoss int

// The label losses of Huynh & Mooney (SDM 2011, §4.2).
const (
	// Hamming counts the query atoms on which the assignments differ.
	Hamming LabelLoss = iota
	// F1 is 100·(1 − F1) of the true query atoms of y' against those of y
	// (F1 = 2·|both|/(|true in y| + |true in y'|), 1 when both are empty).
	// It does not decompose over atoms, so it only works with the
	// prediction-based label.
	F1
)

// String returns the loss's name.
func (l LabelLoss) String() string {
	switch l {
	case Hamming:
		return "hamming"
	case F1:
		return "f1"
	}
	return fmt.Sprintf("LabelLoss(%d)", int(l))
}

// Loss returns ρ(truth, pred) over the atoms marked in query (nil: all).
func (l LabelLoss) Loss(truth, pred, query []bool) float64 {
	switch l {
	case F1:
		return F1Loss(truth, pred, query)
	default:
		return HammingLoss(truth, pred, query)
	}
}

// HammingLoss returns the number of atoms marked in query (nil: all) on
// which truth and pred differ.
func HammingLoss(truth, pred, query []bool) float64 {
	n := 0
	for a := range truth {
		if (query == nil || query[a]) && truth[a] != pred[a] {
			n++
		}
	}
	return float64(n)
}

// F1Loss returns 100·(1 − F1) where F1 is the harmonic mean of precision
// and recall of the atoms true in pred against those true in truth, over
// the atoms marked in query (nil: all). Both sets empty gives 0.
func F1Loss(truth, pred, query []bool) float64 {
	tp, nt, np := 0, 0, 0
	for a := range truth {
		if query != nil && !query[a] {
			continue
		}
		if truth[a] {
			nt++
		}
		if pred[a] {
			np++
			if truth[a] {
				tp++
			}
		}
	}
	if nt+np == 0 {
		return 0
	}
	return 100 * (1 - 2*float64(tp)/float64(nt+np))
}

// HammingBias returns the linear terms that turn MAP into Hamming
// loss-augmented MAP: argmax_y' score(y') + ρ_Hamming(truth, y') is MAP
// with infer.Options.Bias b where b_a = −1 for a query atom true in truth,
// +1 for a query atom false in truth, 0 outside the query (the loss equals
// Σ_a b_a·y'_a plus the number of gold-true query atoms, a constant). dst
// is reused when large enough.
func HammingBias(dst []float64, truth, query []bool) []float64 {
	if cap(dst) < len(truth) {
		dst = make([]float64, len(truth))
	}
	dst = dst[:len(truth)]
	for a, t := range truth {
		switch {
		case query != nil && !query[a]:
			dst[a] = 0
		case t:
			dst[a] = -1
		default:
			dst[a] = 1
		}
	}
	return dst
}
