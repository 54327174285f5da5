package mln

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marple-mln/marple/syntax"
)

// DetectDialect looks in the files a model includes and in the evidence,
// and not in files that are not regular.
func TestDetectDialectFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	top := write("top.mln", "#include \"rules.mln\"\nH(t)\n")
	write("rules.mln", "E(t)\nE(t) => H(t++).\n")
	plain := write("plain.mln", "H(t)\nE(t)\nE(t) => H(t).\n")
	soft := write("soft.db", "E(1)\n0.8 H(2)\n")
	d, why, err := DetectDialect([]string{top}, nil)
	if err != nil || d != syntax.LoMRF || why == nil || why.Pos.File != filepath.Join(dir, "rules.mln") || why.Pos.Line != 2 {
		t.Errorf("included t++: %v %v %v", d, why, err)
	}
	// Soft evidence means a prior in Tuffy's dialect and a fitted
	// probability in pracmln's: alone it chooses neither.
	if _, _, err = DetectDialect([]string{plain}, []string{soft}); err == nil || !strings.Contains(err.Error(), "-dialect tuffy or -dialect pracmln") {
		t.Errorf("soft evidence: %v", err)
	}
	cond := write("cond.mln", "H(t)\nE(t)\n1 E(a) v H(b) [a != b]\n")
	d, why, err = DetectDialect([]string{cond}, []string{soft})
	if err != nil || d != syntax.Tuffy || why.Pos.File != cond {
		t.Errorf("soft evidence and a condition: %v %v %v", d, why, err)
	}
	if _, _, err := DetectDialect([]string{top}, []string{soft}); err == nil || !strings.Contains(err.Error(), "different dialects") {
		t.Errorf("t++ and soft evidence: %v", err)
	}
	d, why, err = DetectDialect([]string{plain, filepath.Join(dir, "missing.mln")}, []string{os.DevNull})
	if err != nil || d != syntax.Alchemy || why != nil {
		t.Errorf("no markers: %v %v %v", d, why, err)
	}
}
