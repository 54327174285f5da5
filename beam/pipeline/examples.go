// Package pipeline runs Marple's online weight learning, inference and
// evaluation as Apache Beam pipelines, so that training sets too large for
// one machine run on Flink, Spark, Dataflow or Beam's own prism runner.
//
// Examples travel through a pipeline as plain values (Example: an
// example's atoms in Alchemy's .db syntax); weight vectors as parameter
// names and values (Weights), so that workers, which allocate the
// parameters of "+" formulas as they meet their bindings, agree on what
// each weight is. Every worker parses the model itself and grounds each
// example from its own atoms, with every type's domain restricted to the
// constants the example mentions (plus the model's own), as Alchemy does
// with -multipleDatabases.
//
// Training is iterative parameter mixing (McDonald, Hall and Mann 2010):
// the examples are split into shards once; in every epoch each shard runs
// one pass of the online learner (learn.Online with CDA, MIRA,
// subgradient or AdaGrad-FB) from the previous epoch's mixed weights, and
// the shards' weights are averaged (uniformly, or weighted by their
// mistakes). See Train. Inference and evaluation run per example and
// combine their counts associatively; see Infer.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// Example is one training or test example as it travels through a
// pipeline: its atoms in .db syntax (evidence and, for training or
// scoring, the truth of the query atoms), a key that orders the examples
// deterministically (the file and the position in it), and its identity
// ID: the name of its constant of the example type (with
// MultipleDatabases, its file). Parts of one example read from several
// files (the evidence in one, the truth in another, as marple learn
// accepts) share the ID and are one example once merged (MergeParts).
type Example struct {
	Key  string
	ID   string
	Name string
	DB   string
}

// MergeParts merges the examples that share an ID into one, whose atoms
// are the parts' in key order, whose key is the least and whose name is
// the first part's; it returns the merged examples in key order.
func MergeParts(exs []Example) []Example {
	exs = slices.Clone(exs)
	sort.SliceStable(exs, func(i, j int) bool { return exs[i].Key < exs[j].Key })
	at := make(map[string]int, len(exs))
	var out []Example
	for _, ex := range exs {
		i, ok := at[ex.ID]
		if !ok {
			at[ex.ID] = len(out)
			out = append(out, ex)
			continue
		}
		db := out[i].DB
		if db != "" && !strings.HasSuffix(db, "\n") {
			db += "\n"
		}
		out[i].DB = db + ex.DB
	}
	return out
}

// Data says where the examples come from and how they are made.
type Data struct {
	// Model lists the .mln files.
	Model []string
	// ModelText holds the model files' contents when the launcher has
	// read them (ReadModel, through Beam's filesystems: local, gs://,
	// s3://); the workers then parse these rather than open Model's paths.
	ModelText []string
	// Files lists the .db files. Each is one example with
	// MultipleDatabases; otherwise each is split into examples by
	// ExampleType.
	Files []string
	// Query lists the query (non-evidence) predicates.
	Query []string
	// MultipleDatabases makes each file one example.
	MultipleDatabases bool
	// ExampleType names the type with one example per constant (empty or
	// "auto": the query predicates' argument type with the most constants
	// in the file).
	ExampleType string
}

// ReadModel reads the model files through Beam's filesystems into
// ModelText, so that the workers need no access to the launcher's paths.
func (d *Data) ReadModel(ctx context.Context) error {
	d.ModelText = make([]string, len(d.Model))
	for i, p := range d.Model {
		b, err := ReadPath(ctx, p)
		if err != nil {
			return err
		}
		d.ModelText[i] = string(b)
	}
	return nil
}

// LoadModel parses and compiles the model files (their texts when
// ReadModel has read them).
func (d Data) LoadModel() (*mln.Model, error) {
	m, err := d.parseModel()
	if err != nil {
		return nil, err
	}
	if err := m.Compile(); err != nil {
		return nil, err
	}
	return m, nil
}

