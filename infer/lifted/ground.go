package lifted

import (
	"context"

	"github.com/marple-mln/marple/mln"
)

// exactGround counts the ground network when the lifted computation could
// not (nl says why).
func exactGround(ctx context.Context, m *mln.Model, db *mln.Database, opt Options, nl *NotLiftableError) (*Result, error) {
	return nil, nl
}
