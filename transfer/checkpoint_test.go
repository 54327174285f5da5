package transfer

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/plantdb"
)

// TestDiscoverResume stops Discover after every few chunks of cliques,
// resumes it from the checkpoint it saved (through Write and
// ReadCheckpoint), with another number of workers, and requires the
// result of the uninterrupted run.
func TestDiscoverResume(t *testing.T) {
	decl, atoms := plantdb.Generate(plantdb.Config{N: 14, Density: 0.15, Noise2: 6, Seed: 3})
	s := tinySource(t, decl, atoms, SourceOptions{})
	base := Options{MaxOuter: 4, Seed: 9, Enum: EnumOptions{Arities: []int{2}}}
	whole, err := Discover(context.Background(), s, base)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Cliques < 3*chunkSize || whole.Sampled == 0 {
		t.Fatalf("%d cliques, %d sampled: too few for the test", whole.Cliques, whole.Sampled)
	}
	var want bytes.Buffer
	if err := Write(&want, whole, nil); err != nil {
		t.Fatal(err)
	}
	var saved []byte
	runs := 0
	for ; runs < 100; runs++ {
		ctx, cancel := context.WithCancel(context.Background())
		o := base
		o.Workers = 1 + runs%3
		if saved != nil {
			c, err := ReadCheckpoint(bytes.NewReader(saved))
			if err != nil {
				t.Fatal(err)
			}
			o.Resume = c
		}
		n := 0
		o.Checkpoint = func(c *Checkpoint) error {
			var b bytes.Buffer
			if err := c.Write(&b); err != nil {
				return err
			}
			saved = b.Bytes()
			if n++; n == 2 {
				cancel()
			}
			return nil
		}
		res, err := Discover(ctx, s, o)
		cancel()
		if errors.Is(err, context.Canceled) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := Write(&got, res, nil); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || res.Sampled != whole.Sampled {
			t.Fatalf("resumed result differs (%d sampled, want %d):\n%s\n----\n%s", res.Sampled, whole.Sampled, got.String(), want.String())
		}
		break
	}
	if runs < 2 {
		t.Errorf("finished after %d interruptions, want several", runs)
	}
	t.Logf("%d cliques, finished after %d interruptions", whole.Cliques, runs)

	// A checkpoint of another run is refused.
	c, err := ReadCheckpoint(bytes.NewReader(saved))
	if err != nil {
		t.Fatal(err)
	}
	o := base
	o.Seed = 10
	o.Resume = c
	if _, err := Discover(context.Background(), s, o); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Errorf("resume with another seed: %v, want an error naming the seed", err)
	}
	if _, err := ReadCheckpoint(strings.NewReader("junk")); err == nil {
		t.Error("junk read as a checkpoint")
	}
}
