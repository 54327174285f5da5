package invent

import (
	"bytes"
	"context"
	"encoding/gob"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testkit/mrcgen"
)

// TestJournalReplay resumes Tune and Learn from states saved along the way
// and checks the models equal an uninterrupted run's.
func TestJournalReplay(t *testing.T) {
	g := mrcgen.Generate(mrcgen.Config{Friends: 3, Teams: 2, PerCell: 2, Hobbies: 2, Skills: 2, Noise: 0.05, Seed: 3})
	d := load(t, g.MLN, g.DB, true)
	grid := TuneGrid{Lambdas: []float64{1, 3}, Betas: []float64{3}, Holdout: 0.2}
	run := func(j *Journal) string {
		opt := Options{Seed: 2, Restarts: 4, Journal: j}
		opt, _, err := Tune(context.Background(), d, opt, grid)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Learn(context.Background(), d, opt)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.WriteMLN(&b, "C"); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteReport(&b, 10); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want := run(nil)
	var saved [][]byte
	got := run(NewJournal(nil, func(s *JournalState) error {
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(s); err != nil {
			return err
		}
		saved = append(saved, b.Bytes())
		return nil
	}, time.Nanosecond))
	if got != want {
		t.Fatal("a run with a journal differs from one without")
	}
	if len(saved) < 3 {
		t.Fatalf("%d states saved", len(saved))
	}
	for _, i := range []int{0, 1, len(saved) / 3, len(saved) / 2, len(saved) - 1} {
		st := &JournalState{}
		if err := gob.NewDecoder(bytes.NewReader(saved[i])).Decode(st); err != nil {
			t.Fatal(err)
		}
		if got := run(NewJournal(st, nil, 0)); got != want {
			t.Errorf("resumed from state %d of %d (%d tuned, %d steps, %d restarts): the model differs", i, len(saved), len(st.Tuned), len(st.Steps), len(st.Restarts))
		}
	}
}

// TestJournalEveryZero: with every 0 the journal saves only when Save is
// called (on an interrupt), never along the way.
func TestJournalEveryZero(t *testing.T) {
	g := mrcgen.Generate(mrcgen.Config{Friends: 3, Teams: 2, PerCell: 2, Hobbies: 2, Skills: 2, Noise: 0.05, Seed: 3})
	d := load(t, g.MLN, g.DB, true)
	saves := 0
	learn := func(every time.Duration) *Journal {
		saves = 0
		j := NewJournal(nil, func(*JournalState) error { saves++; return nil }, every)
		if _, err := Learn(context.Background(), d, Options{Seed: 2, Restarts: 2, Lambda: 3, Beta: 3, Journal: j}); err != nil {
			t.Fatal(err)
		}
		return j
	}
	if learn(time.Nanosecond); saves == 0 {
		t.Fatal("no save after the steps with every 1ns")
	}
	j := learn(0)
	if saves != 0 {
		t.Errorf("%d periodic saves with every 0, want none", saves)
	}
	if err := j.Save(); err != nil || saves != 1 {
		t.Errorf("Save: %v, %d saves, want 1", err, saves)
	}
}
