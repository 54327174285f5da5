package mws

// descend flips atoms whose flip lowers the cost until none does.
func (w *walker) descend() int {
	flips := 0
	for {
		changed := false
		for a := range w.at {
			if w.at[a].delta < -1e-9 {
				w.flip(int32(a))
				flips++
				changed = true
			}
		}
		if !changed {
			return flips
		}
	}
}
