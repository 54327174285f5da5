package syntax

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each marker is found at its position, and the text that has it does not
// parse in Alchemy's dialect; comments and strings hide markers.
func TestFindMarkers(t *testing.T) {
	cases := []struct {
		src  string
		db   bool
		name string // a word of the marker's name; "" for no marker
		pos  string
	}{
		{"S(p)\nF(p,p)\n0.7 F(a1,a2) v S(a1) v [a1 != a2]\n", false, "condition", "x:3:24"},
		{"S(p)\nF(p,p)\n0.7 F(a1,a2), S(a1) => S(a2)\n", false, "joining", "x:3:13"},
		{"S(p)\nF(p,p)\n0.7 F(a1,a2) ,S(a1) => S(a2)\n", false, "joining", "x:3:14"},
		{"H(t)\nE(t)\nH(t) :- E(t).\n", false, "Datalog", "x:3:6"},
		{"H(t)\nE(t)\nE(t) => H(t++).\n", false, "successor", "x:3:11"},
		{"S(p)\n0.8 S(Carl)\n", true, "soft evidence", "x:2:1"},
		{"S(p)\n  .5 !S(Carl)\n", true, "soft evidence", "x:2:3"},
		{"S(p)\n1e-3 S(Carl)\n", true, "soft evidence", "x:2:1"},
		{"S(p,p)\n1 S(?x, A)\n", false, "variable", "x:2:5"},
		{"S(p)\n#fixweight\n1 S(x)\n", false, "annotation", "x:2:1"},
		{"S(p)\n  #fuzzy\n", false, "annotation", "x:2:3"},
		{"S(p,p)\n1 S(x, y) ^ x =/= y\n", false, "inequality", "x:2:15"},
		{"*o(l)\nm(l, r)\n|r| !o(x) v m(x, r) <= 1\n", false, "cardinality", "x:3:1"},
		// No marker: comments, strings, Alchemy's own constructs.
		{"S(p)\n// 0.7 F(a1,a2), S(a1) v [a1 != a2] :- t++\n/* H(t) :- E(t)\n[x] */ S(x)\n", false, "", ""},
		{"S(p)\nS(\"a, [b] :- c++\")\n", false, "", ""},
		{"S(p)\nU(p)\n2:-1.5 S(x)\n1 EXIST x,y S(x) ^ S(y)\np = {A, B}\n", false, "", ""},
		{"S(Carl)\n!S(\"0.5 S(A)\")\n// 0.8 S(A)\n", true, "", ""},
		{"Dist(A, B) 3.2\nL(C) -1e-3\n", true, "", ""},
	}
	for _, c := range cases {
		found := FindMarkers("x", []byte(c.src), c.db)
		if c.name == "" {
			if len(found) > 0 {
				t.Errorf("%q: found %v, want none", c.src, found)
			}
			continue
		}
		if len(found) != 1 || !strings.Contains(found[0].Marker.Name, c.name) || found[0].Pos.String() != c.pos {
			t.Errorf("%q: found %v, want %q at %s", c.src, found, c.name, c.pos)
			continue
		}
		var err error
		if c.db {
			_, err = ParseDB("x", []byte(c.src))
		} else {
			_, err = ParseMLN("x", []byte(c.src))
		}
		if err == nil {
			t.Errorf("%q: parses in Alchemy's dialect, so it is no marker", c.src)
		}
	}
}

// DetectDialect chooses a dialect only when the markers leave exactly one.
func TestDetectDialect(t *testing.T) {
	find := func(src string, db bool) []Found { return FindMarkers("f", []byte(src), db) }
	cond := find("0.7 F(a,b) v [a != b]\n", false)
	define := find("H(t) :- E(t).\n", false)
	inc := find("E(t) => H(t++)\n", false)
	soft := find("0.8 S(A)\n", true)
	qvar := find("1 S(?x)\n", false)
	card := find("|y| S(x, y) <= 1\n", false)
	cases := []struct {
		found []Found
		want  Dialect
		err   string // a part of the error; "" for none
	}{
		{nil, Alchemy, ""},
		{cond, Tuffy, ""},
		{soft, Alchemy, "-dialect tuffy or -dialect pracmln"},
		{append(soft, cond...), Tuffy, ""},
		{append(soft, qvar...), Pracmln, ""},
		{card, RockIt, ""},
		{append(card, qvar...), Alchemy, "different dialects"},
		{inc, LoMRF, ""},
		{append(define, cond...), Tuffy, ""},
		{append(define, inc...), LoMRF, ""},
		{define, Alchemy, "-dialect tuffy or -dialect lomrf"},
		{append(inc, soft...), Alchemy, "different dialects"},
	}
	for i, c := range cases {
		d, why, err := DetectDialect(c.found)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("case %d: error %v, want %q", i, err, c.err)
			}
		case err != nil:
			t.Errorf("case %d: %v", i, err)
		case d != c.want:
			t.Errorf("case %d: %s, want %s", i, d, c.want)
		case d != Alchemy && (why == nil || len(why.Marker.Dialects) != 1):
			t.Errorf("case %d: the evidence for %s is %v", i, d, why)
		}
	}
}

// The test files that parse in Alchemy's dialect have no marker.
func TestNoMarkersInAlchemyFiles(t *testing.T) {
	for _, pattern := range []string{"testdata/*.mln", "testdata/*.db", "../mln/testdata/*.mln", "../mln/testdata/*.db", "../cmd/marple/testdata/*/*.mln", "../cmd/marple/testdata/*/*.db"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			db := strings.HasSuffix(p, ".db")
			if db {
				_, err = ParseDB(p, src)
			} else {
				_, err = ParseMLN(p, src)
			}
			if err != nil {
				continue
			}
			if m := FindMarkers(p, src, db); len(m) > 0 {
				t.Errorf("%s parses in Alchemy's dialect but has %v", p, m)
			}
		}
	}
}