// parseModel parses the model files, or their texts when ReadModel has
// read them, without compiling the model (evidence may add constants).
func (d Data) parseModel() (*mln.Model, error) {
	if len(d.ModelText) == len(d.Model) && len(d.Model) > 0 {
		srcs := make([][]byte, len(d.ModelText))
		for i, t := range d.ModelText {
			srcs[i] = []byte(t)
		}
		return mln.ParseModels(d.Model, srcs)
	}
	return mln.LoadModel(d.Model...)
}

// queryPreds resolves the query predicate names.
func queryPreds(m *mln.Model, names []string) ([]mln.PredID, error) {
	if len(names) == 0 {
		return nil, errors.New("pipeline: no query predicates")
	}
	var q []mln.PredID
	for _, n := range names {
		p, ok := m.Pred(n)
		if !ok {
			return nil, fmt.Errorf("pipeline: unknown query predicate %q", n)
		}
		q = append(q, p.ID)
	}
	return q, nil
}

// CheckFiles reads (through Beam's filesystems) and parses every data file
// as the workers will, so that a launcher can refuse bad input before a
// pipeline starts: an unreadable
// or binary file, a syntax error or an unknown predicate is reported at its
// position, and a file without any ground atom is refused. The files are
// parsed against one model, as marple learn loads them; when ExampleType
// is "auto", CheckFiles sets it to the type that rule picks over all the
// files, so that every worker splits every file by the same type and the
// parts of an example in different files (evidence, truth) are merged.
// When ctx is done, a wait for a named pipe (FIFO) stops.
func (d *Data) CheckFiles(ctx context.Context) error {
	if len(d.Files) == 0 {
		return errors.New("no data files")
	}
	m, err := d.parseModel()
	if err != nil {
		return err
	}
	for _, path := range d.Files {
		src, err := ReadPath(ctx, path)
		if err != nil {
			return err
		}
		db, err := mln.ParseDatabase(m, path, string(src))
		if err != nil {
			return err
		}
		n := 0
		for p := range m.Preds {
			n += db.Count(mln.PredID(p))
		}
		if n == 0 {
			return fmt.Errorf("%s holds no ground atom", path)
		}
	}
	if d.MultipleDatabases {
		return nil
	}
	q, err := queryPreds(m, d.Query)
	if err != nil {
		return err
	}
	t, err := d.exampleType(m, q)
	if err != nil {
		return err
	}
	d.ExampleType = m.Types[t].Name
	for fi, path := range d.Files {
		src, err := ReadPath(ctx, path)
		if err != nil {
			return err
		}
		if _, err := d.Examples(fi, path, src); err != nil {
			return err
		}
	}
	return nil
}

// exampleType returns the type examples are split by: ExampleType, or for
// "auto" the query predicates' argument type with the most constants in m.
func (d Data) exampleType(m *mln.Model, q []mln.PredID) (mln.TypeID, error) {
	var t mln.TypeID = -1
	switch d.ExampleType {
	case "", "auto":
		size := -1
		for _, p := range q {
			for _, at := range m.Preds[p].Args {
				if n := m.Types[at].Size(); n > size {
					t, size = at, n
				}
			}
		}
	default:
		ty, ok := m.Type(d.ExampleType)
		if !ok {
			return -1, fmt.Errorf("pipeline: unknown example type %q", d.ExampleType)
		}
		t = ty.ID
	}
	if t < 0 {
		return -1, errors.New("pipeline: no example type")
	}
	return t, nil
}

// ReadFile reads file number fi of d through Beam's filesystems and
// returns its examples, in order (Examples).
func (d Data) ReadFile(fi int) ([]Example, error) {
	src, err := ReadPath(context.Background(), d.Files[fi])
	if err != nil {
		return nil, err
	}
	return d.Examples(fi, d.Files[fi], src)
}

