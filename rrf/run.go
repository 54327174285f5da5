package rrf

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// InferConfig describes an inference run (marple infer -rrf).
type InferConfig struct {
	Models, Evidence []string
	Query            []string // query predicate names (open world)
	MAP              bool     // ICM; otherwise Gibbs marginals
	Gibbs            GibbsOptions
	ICM              ICMOptions
	// Warn receives warnings (formulas without a weight, run at 0).
	Warn io.Writer
}

// InferResult is the result of Infer.
type InferResult struct {
	Net       *Network
	Marginals *Marginals // Gibbs
	MAP       *MAPResult // ICM
	query     []bool
}

// LoadProblem reads a model and its evidence (the evidence may be empty)
// and resolves the predicate names in query.
func LoadProblem(models, evidence, query []string, flag string) (*Model, *mln.Database, []bool, error) {
	m, err := Load(models...)
	if err != nil {
		return nil, nil, nil, err
	}
	db := mln.NewDatabase(m.MLN)
	if len(evidence) > 0 {
		if db, err = mln.LoadDatabase(m.MLN, evidence...); err != nil {
			return nil, nil, nil, err
		}
	}
	if len(query) == 0 {
		return nil, nil, nil, fmt.Errorf("no query predicates: give -%s", flag)
	}
	q := make([]bool, len(m.MLN.Preds))
	for _, name := range query {
		p, ok := m.MLN.Pred(name)
		if !ok {
			if strings.Contains(name, "(") {
				return nil, nil, nil, fmt.Errorf("-%s %s: a recursive random field takes query predicates, not atoms", flag, name)
			}
			return nil, nil, nil, fmt.Errorf("-%s: unknown predicate %s", flag, name)
		}
		q[p.ID] = true
	}
	return m, db, q, nil
}

// Infer loads the model and evidence, grounds them and runs Gibbs sampling
// or, with MAP, ICM.
func Infer(ctx context.Context, cfg InferConfig) (*InferResult, error) {
	m, db, q, err := LoadProblem(cfg.Models, cfg.Evidence, cfg.Query, "q")
	if err != nil {
		return nil, err
	}
	if cfg.Warn != nil {
		for _, f := range m.Formulas {
			if f.Unweighted {
				fmt.Fprintf(cfg.Warn, "marple: warning: %s: formula without a weight, run with weight 0: %s\n", f.Pos, f.Text)
			}
		}
	}
	net, err := Ground(ctx, m, db, GroundOptions{Query: q})
	if err != nil {
		return nil, err
	}
	res := &InferResult{Net: net, query: q}
	w := m.Weights()
	if cfg.MAP {
		res.MAP, err = ICM(ctx, net, w, cfg.ICM)
	} else {
		res.Marginals, err = Gibbs(ctx, net, w, cfg.Gibbs)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Summary describes the run in one line: the network's size and the
// engine's figures, with any failure to converge.
func (r *InferResult) Summary() string {
	n := r.Net
	what := "nested weights"
	if !n.Model.Nested() {
		what = "no nested weights: the Markov logic network"
	}
	s := fmt.Sprintf("recursive random field (%s), %d atoms, %d ground formulas, %d nodes, ", what, len(n.Atoms), n.NumGroundings(), n.NumNodes())
	if r.MAP != nil {
		s += fmt.Sprintf("ICM (%d starts), score %.6g, a local optimum, not proved a global one", r.MAP.Restarts, r.MAP.Score)
		if !r.MAP.Converged {
			s += "; NOT CONVERGED: a start reached the sweep limit"
		}
		return s
	}
	return s + r.Marginals.Summary()
}

// Write writes the result as marple infer does: for ICM the true query
// atoms of the state, one per line; for Gibbs every unknown query atom with
// its probability.
func (r *InferResult) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	n := r.Net
	for a, at := range n.Atoms {
		if !r.query[at.Pred] {
			continue
		}
		if r.MAP != nil {
			if r.MAP.X[a] {
				bw.WriteString(n.AtomString(a))
				bw.WriteByte('\n')
			}
			continue
		}
		bw.WriteString(n.AtomString(a))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatFloat(r.Marginals.P[a], 'g', 6, 64))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// LearnConfig describes a learning run (marple learn -rrf).
type LearnConfig struct {
	Models []string
	// Train are the training databases: their atoms of the NonEvidence
	// predicates are the truth (unlisted false) whose pseudo-likelihood
	// is maximised; the rest is evidence. With Multiple each file is a
	// database on its own; otherwise they are merged into one.
	Train       []string
	NonEvidence []string
	Multiple    bool
	Options     LearnOptions
}

// LearnRun is the result of LearnModel.
type LearnRun struct {
	Model  *Model
	Result *LearnResult
	Atoms  int // training variables
}

// LearnModel loads the model and the training data and learns every weight.
func LearnModel(ctx context.Context, cfg LearnConfig) (*LearnRun, error) {
	groups := [][]string{cfg.Train}
	if cfg.Multiple {
		groups = groups[:0]
		for _, t := range cfg.Train {
			groups = append(groups, []string{t})
		}
	}
	// Each database is read with its own copy of the model, so that its
	// domains are the model's constants and its own.
	var m *Model
	var nets []*Network
	atoms := 0
	for _, g := range groups {
		mi, db, q, err := LoadProblem(cfg.Models, g, cfg.NonEvidence, "ne")
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = mi
		}
		net, err := Ground(ctx, mi, db, GroundOptions{Query: q, Train: true})
		if err != nil {
			return nil, err
		}
		nets = append(nets, net)
		atoms += len(net.Atoms)
	}
	res, err := Learn(ctx, nets, m.Weights(), cfg.Options)
	if err != nil {
		return nil, err
	}
	m.SetWeights(res.Weights)
	return &LearnRun{Model: m, Result: res, Atoms: atoms}, nil
}

// Write writes the learned model.
func (r *LearnRun) Write(w io.Writer) error {
	var b bytes.Buffer
	if err := r.Model.Write(&b); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
