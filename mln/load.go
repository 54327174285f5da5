package mln

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/marple-mln/marple/syntax"
)

// LoadModel reads and builds a model from .mln files, in order (Alchemy's
// "-i a.mln,b.mln"). #include "file" is resolved relative to the including
// file, as the directive is met (its declarations are known to the rest of
// the including file); a file already loaded is not loaded again, and an
// include cycle is an error at the #include.
func LoadModel(paths ...string) (*Model, error) {
	return LoadModelConfig(nil, paths...)
}

// LoadConfig controls the reading of model files (nil means the
// defaults).
type LoadConfig struct {
	// Dialect is the language of the model files and of the .db files
	// read into the model (syntax.Dialect): Alchemy's by default.
	Dialect syntax.Dialect
}

// LoadModelConfig is LoadModel with a configuration (cfg may be nil).
func LoadModelConfig(cfg *LoadConfig, paths ...string) (*Model, error) {
	l := newLoader()
	if cfg != nil {
		l.dialect = cfg.Dialect
	}
	var files []*syntax.File
	for _, p := range paths {
		f := l.load(p, nil, syntax.Pos{})
		if f != nil {
			files = append(files, f)
		}
	}
	return l.build(files)
}

// ParseModel builds a model from the text of a .mln file called name (for
// tests and programs that hold the model in memory). #include directives
// are resolved relative to name's directory.
func ParseModel(name, src string) (*Model, error) {
	l := newLoader()
	f := l.load(name, []byte(src), syntax.Pos{})
	return l.build([]*syntax.File{f})
}

// ParseModels builds a model from the texts of .mln files, srcs[i] being
// the content of the file called names[i], in order (as LoadModel reads
// them from disk; for models read through another filesystem). #include
// directives are resolved relative to each name's directory, on disk.
func ParseModels(names []string, srcs [][]byte) (*Model, error) {
	l := newLoader()
	var files []*syntax.File
	for i, name := range names {
		src := srcs[i]
		if src == nil {
			src = []byte{}
		}
		if f := l.load(name, src, syntax.Pos{}); f != nil {
			files = append(files, f)
		}
	}
	return l.build(files)
}

type loader struct {
	known   syntax.Known
	visited map[string]bool
	stack   []string
	errs    syntax.ErrorList
	opened  map[string]int // file name -> order in which it was opened
	dialect syntax.Dialect
}

func newLoader() *loader {
	return &loader{known: syntax.Known{}, visited: map[string]bool{}, opened: map[string]int{}}
}

func (l *loader) build(files []*syntax.File) (*Model, error) {
	if l.dialect == syntax.LoMRF {
		// LoMRF's predicate completion of the definite clauses of all
		// the files.
		comps, err := syntax.Completions(files)
		if err != nil {
			l.errs = appendErr(l.errs, err)
		}
		if len(comps) > 0 {
			decls := make([]syntax.Decl, len(comps))
			for i, c := range comps {
				decls[i] = c
			}
			files = append(files[:len(files):len(files)], &syntax.File{Name: "completion", Decls: decls})
		}
	}
	m, err := Build(files...)
	if m != nil {
		m.Dialect = l.dialect
		m.rockitConfs = syntax.RockItConfs(files)
	}
	if err != nil {
		l.errs = appendErr(l.errs, err)
	}
	if len(l.errs) > 0 {
		l.sortErrors()
		return m, l.errs
	}
	return m, nil
}

