package ground

// SetChunkSize sets the expected number of ground clauses per work unit
// and returns the previous value (tests use it to force many units).
func SetChunkSize(n float64) float64 {
	old := chunkSize
	chunkSize = n
	return old
}

// ClauseBytes returns the memory of the network's clause storage.
func ClauseBytes(n *Network) int64 { return n.clauseBytes() }
