package suggest

import "testing"

func TestClosest(t *testing.T) {
	cmds := []string{"infer", "learn", "learnstruct", "invent", "eval", "check", "transfer-templates"}
	flags := []string{"numSamples", "numChains", "maxSteps", "q", "r", "i", "e"}
	preds := []string{"Friends", "Smokes", "Cancer"}
	for _, c := range []struct {
		word  string
		cands []string
		want  string
	}{
		{"infr", cmds, "infer"},
		{"inferr", cmds, "infer"},
		{"lern", cmds, "learn"},
		{"learnstrcut", cmds, "learnstruct"},
		{"transfer", cmds, "transfer-templates"},
		{"xyz", cmds, ""},
		{"numSample", flags, "numSamples"},
		{"numsamples", flags, "numSamples"},
		{"Smoke", preds, "Smokes"},
		{"smokes", preds, "Smokes"},
		{"Frineds", preds, "Friends"},
		{"Dog", preds, ""},
		{"", preds, ""},
	} {
		if got := Closest(c.word, c.cands); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if h := Hint("Smoke", preds); h != " (did you mean Smokes?)" {
		t.Errorf("Hint = %q", h)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"ab", "ba", 1}, {"kitten", "sitting", 3}, {"abc", "abc", 0}} {
		if d := distance(c.a, c.b); d != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
}