// Examples splits src, the text of file number fi (path), into its
// examples, in order. It parses the file against a fresh copy of the
// model, so that constants of one file do not leak into the examples of
// another.
func (d Data) Examples(fi int, path string, src []byte) ([]Example, error) {
	if d.MultipleDatabases {
		return []Example{{Key: key(fi, 0), ID: key(fi, 0), Name: path, DB: string(src)}}, nil
	}
	m, err := d.parseModel()
	if err != nil {
		return nil, err
	}
	db, err := mln.ParseDatabase(m, path, string(src))
	if err != nil {
		return nil, err
	}
	q, err := queryPreds(m, d.Query)
	if err != nil {
		return nil, err
	}
	t, err := d.exampleType(m, q)
	if err != nil {
		return nil, err
	}
	parts, err := split(m, db, t, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range parts {
		parts[i].Key = key(fi, i)
		parts[i].ID = parts[i].Name
		parts[i].Name = fmt.Sprintf("%s#%s", path, parts[i].Name)
	}
	return parts, nil
}

func key(file, i int) string { return fmt.Sprintf("%06d/%09d", file, i) }

// Split divides db into one example per constant of type t that occurs in
// it, in order of first appearance: example c holds every atom with c in
// an argument of type t, and every atom without an argument of type t
// whose constants all occur in example c's own atoms or are the model's own
// (Next(P1,P2) goes with each citation that has both positions). Names are the constants. An atom
// with two different constants of type t cannot be split off and is an
// error.
func Split(m *mln.Model, db *mln.Database, t mln.TypeID) ([]Example, error) {
	return split(m, db, t, nil)
}

// split is Split; an atom of a predicate in query that joins no example is
// an error (its example's other atoms are in another file, so it would
// be lost).
func split(m *mln.Model, db *mln.Database, t mln.TypeID, query []mln.PredID) ([]Example, error) {
	type atom struct {
		p    mln.PredID
		args []mln.ConstID
		v    mln.Truth
	}
	exOf := map[mln.ConstID]int{}
	var names []mln.ConstID
	var own [][]atom
	var shared []atom
	var err error
	for p := range m.Preds {
		pr := m.Preds[p]
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			a := atom{mln.PredID(p), slices.Clone(args), v}
			c := mln.ConstID(-1)
			for i, at := range pr.Args {
				if at != t {
					continue
				}
				if c >= 0 && args[i] != c && err == nil {
					err = fmt.Errorf("atom %s links two examples", atomText(m, a.p, a.args, v))
				}
				c = args[i]
			}
			if c < 0 {
				shared = append(shared, a)
				return
			}
			e, ok := exOf[c]
			if !ok {
				e = len(names)
				exOf[c] = e
				names = append(names, c)
				own = append(own, nil)
			}
			own[e] = append(own[e], a)
		})
	}
	if err != nil {
		return nil, err
	}
	// Order the examples by constant order of their type (first appearance).
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	typ := m.Types[t]
	sort.Slice(order, func(i, j int) bool {
		a, _ := typ.Index(names[order[i]])
		b, _ := typ.Index(names[order[j]])
		return a < b
	})
	// Index the examples by the constants of their own atoms.
	byConst := map[mln.ConstID][]int{}
	for e, as := range own {
		seen := map[mln.ConstID]bool{}
		for _, a := range as {
			for _, c := range a.args {
				if !seen[c] {
					seen[c] = true
					byConst[c] = append(byConst[c], e)
				}
			}
		}
	}
	extra := make([][]atom, len(own))
	allExamples := make([]int, len(own))
	for e := range allExamples {
		allExamples[e] = e
	}
	// The model's own constants (declared in types or named in formulas)
	// belong to every example.
	declared := map[mln.ConstID]bool{}
	for _, typ := range m.Types {
		for _, c := range typ.Consts[:typ.Declared] {
			declared[c] = true
		}
	}
	has := func(e int, c mln.ConstID) bool {
		if declared[c] {
			return true
		}
		_, ok := slices.BinarySearch(byConst[c], e)
		return ok
	}
	lost, firstLost := 0, ""
	for _, a := range shared {
		joined := false
		if len(a.args) == 0 {
			for e := range extra {
				extra[e] = append(extra[e], a)
				joined = true
			}
		} else {
			cands := byConst[a.args[0]]
			for _, c := range a.args {
				if !declared[c] {
					cands = byConst[c]
					break
				}
			}
			if allDeclared(a.args, declared) {
				cands = allExamples
			}
			for _, e := range cands {
				all := true
				for _, c := range a.args {
					if !has(e, c) {
						all = false
						break
					}
				}
				if all {
					extra[e] = append(extra[e], a)
					joined = true
				}
			}
		}
		if !joined && slices.Contains(query, a.p) {
			if lost == 0 {
				firstLost = atomText(m, a.p, a.args, a.v)
			}
			lost++
		}
	}
	if lost > 0 {
		return nil, fmt.Errorf("%d atoms of the query predicates (the first %s) join no example of type %s in this file: give each example's evidence and truth in one file, or split by a type the atoms name (-exampleType)",
			lost, firstLost, m.Types[t].Name)
	}
	out := make([]Example, 0, len(own))
	for _, e := range order {
		var b strings.Builder
		for _, as := range [][]atom{own[e], extra[e]} {
			for _, a := range as {
				b.WriteString(atomText(m, a.p, a.args, a.v))
				b.WriteByte('\n')
			}
		}
		out = append(out, Example{Name: m.ConstName(names[e]), DB: b.String()})
	}
	return out, nil
}

