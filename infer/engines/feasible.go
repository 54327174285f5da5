package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// CheckHard decides, before any marginal engine samples or propagates,
// whether some world satisfies every hard clause of net
// (infer.CheckHard): it returns an error wrapping infer.ErrInfeasible
// when none does, and nil otherwise. A search that exceeds its budget
// (infer.ErrSATBudget) leaves the question open: it is written to report
// (when not nil) and is not an error, so the engine still runs (MC-SAT and
// Gibbs then fail if they find no such world themselves). The hard
// groundings the evidence alone falsifies (net.HardFalse) are not in the
// network and are the caller's to warn about (see HardFalseWarning).
//
// Every engine NewMarginal returns runs it on each new network it is
// given; callers that bypass the registry (a hand-made mcsat.Sampling)
// call it themselves.
func CheckHard(ctx context.Context, net *ground.Network, report io.Writer) error {
	_, err := infer.CheckHard(ctx, net)
	if errors.Is(err, infer.ErrSATBudget) {
		if report != nil {
			fmt.Fprintf(report, "hard clauses: not decided whether they can all hold (%v)\n", err)
		}
		return nil
	}
	return err
}

// HardFalseWarning returns the warning a marginal inference gives when
// the evidence alone falsifies n hard groundings (ground.Network.HardFalse;
// "" when n is 0): the network's distribution is then over the other
// clauses. The words are those of MAP inference's warning.
func HardFalseWarning(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("every world violates %d hard clauses (%d falsified by the evidence alone): the marginals are those of the other clauses", n, n)
}

// checked is a marginal engine that runs CheckHard first on every network
// it has not checked yet (the last one is remembered: learners and
// decision inference call an engine many times on one network).
type checked struct {
	infer.Marginal
	report io.Writer

	mu   sync.Mutex
	last *ground.Network
	n    int // the last network's clauses when checked
}

func (c *checked) Marginals(ctx context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	c.mu.Lock()
	seen := c.last == net && c.n == net.NumClauses()
	c.mu.Unlock()
	if !seen {
		if err := CheckHard(ctx, net, c.report); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name(), err)
		}
		c.mu.Lock()
		c.last, c.n = net, net.NumClauses()
		c.mu.Unlock()
	}
	return c.Marginal.Marginals(ctx, net, opt)
}

// Unwrap returns the engine m wraps when NewMarginal built it (m itself
// otherwise): the engine proper, for callers that use what its type
// offers beyond infer.Marginal (the options of a bp.Engine, say).
func Unwrap(m infer.Marginal) infer.Marginal {
	if c, ok := m.(*checked); ok {
		return c.Marginal
	}
	return m
}