// sortErrors orders the errors in reading order: file by file in the
// order they were opened (a model file before the files it includes, the
// -i files in their order), each by line and column, so that an error in
// an included file never hides the including file's first one. Errors
// without a file come first.
func (l *loader) sortErrors() {
	rank := func(e *syntax.Error) int {
		if e.Pos.File == "" {
			return -1
		}
		if r, ok := l.opened[e.Pos.File]; ok {
			return r
		}
		return len(l.opened)
	}
	slices.SortStableFunc(l.errs, func(a, b *syntax.Error) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// load parses file path (src, if not nil, is its content), resolving its
// includes recursively. from is the position of the #include, if any.
func (l *loader) load(path string, src []byte, from syntax.Pos) *syntax.File {
	abs := absPath(path)
	for i, s := range l.stack {
		if s == abs {
			chain := append(append([]string(nil), l.stack[i:]...), abs)
			for k := range chain {
				chain[k] = filepath.Base(chain[k])
			}
			l.errs.Add(from, "include cycle: %s", strings.Join(chain, " includes "))
			return &syntax.File{Name: path}
		}
	}
	if l.visited[abs] {
		return &syntax.File{Name: path} // already loaded
	}
	l.visited[abs] = true
	if src == nil {
		b, err := readInput(path, MaxModelBytes)
		if err != nil {
			if se, ok := err.(*syntax.Error); ok {
				l.errs = append(l.errs, se)
			} else if from.IsValid() {
				l.errs.Add(from, "cannot include %q: %v", path, err)
			} else {
				l.errs = append(l.errs, &syntax.Error{Msg: err.Error()})
			}
			return &syntax.File{Name: path}
		}
		src = b
	}
	if _, ok := l.opened[path]; !ok {
		l.opened[path] = len(l.opened)
	}
	l.stack = append(l.stack, abs)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	dir := filepath.Dir(path)
	cfg := &syntax.Config{
		Known:   l.known,
		Dialect: l.dialect,
		Include: func(inc *syntax.Include) {
			p := inc.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			inc.File = l.load(p, nil, inc.IncludePos)
		},
	}
	f, err := syntax.ParseMLNConfig(path, src, cfg)
	if err != nil {
		l.errs = appendErr(l.errs, err)
	}
	return f
}

// LoadDatabase reads .db evidence files (or gzipped ones, .db.gz) into a
// new database over m. Each
// atom's predicate must be declared with that arity; its constants are
// added to the argument types' domains (so load evidence before Compile).
// Errors are positioned (a syntax.ErrorList); on error the database holds
// the atoms that were read.
func LoadDatabase(m *Model, paths ...string) (*Database, error) {
	db := NewDatabase(m)
	var errs syntax.ErrorList
	for _, p := range paths {
		src, err := ReadInput(p)
		if err != nil {
			errs = appendErr(errs, err)
			continue
		}
		errs = db.read(p, src, errs)
	}
	errs.Sort()
	return db, errs.Err()
}

// ParseDatabase reads evidence from the text of a .db file called name.
func ParseDatabase(m *Model, name, src string) (*Database, error) {
	db := NewDatabase(m)
	errs := db.read(name, []byte(src), nil)
	errs.Sort()
	return db, errs.Err()
}

// ReadFrom adds the atoms of .db source src (file name for positions) to
// db, adding constants to the model's domains.
func (db *Database) ReadFrom(name string, src []byte) error {
	errs := db.read(name, src, nil)
	errs.Sort()
	return errs.Err()
}

const maxLoadErrors = 100

// maxWarnings bounds the warnings kept for one database.
const maxWarnings = 20

func (db *Database) read(name string, src []byte, errs syntax.ErrorList) syntax.ErrorList {
	if w := db.readWorkers(); w > 1 && len(src) >= parallelReadMin && db.Model.Dialect == syntax.Alchemy {
		if errs, ok := db.readParallel(name, src, errs, w); ok {
			return errs
		}
	}
	m := db.Model
	var args []ConstID
	if m.constIndex == nil {
		m.constIndex = make(map[string]ConstID)
	}
	db.files = append(db.files, name)
	file := int32(len(db.files))
	var lastPred []byte
	var p *Predicate
	warned := 0
	var grown listedGrowth
	err := syntax.ScanDBDialect(m.Dialect, name, src, func(a *syntax.RawAtom) {
		if a.Domain {
			db.addDBDomain(a, &errs)
			return
		}
		if a.Func {
			// "Value = f(A1, ..., An)": an atom of f's auxiliary predicate.
			fn := m.funcByName(string(a.Pred))
			if fn == nil {
				if len(errs) < maxLoadErrors {
					errs.Add(a.PredPos(), "unknown function %s", a.Pred)
				}
				return
			}
			p, lastPred = m.FuncPred(fn), nil
		} else if p == nil || lastPred == nil || string(a.Pred) != string(lastPred) {
			id, ok := m.predIndex[string(a.Pred)]
			if !ok {
				p = nil
				if len(errs) < maxLoadErrors {
					errs.Add(a.PredPos(), "unknown predicate %s", a.Pred)
				}
				return
			}
			p, lastPred = m.Preds[id], a.Pred
		}
		if len(a.Args) != len(p.Args) {
			if len(errs) < maxLoadErrors && a.Func {
				errs.Add(a.PredPos(), "function %s has %d argument(s), found %d", a.Pred, len(p.Args)-1, len(a.Args)-1)
			} else if len(errs) < maxLoadErrors {
				errs.Add(a.PredPos(), "predicate %s has %d argument(s), found %d", p.Name, len(p.Args), len(a.Args))
			}
			return
		}
		args = args[:0]
		for i, b := range a.Args {
			t := m.Types[p.Args[i]]
			c, ok := m.constIndex[string(b)]
			if !ok {
				c = m.AddConst(string(b))
				if t.Listed.Line > 0 {
					grown.add(t, string(b), a.ArgPos(i))
				}
			} else if !t.Has(c) {
				if u := m.declaredType(c); u != nil {
					warned++
					if warned <= maxWarnings {
						db.Warnings.Add(a.ArgPos(i), "constant %s, declared in the model as a %s, is used as a %s (argument %d of %s): added to %s",
							b, u.Name, t.Name, i+1, p.Name, t.Name)
					}
				}
			}
			t.add(c)
			args = append(args, c)
		}
		if db.readReal(p, args, a, &errs) {
			return
		}
		if err := db.addRockItConfs(p, args, a); err != nil && len(errs) < maxLoadErrors {
			errs = appendErr(errs, err)
		}
		v := truthOf(a.Value)
		if a.HasPrior {
			v = Unknown
			add := m.addPrior
			if m.Dialect == syntax.Pracmln {
				add = m.addSoftEvidence
			}
			if err := add(p, args, a); err != nil && len(errs) < maxLoadErrors {
				errs = appendErr(errs, err)
			}
		}
		pos := atomPos{file: file, line: int32(a.Pos.Line), col: int32(a.Pos.Col)}
		if ok, old, oldPos := db.setAt(p.ID, args, v, pos); !ok && len(errs) < maxLoadErrors {
			errs.Add(a.Pos, "contradictory evidence: %s is %s here but %s at %s", m.atomString(p.ID, args), v, old, oldPos)
		}
	})
	if warned > maxWarnings {
		db.Warnings.Add(syntax.Pos{File: name}, "and %d more constants added to a type the model does not declare them in", warned-maxWarnings)
	}
	grown.warn(db)
	if err != nil {
		errs = appendErr(errs, err)
	}
	return errs
}

// listedGrowth gathers the constants that evidence adds to types whose
// constants the model lists (person = {Anna, Bob}), for one warning per
// type: Alchemy adds them too, but a user who listed a domain may not
// expect it to grow.
type listedGrowth struct {
	types []*Type
	first map[*Type]syntax.Pos
	names map[*Type][]string
	count map[*Type]int
}

func (g *listedGrowth) add(t *Type, name string, pos syntax.Pos) {
	if g.count == nil {
		g.first, g.names, g.count = map[*Type]syntax.Pos{}, map[*Type][]string{}, map[*Type]int{}
	}
	if g.count[t] == 0 {
		g.types = append(g.types, t)
		g.first[t] = pos
	}
	g.count[t]++
	if len(g.names[t]) < 3 {
		g.names[t] = append(g.names[t], name)
	}
}

// warn adds the warnings to db, at the first added constant of each type.
func (g *listedGrowth) warn(db *Database) {
	for _, t := range g.types {
		more := ""
		if n := g.count[t] - len(g.names[t]); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		db.Warnings.Add(g.first[t], "the evidence adds %d constants to %s, whose constants the model lists at %s (%s%s): they join the domain, as in Alchemy",
			g.count[t], t.Name, t.Listed, strings.Join(g.names[t], ", "), more)
	}
}

// truthOf returns the truth value of an evidence atom read with value v.
func truthOf(v syntax.Value) Truth {
	switch v {
	case syntax.ValFalse:
		return False
	case syntax.ValUnknown:
		return Unknown
	}
	return True
}

// declaredType returns a type whose declaration in the model lists c, or
// nil.
func (m *Model) declaredType(c ConstID) *Type {
	for _, t := range m.Types {
		if i, ok := t.index[c]; ok && int(i) < t.Declared {
			return t
		}
	}
	return nil
}

// atomString returns ground atom p(args) as written in a .db file.
func (m *Model) atomString(p PredID, args []ConstID) string {
	b := []byte(m.Preds[p].Name)
	b = append(b, '(')
	for i, c := range args {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m.ConstName(c)...)
	}
	return string(append(b, ')'))
}