// allDeclared reports whether every constant is one of the model's own.
func allDeclared(args []mln.ConstID, declared map[mln.ConstID]bool) bool {
	for _, c := range args {
		if !declared[c] {
			return false
		}
	}
	return true
}

// atomText writes an atom in .db syntax: "P(a,b)", "!P(a,b)" or "?P(a,b)".
func atomText(m *mln.Model, p mln.PredID, args []mln.ConstID, v mln.Truth) string {
	var b strings.Builder
	switch v {
	case mln.False:
		b.WriteByte('!')
	case mln.Unknown:
		b.WriteByte('?')
	}
	b.WriteString(m.Preds[p].Name)
	if len(args) > 0 {
		b.WriteByte('(')
		for i, c := range args {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteConst(m.ConstName(c)))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// quoteConst quotes a constant name that is not a bare identifier or
// integer. A quoted constant's name keeps its quotes (as in Alchemy) and
// is written as it is.
func quoteConst(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s
	}
	bare := s != ""
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			bare = false
			break
		}
	}
	if bare {
		return s
	}
	return fmt.Sprintf("%q", s)
}

// Grounder grounds examples against one parsed model: it is what a worker
// keeps between the examples it processes.
type Grounder struct {
	Model *mln.Model
	Query []mln.PredID
	isQ   []bool
}

// NewGrounder parses and compiles the model of d.
func NewGrounder(d Data) (*Grounder, error) {
	m, err := d.LoadModel()
	if err != nil {
		return nil, err
	}
	q, err := queryPreds(m, d.Query)
	if err != nil {
		return nil, err
	}
	g := &Grounder{Model: m, Query: q, isQ: make([]bool, len(m.Preds))}
	for _, p := range q {
		g.isQ[p] = true
	}
	return g, nil
}

// Intern parses the examples in order against g's model, so that the
// model meets their constants in that order (and the types' orders, which
// order each example's domains, do not depend on what else the model
// met).
func (g *Grounder) Intern(exs []Example) error {
	for _, ex := range exs {
		if _, err := mln.ParseDatabase(g.Model, ex.Name, ex.DB); err != nil {
			return err
		}
	}
	return nil
}

