package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParamNameSeparators: constants holding the separators ('|', ':')
// and digits give distinct names that read back as they were written,
// and a model whose "+" constants hold them trains and is written.
func TestParamNameSeparators(t *testing.T) {
	bindings := [][]string{{"a|b", "c"}, {"a", "b|c"}, {"a|1:b"}, {"1:a"}, {""}, {"x", ""}, {"", "x"}, {"|", ":"}, {"a:b|c"}}
	seen := map[string][]string{}
	for _, b := range bindings {
		k := paramName(7, b)
		if prev, ok := seen[k]; ok {
			t.Errorf("%q and %q share the name %q", prev, b, k)
		}
		seen[k] = b
		f, got, err := ParseParamName(k)
		if err != nil || f != 7 || !slices.Equal(got, b) {
			t.Errorf("%q: read back as %d %q, %v", k, f, got, err)
		}
	}
	for _, bad := range []string{"", "x", "-1", "3|", "3|2", "3|5:ab", "3|-1:", "3|1:ab", "3x|1:a"} {
		if _, _, err := ParseParamName(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}

	dir := t.TempDir()
	model := filepath.Join(dir, "m.mln")
	data := filepath.Join(dir, "d.db")
	write(t, model, "Word(tok, word)\nLabel(tok)\nWord(t, +w) => Label(t)\n")
	var b strings.Builder
	for i := range 12 {
		w := []string{`"a|b"`, `"a"`, `"b|c"`, `"1:a|x"`}[i%4]
		fmt.Fprintf(&b, "Word(T%d, %s)\n", i, w)
		if i%4 < 2 {
			fmt.Fprintf(&b, "Label(T%d)\n", i)
		}
	}
	write(t, data, b.String())
	d := Data{Model: []string{model}, Files: []string{data}, Query: []string{"Label"}, ExampleType: "tok"}
	cfg := TrainConfig{Data: d, Learner: Learner{Sigma: 0.1}, Passes: 2, Shards: 2}
	st, err := TrainLocal(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Weights.Names) != 4 {
		t.Errorf("%d weights %q, want one per word", len(st.Weights.Names), st.Weights.Names)
	}
	out := filepath.Join(dir, "learned.mln")
	if err := WriteModel(d, st.Final(false), out); err != nil {
		t.Fatal(err)
	}
	learned, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"a|b"`, `"b|c"`, `"1:a|x"`} {
		if !strings.Contains(string(learned), w) {
			t.Errorf("the learned model does not name %s:\n%s", w, learned)
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// citeData writes a small CiteSeer-like data set: the evidence (Token)
// and the truth (InField) of n citations in two files, or in one.
func citeData(t *testing.T, n int, separate bool) Data {
	dir := t.TempDir()
	model := filepath.Join(dir, "cite.mln")
	write(t, model, "Token(word, pos, bib)\nInField(bib, field, pos)\nfield = {Fa, Ft}\nToken(+w, p, b) => InField(b, +f, p)\n")
	var ev, truth strings.Builder
	for i := range n {
		for j := range 3 + i%4 {
			w := (i*7 + j*3) % 10
			fmt.Fprintf(&ev, "Token(W%d, P%d, B%d)\n", w, j, i)
			f := "Fa"
			if w%3 == 0 {
				f = "Ft"
			}
			fmt.Fprintf(&truth, "InField(B%d, %s, P%d)\n", i, f, j)
		}
	}
	d := Data{Model: []string{model}, Query: []string{"InField"}}
	if separate {
		d.Files = []string{filepath.Join(dir, "cite.evidence.db"), filepath.Join(dir, "cite.infield.db")}
		write(t, d.Files[0], ev.String())
		write(t, d.Files[1], truth.String())
	} else {
		d.Files = []string{filepath.Join(dir, "cite.db")}
		write(t, d.Files[0], ev.String()+truth.String())
	}
	return d
}

// TestSeparateTruthFiles: an example's evidence in one file and its truth
// in another is one example, as marple learn takes them: the merged
// examples hold the atoms of the one-file examples, and training on the
// separate files is training on the one file, on prism as locally. When
// the truth atoms do not name the example's constant (so that they join
// no example of their file), the files are refused, naming the file.
func TestSeparateTruthFiles(t *testing.T) {
	sep, whole := citeData(t, 24, true), citeData(t, 24, false)
	for _, d := range []*Data{&sep, &whole} {
		if err := d.CheckFiles(context.Background()); err != nil || d.ExampleType != "bib" {
			t.Fatalf("CheckFiles: %v, example type %q", err, d.ExampleType)
		}
	}
	w := MergeParts(readAll(t, whole))
	m := MergeParts(readAll(t, sep))
	if len(m) != len(w) || len(w) != 24 {
		t.Fatalf("%d merged examples, %d in the whole file", len(m), len(w))
	}
	for i := range w {
		if m[i].ID != w[i].ID || m[i].Key != w[i].Key || sortLines(m[i].DB) != sortLines(w[i].DB) {
			t.Errorf("example %d: %s %s\n%s\nwant %s %s\n%s", i, m[i].ID, m[i].Key, m[i].DB, w[i].ID, w[i].Key, w[i].DB)
		}
	}
	cfg := TrainConfig{Data: sep, Learner: Learner{Sigma: 0.1}, Passes: 2, Shards: 2}
	want, err := TrainLocal(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Data = whole
	one, err := TrainLocal(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The truth reaches the learner: the loss falls.
	if want.Steps != 48 || want.Loss[1] >= want.Loss[0] || len(want.Weights.Names) == 0 {
		t.Errorf("%d updates, loss per epoch %v, %d weights", want.Steps, want.Loss, len(want.Weights.Names))
	}
	sameStates(t, "separate files against one file", want, one)
	cfg.Data = sep
	got, _ := runTrain(t, cfg)
	sameStates(t, "separate files, pipeline against local", got, want)

	// SRL: Role(token, role) names no proposition.
	d := srlData(t, 6, 6)
	b, err := os.ReadFile(d.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	var ev, truth strings.Builder
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(strings.TrimPrefix(l, "!"), "Role(") {
			truth.WriteString(l)
		} else {
			ev.WriteString(l)
		}
	}
	dir := t.TempDir()
	d.Files = []string{filepath.Join(dir, "srl.evidence.db"), filepath.Join(dir, "srl.truth.db")}
	write(t, d.Files[0], ev.String())
	write(t, d.Files[1], truth.String())
	err = d.CheckFiles(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), d.Files[1]+": ") || !strings.Contains(err.Error(), "join no example of type prop") {
		t.Errorf("separate SRL truth: %v", err)
	}
	if _, err := d.ReadFile(1); err == nil {
		t.Errorf("a worker reads the SRL truth file without error")
	}
}
