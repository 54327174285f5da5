package mln

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/marple-mln/marple/syntax"
)

// parallelModel declares the predicates of randomDB; some constants are
// declared, so that using them with another type warns.
const parallelModel = `person = {Anna, Bob}
city = {Paris}
Lives(person, city)
Friends(person, person)
Age(person, num)
Fact(thing)
Val(person, city, num)
city f(person)
`

// randomDB returns the text of a random .db file over parallelModel with
// comments, atoms split over lines, repeated and contradictory atoms,
// constants used with other types and, when bad, errors.
func randomDB(r *rand.Rand, lines int, bad bool) string {
	var b strings.Builder
	if r.Intn(10) == 0 {
		b.WriteString("\uFEFF")
	}
	nl := "\n"
	if r.Intn(5) == 0 {
		nl = "\r\n"
	}
	consts := func() string {
		switch r.Intn(12) {
		case 0:
			return "Anna"
		case 1:
			return "Paris"
		case 2:
			return fmt.Sprint(r.Intn(50))
		case 3:
			return fmt.Sprintf("%q", fmt.Sprint("s ", r.Intn(9)))
		}
		return fmt.Sprintf("C%d", r.Intn(40))
	}
	preds := []struct {
		name  string
		arity int
	}{{"Lives", 2}, {"Friends", 2}, {"Age", 2}, {"Fact", 1}, {"Val", 3}}
	for i := 0; i < lines; i++ {
		switch r.Intn(20) {
		case 0:
			b.WriteString("// a comment" + nl)
			continue
		case 1:
			b.WriteString("/* a comment" + nl + "Fact(Hidden)" + nl + "over lines */ ")
		case 2:
			b.WriteString(nl)
			continue
		}
		if bad && r.Intn(40) == 0 {
			b.WriteString([]string{"Unknown(A)", "Fact(A, B)", "Fact(a)", "Fact(A", "Paris = f(Anna)", "Paris = f(Bob)", "Fact(A) Fact(B)", "/* open"}[r.Intn(8)] + nl)
			continue
		}
		switch r.Intn(10) {
		case 0:
			b.WriteString("!")
		case 1:
			b.WriteString("? ")
		}
		p := preds[r.Intn(len(preds))]
		b.WriteString(p.name + "(")
		for k := 0; k < p.arity; k++ {
			if k > 0 {
				b.WriteString(",")
				if r.Intn(15) == 0 {
					b.WriteString(nl + "  ")
				}
			}
			b.WriteString(consts())
		}
		b.WriteString(")")
		if r.Intn(8) == 0 {
			b.WriteString(" // trailing")
		}
		b.WriteString(nl)
	}
	return b.String()
}

// readWith reads the files into a fresh model and database with the given
// workers and returns what a reader can observe.
func readWith(t *testing.T, workers int, files []string) (string, *Model, *Database) {
	t.Helper()
	m, err := ParseModel("m.mln", parallelModel)
	if err != nil {
		t.Fatal(err)
	}
	db := NewDatabase(m)
	db.Workers = workers
	var errs syntax.ErrorList
	for i, src := range files {
		errs = db.read(fmt.Sprintf("f%d.db", i), []byte(src), errs)
	}
	errs.Sort()
	msg := ""
	if err := errs.Err(); err != nil {
		msg = err.Error()
	}
	return msg, m, db
}

// TestReadParallel checks that reading in parallel parts gives what the
// serial read gives: the same atoms in the same order with the same
// values and positions, the same constant IDs, domains, warnings and
// errors, on random files cut into many small parts.
func TestReadParallel(t *testing.T) {
	defer func(a, b int) { parallelReadMin, partBytes = a, b }(parallelReadMin, partBytes)
	r := rand.New(rand.NewSource(3))
	for it := 0; it < 300; it++ {
		parallelReadMin, partBytes = 1, 1+r.Intn(200)
		var files []string
		for k := 1 + r.Intn(2); k > 0; k-- {
			files = append(files, randomDB(r, r.Intn(300), it%4 == 0))
		}
		compareReads(t, files, fmt.Sprint("case ", it))
	}
}

// compareReads checks that reading files with 2, 3 and 8 workers gives
// what the serial read gives.
func compareReads(t *testing.T, files []string, name string) {
	t.Helper()
	wantErr, wantM, wantDB := readWith(t, 1, files)
	for _, workers := range []int{2, 3, 8} {
		gotErr, gotM, gotDB := readWith(t, workers, files)
		if gotErr != wantErr {
			t.Fatalf("%s workers %d: errors\n%s\nwant\n%s", name, workers, gotErr, wantErr)
		}
		if !reflect.DeepEqual(gotM.constNames, wantM.constNames) {
			t.Fatalf("%s workers %d: constants %v, want %v", name, workers, gotM.constNames, wantM.constNames)
		}
		for i := range wantM.Types {
			if !reflect.DeepEqual(gotM.Types[i].Consts, wantM.Types[i].Consts) {
				t.Fatalf("%s workers %d: type %s has %v, want %v", name, workers, wantM.Types[i].Name, gotM.Types[i].Consts, wantM.Types[i].Consts)
			}
		}
		if !reflect.DeepEqual(gotDB.preds, wantDB.preds) || !reflect.DeepEqual(gotDB.files, wantDB.files) {
			t.Fatalf("%s workers %d: atoms differ", name, workers)
		}
		if !reflect.DeepEqual(gotDB.Warnings, wantDB.Warnings) {
			t.Fatalf("%s workers %d: warnings\n%v\nwant\n%v", name, workers, gotDB.Warnings, wantDB.Warnings)
		}
	}
}

// FuzzReadParallel checks on the fuzzer's evidence (over parallelModel),
// cut into parts of 1 to 64 bytes, that the parallel read gives what the
// serial read gives.
func FuzzReadParallel(f *testing.F) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 8; i++ {
		f.Add([]byte(randomDB(r, 20, i%2 == 0)), uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, evidence []byte, part uint8) {
		if len(evidence) > 16<<10 {
			return
		}
		defer func(a, b int) { parallelReadMin, partBytes = a, b }(parallelReadMin, partBytes)
		parallelReadMin, partBytes = 1, 1+int(part%64)
		compareReads(t, []string{string(evidence)}, "fuzz")
	})
}

// TestReadParallelUsed checks that a clean file is read by the parallel
// path (not by the serial fallback).
func TestReadParallelUsed(t *testing.T) {
	defer func(a, b int) { parallelReadMin, partBytes = a, b }(parallelReadMin, partBytes)
	parallelReadMin, partBytes = 1, 64
	m, err := ParseModel("m.mln", parallelModel)
	if err != nil {
		t.Fatal(err)
	}
	src := randomDB(rand.New(rand.NewSource(1)), 400, false)
	db := NewDatabase(m)
	if _, ok := db.readParallel("a.db", []byte(src), nil, 4); !ok {
		t.Fatal("the parallel read fell back to the serial one")
	}
}
