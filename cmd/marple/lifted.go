package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/infer/bp"
	"github.com/marple-mln/marple/mln"
)

// inferLiftedModel runs `infer -bp -lifted` by lifting the first-order
// model (bp.LiftModel), without grounding, and writes the marginals of the
// unknown query atoms in the order the ground network lists them (with
// -omitFree, Alchemy's BP output, the atoms of Alchemy's factor graph in its
// order, for which it grounds the network: writeLiftedAlchemy). It
// returns false, having done nothing, when the model or the flags ask for
// what LiftModel does not lift (-cw, -a, -outputNetwork; the caller then
// lifts the ground network).
func inferLiftedModel(ctx context.Context, e *env, p *progress, ax *inferExtras, wf *worldFlags, m *mln.Model, db *mln.Database, out string, start time.Time) (bool, error) {
	if wf.closedWorld != "" || ax.outputNetwork || ax.all {
		return false, nil
	}
	query, err := m.PredIDs(wf.query)
	if err != nil {
		return false, usagef("-q: %v", err)
	}
	query = append(query, ax.qevPreds...)
	slices.Sort(query)
	query = slices.Compact(query)
	// The open-world predicates (-ow) are unknown like the query ones,
	// but not written.
	open := slices.Clone(query)
	if wf.openWorld != "" {
		ow, err := m.PredIDs(wf.openWorld)
		if err != nil {
			return false, usagef("-ow: %v", err)
		}
		open = append(open, ow...)
		slices.Sort(open)
		open = slices.Compact(open)
	}
	for q := range m.Preds {
		id := mln.PredID(q)
		if slices.Contains(open, id) {
			continue
		}
		if m.OpenByDefault(id, db) {
			open = append(open, id) // open world in the model's dialect
		} else if wf.nonEvidenceOpen && !m.Preds[id].Closed && db.Count(id) == 0 {
			open = append(open, id) // no evidence: open world (-nonEvidenceOpen)
		}
	}
	slices.Sort(open)
	done := p.stage("lifted BP")
	mm, st, err := bp.LiftModel(ctx, m, db, open, bp.Options{MaxIterations: ax.maxSteps, Tolerance: ax.convThresh})
	if errors.Is(err, bp.ErrNotLiftable) {
		p.logf("lifted BP: the first-order model is not liftable as it is (%v); lifting the ground network", err)
		return false, nil
	}
	if err != nil {
		return true, err
	}
	conv := "converged"
	if !st.Converged {
		conv = fmt.Sprintf("NOT CONVERGED (largest change %.3g > -convThresh %g)", st.MaxChange, ax.convThresh)
		fmt.Fprintf(e.stderr, "marple infer: warning: lifted belief propagation did not converge in %d iterations: largest change of a marginal %.3g > -convThresh %g (raise -maxSteps, or -bp without -lifted damps the messages)\n",
			st.Iterations, st.MaxChange, ax.convThresh)
	}
	how := fmt.Sprintf("lifted from the model: %s; belief propagation: %d iterations, %s, not checked against MC-SAT", st.Compression(), st.Iterations, conv)
	note, err := checkHardModel(ctx, e.stderr, wf, m, db, query)
	if err != nil {
		return true, err
	}
	how += note
	done("%s", how)
	fmt.Fprintln(e.stderr, "marple infer: note: BP lifted from the model is not checked against MC-SAT (that needs the ground network); loopy BP can settle on a wrong fixed point: -bp without -lifted checks it")
	if ax.omitFree {
		return true, writeLiftedAlchemy(ctx, e, p, ax, wf, m, db, mm, out, how, start)
	}
	n := 0
	if err := atomicfile.Write(out, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for _, q := range query {
			types := m.Preds[q].Args
			doms := make([][]mln.ConstID, len(types))
			for j, t := range types {
				doms[j] = m.Types[t].Consts
			}
			args := make([]mln.ConstID, len(types))
			var rec func(j int) error
			rec = func(j int) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				if j == len(args) {
					if v, ok := db.Get(q, args); ok && v != mln.Unknown {
						return nil // evidence
					}
					if !ax.keep(q, args) {
						return nil
					}
					n++
					bw.WriteString(m.AtomString(q, args))
					bw.WriteByte(' ')
					bw.WriteString(strconv.FormatFloat(mm.Prob(q, args), 'g', 6, 64))
					bw.WriteByte('\n')
					return nil
				}
				for _, c := range doms[j] {
					args[j] = c
					if err := rec(j + 1); err != nil {
						return err
					}
				}
				return nil
			}
			if err := rec(0); err != nil {
				return err
			}
		}
		return bw.Flush()
	}); err != nil {
		return true, err
	}
	fmt.Fprintf(e.stdout, "marple infer: %d query atoms, %s, %.2fs\n", n, how, time.Since(start).Seconds())
	return true, nil
}

// writeLiftedAlchemy writes the marginals mm of the lifted model as
// Alchemy's BP output (-omitFree): the atoms of its ground factor graph in
// its order (with those of the hidden predicates under -listHidden), for
// which the network is ground.
func writeLiftedAlchemy(ctx context.Context, e *env, p *progress, ax *inferExtras, wf *worldFlags, m *mln.Model, db *mln.Database, mm *bp.ModelMarginals, out, how string, start time.Time) error {
	net, gopt, err := groundProblem(ctx, p, e, wf, m, db)
	if err != nil {
		return err
	}
	isQuery := ax.queryMask(m, gopt.Query)
	alchemyOrder(e.stderr, ax, m, db, net, gopt, isQuery)
	probs := make([]float64, net.NumAtoms())
	for a := range probs {
		probs[a] = mm.Prob(net.AtomPred[a], net.AtomArgs[a])
	}
	var lines lineCounter
	if err := atomicfile.Write(out, func(w io.Writer) error {
		return ax.writeMarginals(io.MultiWriter(w, &lines), m, net, probs, isQuery)
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple infer: %d atoms written in the order of Alchemy's factor graph, %s, %.2fs\n", lines, how, time.Since(start).Seconds())
	return nil
}

// lineCounter counts the lines written to it.
type lineCounter int

func (c *lineCounter) Write(b []byte) (int, error) {
	*c += lineCounter(bytes.Count(b, []byte{'\n'}))
	return len(b), nil
}
