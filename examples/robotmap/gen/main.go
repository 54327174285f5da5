// Command gen generates the robot-mapping example's data: line segments
// extracted from laser scans of rooms, each a wall, a door or other
// (furniture, clutter), after the domain of Wang and Domingos's hybrid MLN
// paper.
//
// Each scan is a sequence of segments (Next(s, t) links consecutive ones);
// the labels follow a Markov chain (after a wall: wall 0.4, door 0.3, other
// 0.3; after a door: wall 0.7, other 0.3; after other: wall 0.5, door 0.2,
// other 0.3). A segment has a length in metres and an angle in radians to
// the scan's dominant wall direction:
//
//	wall   Length ~ N(3, 1) (at least 0.3)   Angle ~ N(0, 0.05)
//	door   Length ~ N(0.9, 0.06)             Angle ~ N(0, 0.08)
//	other  Length ~ uniform(0.3, 2)          Angle ~ N(0, 0.1) (furniture against a wall, 60%)
//	                                               or uniform(-pi/2, pi/2)
//
// Doors are short and in line with the walls, as much furniture is: their
// precise width tells them apart, which the discretised evidence cannot
// see.
//
// It writes, into -dir, for the training set (segments T1, T2, ...) and the
// test set (S1, S2, ...; the test seed is -seed+1):
//
//	train.db, test.db            Next links, and for train.db the labels Wall(s), Door(s)
//	train-real.db, test-real.db  Length(s) and Angle(s) values (the hybrid model's evidence)
//	train-bool.db, test-bool.db  the same discretised: Long(s) (length > 1.5),
//	                             Short(s) (length < 1.2), Aligned(s) (|angle| < 0.2)
//	test-truth.db                the test labels
//
// The shipped files come from: go run ./examples/robotmap/gen -dir examples/robotmap
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

type seg struct {
	name          string
	label         int // 0 wall, 1 door, 2 other
	length, angle float64
}

func main() {
	dir := flag.String("dir", ".", "output directory")
	seed := flag.Uint64("seed", 1, "random seed of the training set (the test set uses seed+1)")
	scans := flag.Int("scans", 20, "scans per set")
	perScan := flag.Int("segments", 12, "segments per scan")
	flag.Parse()
	for i, set := range []string{"train", "test"} {
		prefix := map[string]string{"train": "T", "test": "S"}[set]
		segs, next := generate(*seed+uint64(i), *scans, *perScan, prefix)
		write(filepath.Join(*dir, set+".db"), func(w *bufio.Writer) {
			for _, n := range next {
				fmt.Fprintf(w, "Next(%s,%s)\n", n[0], n[1])
			}
			if set == "train" {
				labels(w, segs)
			}
		})
		write(filepath.Join(*dir, set+"-real.db"), func(w *bufio.Writer) {
			for _, s := range segs {
				fmt.Fprintf(w, "Length(%s) %.2f\nAngle(%s) %.3f\n", s.name, s.length, s.name, s.angle)
			}
		})
		write(filepath.Join(*dir, set+"-bool.db"), func(w *bufio.Writer) {
			for _, s := range segs {
				if s.length > 1.5 {
					fmt.Fprintf(w, "Long(%s)\n", s.name)
				}
				if s.length < 1.2 {
					fmt.Fprintf(w, "Short(%s)\n", s.name)
				}
				if math.Abs(s.angle) < 0.2 {
					fmt.Fprintf(w, "Aligned(%s)\n", s.name)
				}
			}
		})
		if set == "test" {
			write(filepath.Join(*dir, "test-truth.db"), func(w *bufio.Writer) { labels(w, segs) })
		}
	}
}

func labels(w *bufio.Writer, segs []seg) {
	for _, s := range segs {
		switch s.label {
		case 0:
			fmt.Fprintf(w, "Wall(%s)\n", s.name)
		case 1:
			fmt.Fprintf(w, "Door(%s)\n", s.name)
		}
	}
}

func generate(seed uint64, scans, perScan int, prefix string) ([]seg, [][2]string) {
	rng := rand.New(rand.NewPCG(seed, 0x726f626f74))
	trans := [3][3]float64{{0.4, 0.3, 0.3}, {0.7, 0, 0.3}, {0.5, 0.2, 0.3}}
	var segs []seg
	var next [][2]string
	for range scans {
		label := 0
		for j := range perScan {
			if j > 0 {
				u, c := rng.Float64(), 0.0
				prev := label
				for l := 0; l < 3; l++ {
					c += trans[prev][l]
					if u < c {
						label = l
						break
					}
				}
			}
			s := seg{name: fmt.Sprintf("%s%d", prefix, len(segs)+1), label: label}
			switch label {
			case 0:
				s.length = math.Max(0.3, 3+rng.NormFloat64())
				s.angle = 0.05 * rng.NormFloat64()
			case 1:
				s.length = 0.9 + 0.06*rng.NormFloat64()
				s.angle = 0.08 * rng.NormFloat64()
			default:
				s.length = 0.3 + 1.7*rng.Float64()
				if rng.Float64() < 0.6 {
					s.angle = 0.1 * rng.NormFloat64()
				} else {
					s.angle = (rng.Float64() - 0.5) * math.Pi
				}
			}
			if j > 0 {
				next = append(next, [2]string{segs[len(segs)-1].name, s.name})
			}
			segs = append(segs, s)
		}
	}
	return segs, next
}

func write(path string, fill func(w *bufio.Writer)) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriter(f)
	fill(w)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
