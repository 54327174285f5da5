package mln

import (
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dataDir locates the shared data set (MARPLE_DATA, default ../shared/data
// from the repository root).
func dataDir() string { return datadir.Root() }

func needData(tb testing.TB) string { return datadir.Require(tb) }

// modelExceptions lists the shared models that are not valid Alchemy, with
// the error they must give.
var modelExceptions = map[string]string{
	// univ.mln uses predicate publication without declaring it.
	"alchemy-examples/univ.mln": "univ.mln:27:8: unknown predicate publication",
}

// TestSharedModels loads and compiles every .mln file of the shared data.
func TestSharedModels(t *testing.T) {
	dir := needData(t)
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".mln" {
			return nil
		}
		n++
		rel, _ := filepath.Rel(dir, path)
		m, err := LoadModel(path)
		if want, ok := modelExceptions[filepath.ToSlash(rel)]; ok {
			if err == nil || !strings.HasSuffix(firstError(err), want) {
				t.Errorf("%s: got %v, want error ending %q", rel, err, want)
			}
			return nil
		}
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if err := m.Compile(); err != nil {
			t.Errorf("%s: compile: %v", rel, err)
		}
		return nil
	})
	if n == 0 {
		t.Error("no models found")
	}
}

// sharedDBs pairs every .db file of the shared data with the model files
// it is evidence for.
var sharedDBs = []struct {
	models []string
	dbs    string // glob
}{
	{[]string{"citeseer/models/ie_base.mln"}, "citeseer/*.db"},
	{[]string{"citeseer/models/ie_jntseg.mln"}, "citeseer/*.db"},
	{[]string{"citeseer/models/tuffy-ie-prog.mln"}, "citeseer/*.db"},
	{[]string{"uw-cse/uw.mln"}, "uw-cse/*.db"},
	{[]string{"uw-cse/tuffy-weighted-prog.mln"}, "uw-cse/*.db"},
	{[]string{"imdb/empty.mln"}, "imdb/*.db"},
	{[]string{"imdb/test.mln"}, "imdb/*.db"},
	{[]string{"smokers/smoking.mln"}, "smokers/*.db"},
	{[]string{"alchemy-examples/example-model.mln"}, "alchemy-examples/example-evidence.db"},
	{[]string{"alchemy-examples/lsm-alchemy30-exdata/univ-empty.mln",
		"alchemy-examples/lsm-alchemy30-exdata/univ-train.mln"}, "alchemy-examples/lsm-alchemy30-exdata/univ-train.db"},
	{[]string{"alchemy-examples/lsm-alchemy30-exdata/univ.mln",
		"alchemy-examples/lsm-alchemy30-exdata/univ-test.mln"}, "alchemy-examples/lsm-alchemy30-exdata/univ-test.db"},
	{[]string{"kinship/kinship.mln"}, "kinship/*.db"},
	{[]string{"nations/nations.mln"}, "nations/*.db"},
	{[]string{"animals/animals.mln"}, "animals/*.db"},
	{[]string{"umls/umls.mln"}, "umls/*.db"},
	{[]string{"umls/umls.mln"}, "umls/*.db.gz"},
	{[]string{"cora-alchemy/cora.mln"}, "cora-alchemy/*.db"},
	{[]string{"webkb/webkb.mln", webkbWords}, "webkb/*.db"},
}

// webkbWords stands for a generated file declaring the HasWord(page)
// predicates that the WebKB evidence uses and webkb.mln does not declare.
const webkbWords = "<webkb words>"