// Ground parses example ex and grounds it: the query atoms are unknown,
// every type's domain is the constants the example mentions plus the
// model's own, and the truth is the example's query atoms (unlisted:
// false). It returns the learning example and the parsed database.
func (g *Grounder) Ground(ctx context.Context, ex Example) (*learn.Example, *mln.Database, error) {
	m := g.Model
	db, err := mln.ParseDatabase(m, ex.Name, ex.DB)
	if err != nil {
		return nil, nil, err
	}
	ev := mln.NewDatabase(m)
	mentioned := make(map[mln.TypeID]map[mln.ConstID]bool)
	for p := range m.Preds {
		pr := m.Preds[p]
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			for i, c := range args {
				t := pr.Args[i]
				if mentioned[t] == nil {
					mentioned[t] = map[mln.ConstID]bool{}
				}
				mentioned[t][c] = true
			}
			if !g.isQ[p] {
				ev.Set(mln.PredID(p), args, v)
			}
		})
	}
	// Each type's domain: the model's own constants, then the example's
	// others in the type's order. (Not a scan of the type: a worker's
	// types grow with every example it parses.)
	domains := map[mln.TypeID][]mln.ConstID{}
	for t := range m.Types {
		typ := m.Types[t]
		d := slices.Clone(typ.Consts[:typ.Declared])
		var extra []mln.ConstID
		for c := range mentioned[mln.TypeID(t)] {
			if i, ok := typ.Index(c); ok && int(i) >= typ.Declared {
				extra = append(extra, c)
			}
		}
		slices.SortFunc(extra, func(a, b mln.ConstID) int {
			i, _ := typ.Index(a)
			j, _ := typ.Index(b)
			return int(i) - int(j)
		})
		domains[mln.TypeID(t)] = append(d, extra...)
	}
	net, err := ground.Ground(ctx, m, ev, ground.Options{Query: g.Query, Domains: domains, Workers: 1})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ex.Name, err)
	}
	truth := net.Assignment(db)
	query := make([]bool, net.NumAtoms())
	for a := range query {
		query[a] = g.isQ[net.AtomPred[a]]
	}
	return &learn.Example{Net: net, Truth: truth, Query: query, Name: ex.Name}, db, nil
}

// Source is a learn.ExampleSource over examples held as text, ground one
// at a time when the learner reaches them.
type Source struct {
	G        *Grounder
	Examples []Example
}

// Len returns the number of examples.
func (s *Source) Len() int { return len(s.Examples) }

// Example grounds example i.
func (s *Source) Example(ctx context.Context, i int) (*learn.Example, error) {
	ex, _, err := s.G.Ground(ctx, s.Examples[i])
	return ex, err
}

// hash64 hashes the parts with FNV-1a.
func hash64(parts ...any) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		fmt.Fprint(h, p, "\x00")
	}
	// FNV's low bits mix poorly for keys that differ in a few digits:
	// finish with splitmix64's finaliser.
	z := h.Sum64()
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// ShardOf returns the shard (0..shards-1) of the example with ID k: a
// hash of the seed and the ID, fixed for the whole run (all parts of an
// example go to the same shard).
func ShardOf(k string, seed int64, shards int) int {
	if shards <= 1 {
		return 0
	}
	return int(hash64("shard", seed, k) % uint64(shards))
}

// EpochOrder sorts examples into the order an epoch visits them: by key,
// or with shuffle by a hash of the seed, the epoch and the key.
func EpochOrder(exs []Example, seed int64, epoch int, shuffle bool) {
	if !shuffle {
		sort.Slice(exs, func(i, j int) bool { return exs[i].Key < exs[j].Key })
		return
	}
	h := make(map[string]uint64, len(exs))
	for _, ex := range exs {
		h[ex.Key] = hash64("order", seed, epoch, ex.Key)
	}
	sort.Slice(exs, func(i, j int) bool {
		a, b := h[exs[i].Key], h[exs[j].Key]
		if a != b {
			return a < b
		}
		return exs[i].Key < exs[j].Key
	})
}
