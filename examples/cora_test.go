package examples_test

import (
	"testing"

	"github.com/marple-mln/marple/examples"
	"github.com/marple-mln/marple/mln"
)

// TestCoraModels parses the Cora entity-resolution models: the joint
// model is the evidence-only one plus the rules that link query atoms.
func TestCoraModels(t *testing.T) {
	n := map[string]int{}
	for _, name := range []string{"cora/evidence.mln", "cora/er.mln"} {
		src, err := examples.File(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := mln.ParseModel(name, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		n[name] = len(m.Formulas)
	}
	if n["cora/evidence.mln"] != 22 || n["cora/er.mln"] != 32 {
		t.Errorf("formulas: %v", n)
	}
}