// declareUndeclared writes a model file declaring, as unary predicates over
// page, every predicate the .db files of glob use that is not declared in
// model, and returns its path.
func declareUndeclared(t *testing.T, model, glob string) string {
	known := map[string]bool{}
	if b, err := os.ReadFile(model); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if i := strings.IndexByte(line, '('); i > 0 && !strings.ContainsAny(line[:i], " ^=>") {
				known[line[:i]] = true
			}
		}
	}
	files, _ := filepath.Glob(glob)
	var decl strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimPrefix(strings.TrimSpace(line), "!")
			i := strings.IndexByte(line, '(')
			if i <= 0 || known[line[:i]] {
				continue
			}
			known[line[:i]] = true
			decl.WriteString(line[:i] + "(page)\n")
		}
	}
	p := filepath.Join(t.TempDir(), "words.mln")
	if err := os.WriteFile(p, []byte(decl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSharedDatabases loads every .db file of the shared data with its
// model, and compiles the model against the evidence's domains.
func TestSharedDatabases(t *testing.T) {
	dir := needData(t)
	covered := map[string]bool{}
	for _, tc := range sharedDBs {
		var models []string
		for _, p := range tc.models {
			if p == webkbWords {
				p = declareUndeclared(t, models[0], filepath.Join(dir, tc.dbs))
				models = append([]string{p}, models...)
				continue
			}
			models = append(models, filepath.Join(dir, p))
		}
		dbs, _ := filepath.Glob(filepath.Join(dir, tc.dbs))
		if len(dbs) == 0 {
			t.Errorf("%s: no files", tc.dbs)
			continue
		}
		m, err := LoadModel(models...)
		if err != nil {
			t.Errorf("%v: %v", tc.models, err)
			continue
		}
		db, err := LoadDatabase(m, dbs...)
		if err != nil {
			t.Errorf("%v: %v", tc.dbs, err)
			continue
		}
		if err := m.Compile(); err != nil {
			t.Errorf("%v: compile: %v", tc.models, err)
		}
		atoms := 0
		for p := range m.Preds {
			atoms += db.Count(PredID(p))
		}
		if atoms == 0 {
			t.Errorf("%s: no atoms", tc.dbs)
		}
		if len(db.Warnings) > 0 {
			t.Logf("%s: %d warnings, first: %v", tc.dbs, len(db.Warnings), db.Warnings[0])
		}
		for _, p := range dbs {
			covered[p] = true
		}
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (filepath.Ext(path) == ".db" || strings.HasSuffix(path, ".db.gz")) && !covered[path] {
			t.Errorf("%s: not covered by the test", path)
		}
		return nil
	})
}

// TestCiteSeerCounts checks the atom counts of the CiteSeer files against
// the numbers in its SOURCE.txt.
func TestCiteSeerCounts(t *testing.T) {
	dir := needData(t)
	m, err := LoadModel(filepath.Join(dir, "citeseer/models/ie_base.mln"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := LoadDatabase(m, filepath.Join(dir, "citeseer/reasoning.infield.db"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.Pred("InField")
	if n := db.Count(p.ID); n != 12047 {
		t.Errorf("reasoning: %d true InField atoms, want 12047", n)
	}
	bib, _ := m.Type("bib")
	if bib.Size() != 514 {
		t.Errorf("reasoning: %d citations, want 514", bib.Size())
	}
}

func citeseerFiles(tb testing.TB) (model string, dbs []string) {
	dir := needData(tb)
	dbs, _ = filepath.Glob(filepath.Join(dir, "citeseer", "*.db"))
	return filepath.Join(dir, "citeseer/models/ie_base.mln"), dbs
}

// TestCiteSeerLoadTime reports the time to load the model and all CiteSeer
// evidence (it does not fail on time: see BenchmarkLoadCiteSeer).
func TestCiteSeerLoadTime(t *testing.T) {
	model, dbs := citeseerFiles(t)
	t0 := time.Now()
	m, err := LoadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDatabase(m, dbs...); err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	t.Logf("CiteSeer: model + %d .db files loaded and compiled in %v (%d constants)", len(dbs), time.Since(t0), m.NumConsts())
}

// BenchmarkLoadCiteSeer measures parsing and loading the ISM model and all
// CiteSeer evidence files (four topics, truth and ER extras).
func BenchmarkLoadCiteSeer(b *testing.B) {
	model, dbs := citeseerFiles(b)
	var size int64
	for _, p := range dbs {
		if st, err := os.Stat(p); err == nil {
			size += st.Size()
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, err := LoadModel(model)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := LoadDatabase(m, dbs...); err != nil {
			b.Fatal(err)
		}
	}
}
