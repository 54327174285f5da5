package main

import (
	"bufio"
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// alchemyARGS reads testdata/alchemy/ARGS.txt: the flags of the ARGS
// tables of Alchemy 2.0's programs, in their order, by program.
func alchemyARGS(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "alchemy", "ARGS.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		prog, flags, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("ARGS.txt: bad line %q", l)
		}
		out[prog] = strings.Fields(flags)
	}
	return out
}

// marpleFlags returns the flags "marple cmd -h" lists.
func marpleFlags(t *testing.T, cmd string) map[string]bool {
	t.Helper()
	code, out, stderr := marple(t, cmd, "-h")
	if code != 0 {
		t.Fatalf("marple %s -h: exit %d: %s", cmd, code, stderr)
	}
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -(\w+)`).FindAllStringSubmatch(out, -1) {
		flags[m[1]] = true
	}
	return flags
}

// TestAlchemyFlagTable walks every flag of Alchemy's three programs: each
// has exactly one row, every row is one of Alchemy's flags, refused rows
// give a reason, and every Marple flag a row maps to exists.
func TestAlchemyFlagTable(t *testing.T) {
	lists := alchemyARGS(t)
	for _, p := range alchemyPrograms {
		names := lists[p.name]
		if len(names) == 0 {
			t.Fatalf("ARGS.txt lists no flag of %s", p.name)
		}
		marpleSet := marpleFlags(t, p.marple)
		for _, name := range names {
			var rows []alchemyFlag
			for _, f := range alchemyFlags {
				if f.name == name && f.progs&p.prog != 0 {
					rows = append(rows, f)
				}
			}
			if len(rows) != 1 {
				t.Errorf("%s -%s: %d rows in alchemyFlags, want 1", p.name, name, len(rows))
				continue
			}
			f := rows[0]
			if f.note == "" || strings.Contains(f.note, "\n") {
				t.Errorf("%s -%s: the note must be one non-empty line", p.name, name)
			}
			switch f.action {
			case alMapped:
				if len(f.marple) == 0 && f.apply == nil {
					t.Errorf("%s -%s: mapped to nothing without an apply function", p.name, name)
				}
				for _, m := range f.marple {
					if !marpleSet[m] {
						t.Errorf("%s -%s: maps to -%s, which marple %s does not have", p.name, name, m, p.marple)
					}
				}
			case alRefused:
				if len(f.marple) > 0 || f.apply != nil {
					t.Errorf("%s -%s: a refused flag maps to nothing", p.name, name)
				}
			}
		}
		for _, f := range alchemyFlags {
			if f.progs&p.prog == 0 {
				continue
			}
			switch {
			case !f.extra && !slices.Contains(names, f.name):
				t.Errorf("alchemyFlags has -%s for %s, which Alchemy's %s does not have", f.name, p.name, p.name)
			case f.extra && slices.Contains(names, f.name):
				t.Errorf("%s -%s: marked as Marple's extra flag, but it is Alchemy's", p.name, f.name)
			case f.extra && f.action != alMapped:
				t.Errorf("%s -%s: an extra flag is never refused", p.name, f.name)
			}
			for _, m := range f.marple {
				if f.extra && !marpleSet[m] {
					t.Errorf("%s -%s: maps to -%s, which marple %s does not have", p.name, f.name, m, p.marple)
				}
			}
		}
	}
}

// TestAlchemyDoc checks that docs/alchemy.md is the table's; with
// MARPLE_UPDATE_DOCS=1 it writes the file.
func TestAlchemyDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "alchemy.md")
	want := alchemyDoc()
	if os.Getenv("MARPLE_UPDATE_DOCS") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run MARPLE_UPDATE_DOCS=1 go test ./cmd/marple -run AlchemyDoc", path)
	}
}

func TestAlchemyTranslate(t *testing.T) {
	for _, tc := range []struct {
		prog alchemyProgs
		args string
		want string // marple's arguments, or "error: ..." (a part of the message)
	}{
		{alInfer, "-i a.mln -e b.db -r c -q P", "-i=a.mln -e=b.db -r=c -q=P -nonEvidenceOpen=true -ms=true -smooth=10000 -stars=false -queryOrder=true"},
		{alInfer, "-i a.mln -r c -q P -m -mwsMaxSteps 10", "-i=a.mln -r=c -q=P -mwsMaxSteps=10 -nonEvidenceOpen=true -m=true -solver=mws -queryOrder=true"},
		{alInfer, "-i a.mln -r c -q P -ms -burnMinSteps 50 -burnMaxSteps -1 -maxSteps 200 -minSteps 300", "-i=a.mln -r=c -q=P -nonEvidenceOpen=true -ms=true -smooth=10000 -stars=false -queryOrder=true -burnIn=50 -maxSteps=300"},
		{alInfer, "-i a.mln -r c -q P -saRatio 30 -saTemperature 20 -memLimit 2048", "-i=a.mln -r=c -q=P -walkProb=0.7 -saTemp=0.2 -maxMem=2 -nonEvidenceOpen=true -ms=true -smooth=10000 -stars=false -queryOrder=true"},
		{alInfer, "-i a.mln -r c -q P -lazy false -heuristic 2 -lazyLowState true", "-i=a.mln -r=c -q=P -nonEvidenceOpen=true -ms=true -smooth=10000 -stars=false -queryOrder=true"},
		{alInfer, "-i a.mln -r c -q P -lazy", "-i=a.mln -r=c -q=P -lazy=true -nonEvidenceOpen=true -ms=true -smooth=10000 -stars=false -queryOrder=true"},
		{alInfer, "-i a.mln -r c -q P -m -lazy true -targetWt 3 -memLimit 2048", "-i=a.mln -r=c -q=P -lazy=true -targetWt=3 -maxMem=2 -nonEvidenceOpen=true -m=true -solver=mws -queryOrder=true"},
		{alInfer, "-i a.mln -r c -q P -a -counts", "-i=a.mln -r=c -q=P -counts=true -nonEvidenceOpen=true -a=true -queryOrder=true"},
		{alLearnwts, "-i a.mln -o b -t c -lazy", "error: -lazy is not supported"},
		{alInfer, "-i a.mln -r c -q P -m -p", "error: -m, -p exclude each other"},
		{alInfer, "-i a.mln -r c -q P -bp -maxSeconds 5", "error: -maxSeconds is not supported with -bp"},
		{alInfer, "-i a.mln -r c -q P -dNumIter 3", "error: -dNumIter is not a flag of Alchemy's infer"},
		{alInfer, "-i a.mln -r c -q P -maxSteps x", "error: -maxSteps takes an integer"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P", "-i=a.mln -o=b.mln -t=c.db -ne=P -d=true -dFlatPrior=true -dZeroStart=true -dFixedSamples=true -dClauseWeights=true -dDataHessian=true -dMinSamples=100 -dTuneJointPrior=false -dStars=false -priorStdDev=2 -addUnitClauses=true"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -marpleDefaults", "-i=a.mln -o=b.mln -t=c.db -ne=P -d=true -addUnitClauses=true"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -dScaleJointPrior -dIndependentStart -dFlatPrior", "error: -dScaleJointPrior and -dFlatPrior exclude each other"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -dAdaptiveSamples -dMaxSamples 800 -priorStdDev 1", "-i=a.mln -o=b.mln -t=c.db -ne=P -dMaxSamples=800 -priorStdDev=1 -d=true -dFlatPrior=true -dZeroStart=true -dClauseWeights=true -dDataHessian=true -dMinSamples=100 -dTuneJointPrior=false -dStars=false -addUnitClauses=true"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db,d.db -ne P -multipleDatabases -dTunePrior", "-i=a.mln -o=b.mln -t=c.db,d.db -ne=P -multipleDatabases=true -d=true -dFlatPrior=true -dZeroStart=true -dFixedSamples=true -dClauseWeights=true -dDataHessian=true -dMinSamples=100 -dTuneJointPrior=false -dStars=false -addUnitClauses=true"},
		{alLearnwts, "-g -i a.mln -o b.mln -t c.db -dZeroStart", "error: -dZeroStart applies to discriminative learning"},
		{alInfer, "-i a.mln -r c -q P -decision", "-i=a.mln -r=c -q=P -nonEvidenceOpen=true -decision=true -decisionMeaning=alchemy"},
		{alInfer, "-i a.mln -r c -q P -decision -efbp", "-i=a.mln -r=c -q=P -nonEvidenceOpen=true -decision=true -decisionMeaning=alchemy"},
		{alInfer, "-i a.mln -r c -q P -decision -p", "error: -decision goes with -bp or -efbp (the default) only"},
		{alInfer, "-i a.mln -r c -q P -marpleDecision", "error: -marpleDecision goes with -decision"},
		{alInfer, "-i a.mln -r c -q P -decision -marpleDecision", "-i=a.mln -r=c -q=P -nonEvidenceOpen=true -decision=true"},
		{alLearnwts, "-g -i a.mln -o b.mln -t c.db -gMaxIter 5 -dNumIter 7 -noAddUnitClauses", "-i=a.mln -o=b.mln -t=c.db -g=true -gAlchemy=true -maxIter=5"},
		{alLearnwts, "-g -i a.mln -o b.mln -t c.db -noAddUnitClauses -priorMean 1.5", "-i=a.mln -o=b.mln -t=c.db -g=true -gAlchemy=true -priorMean=1.5"},
		{alLearnwts, "-g -i a.mln -o b.mln -t c.db -noAddUnitClauses -marpleDefaults", "-i=a.mln -o=b.mln -t=c.db -g=true"},
		{alLearnwts, "-g -i a.mln -o b.mln -t c.db -marpleDefaults -priorMean 2", "error: -priorMean goes with Alchemy's -g"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -dMaxMin 1 -dMaxSec 30 -infer \"-ms -maxSteps 20\"", "-i=a.mln -o=b.mln -t=c.db -ne=P -numSamples=20 -d=true -dFlatPrior=true -dZeroStart=true -dFixedSamples=true -dClauseWeights=true -dDataHessian=true -dMinSamples=100 -dTuneJointPrior=false -dStars=false -priorStdDev=2 -learnTimeLimit=1m30s -addUnitClauses=true"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -dVP -infer \"-m\"", "-i=a.mln -o=b.mln -t=c.db -ne=P -d=true -method=vp -dMAPCounts=true -dZeroStart=true -dClauseWeights=true -priorStdDev=2 -addUnitClauses=true"},
		// -dVP's counts: MC-SAT's expected counts unless -infer asks for MAP, as Alchemy.
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -dVP", "-i=a.mln -o=b.mln -t=c.db -ne=P -d=true -method=vp -dZeroStart=true -dClauseWeights=true -priorStdDev=2 -addUnitClauses=true"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -dFormulaWeights -dPriorHessian", "-i=a.mln -o=b.mln -t=c.db -ne=P -d=true -dFlatPrior=true -dZeroStart=true -dFixedSamples=true -dMinSamples=100 -dTuneJointPrior=false -dStars=false -priorStdDev=2 -addUnitClauses=true"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -dFormulaWeights -dClauseWeights", "error: -dFormulaWeights and -dClauseWeights exclude each other"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -dVP -dPriorHessian", "error: -dScaleJointPrior, -dAdaptiveSamples, -dFlatPrior, -dFixedSamples, -dPriorHessian and -dDataHessian apply to -d's conjugate gradient, not -dVP"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -ne P -infer \"-a\"", "error: learnwts -m and -a apply to -dVP only"},
		{alLearnwts, "-i a.mln,b.mln -o b.mln -t c.db,d.db -multipleDatabases", "error: -i: with -multipleDatabases"},
		{alLearnwts, "-i a.mln -o b.mln -t c.db -priorMean 1", "error: -priorMean is not supported with -d"},
		{alLearnstruct, "-i a.mln -o b.mln -t c.db -beamSize 3 -noSampleClauses -delta 0.05 -priorMean 0", "-i=a.mln -o=b.mln -t=c.db -beamSize=3 -dsa=false -freeVars=true -constants=false -joins=false -repeatedPredicates=true -singlePredicate=true -maxGroundings=0 -refits=-1"},
		{alLearnstruct, "-i a.mln -o b.mln -t c.db -marpleDefaults", "-i=a.mln -o=b.mln -t=c.db"},
		{alLearnstruct, "-i a.mln -o b.mln -t c.db -dsa -repeatedPredicates auto -refits 0", "-i=a.mln -o=b.mln -t=c.db -dsa=true -constants=false -joins=false -repeatedPredicates=auto -singlePredicate=true -maxGroundings=0 -refits=0"},
		{alLiftedinfer, "-ptpe -i a.mln -e b.db -r out -q Smokes,Cancer", "-i=a.mln -e=b.db -r=out -q=Smokes,Cancer -allOpenWorld=true -fomc=true -z=true -alchemyZ=true"},
		{alLiftedinfer, "-ptpe -i a.mln -cache 100 -maxSteps 5", "-i=a.mln -allOpenWorld=true -fomc=true -z=true -alchemyZ=true"},
		{alLiftedinfer, "-i a.mln -e b.db", "-i=a.mln -e=b.db -allOpenWorld=true -lis=true -z=true -alchemyZ=true"},
		{alLiftedinfer, "-lis -imd 0 -lr 0.01 -ui 10 -maxSteps 200 -i a.mln -q P", "-i=a.mln -q=P -allOpenWorld=true -r=result.dat -lis=true -z=true -lisProposal=informed -lisRate=0.01 -lisInterval=10 -numSamples=200"},
		{alLiftedinfer, "-lis -i a.mln -q P -maxSeconds 5", "error: -maxSeconds is not supported with -lis"},
		{alLiftedinfer, "-i a.mln -q P -r o -burnMaxSteps 20 -maxSteps 300 -maxSeconds 9 -cmode 1 -bmf 2", "-i=a.mln -q=P -r=o -allOpenWorld=true -lbg=true -bmf=2 -clusterMode=random -writeClusters=cluster.cls -burnIn=20 -numSamples=300 -maxSeconds=9"},
		{alLiftedinfer, "-lvg -ic c.cls -i a.mln -q P -r o", "-i=a.mln -q=P -r=o -allOpenWorld=true -lbg=true -clusters=c.cls -burnIn=50"},
		{alLiftedinfer, "-cls -oc c.cls -i a.mln -e b.db", "-i=a.mln -e=b.db -allOpenWorld=true -lbg=true -clusterOnly=true -clusterMode=sequential -writeClusters=c.cls"},
		{alLiftedinfer, "-i a.mln -q P -m", "error: -m is not a flag of Alchemy's liftedinfer"},
	} {
		c := newAlchemyCall(alchemyPrograms[map[alchemyProgs]int{alInfer: 0, alLearnwts: 1, alLearnstruct: 2, alLiftedinfer: 3}[tc.prog]].name, tc.prog)
		got, err := c.run(splitArgs(tc.args))
		if err != nil {
			if !strings.HasPrefix(tc.want, "error: ") || !strings.Contains(err.Error(), strings.TrimPrefix(tc.want, "error: ")) {
				t.Errorf("%s: error %v, want %s", tc.args, err, tc.want)
			}
			continue
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.args, s, tc.want)
		}
	}
}

func TestAlchemyQueryAtoms(t *testing.T) {
	m, err := mln.ParseModel("q.mln", "Friends(person, person)\nSmokes(person)\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"Anna", "Bob"} {
		m.AddConst(c)
	}
	pt, _ := m.Type("person")
	for _, c := range []string{"Anna", "Bob"} {
		m.AddToType(pt.ID, c)
	}
	var x inferExtras
	wf := worldFlags{query: "Friends(Anna,x),Friends(y,y),Smokes"}
	samples := 0
	if err := x.setup(&wf, &samples, false, false); err != nil {
		t.Fatal(err)
	}
	if wf.query != "Friends,Smokes" {
		t.Errorf("query predicates %q", wf.query)
	}
	if err := x.resolve(m, nil, &wf); err != nil {
		t.Fatal(err)
	}
	fr, _ := m.Pred("Friends")
	sm, _ := m.Pred("Smokes")
	anna, _ := m.Const("Anna")
	bob, _ := m.Const("Bob")
	for _, tc := range []struct {
		p    mln.PredID
		args []mln.ConstID
		want bool
	}{
		{fr.ID, []mln.ConstID{anna, bob}, true},
		{fr.ID, []mln.ConstID{bob, bob}, true},
		{fr.ID, []mln.ConstID{bob, anna}, false},
		{sm.ID, []mln.ConstID{bob}, true},
	} {
		if got := x.keep(tc.p, tc.args); got != tc.want {
			t.Errorf("keep %s = %v, want %v", atomString(m, tc.p, tc.args), got, tc.want)
		}
	}
	for _, bad := range []string{"Friends(Anna", "Friends(Anna,)", "Nope", "Friends(Anna)", "Friends(Zed,x)"} {
		wf := worldFlags{query: bad}
		var x inferExtras
		err := x.setup(&wf, &samples, false, false)
		if err == nil {
			err = x.resolve(m, nil, &wf)
		}
		// An unknown predicate, a wrong number of arguments or an unknown
		// constant is bad input for the model (exit 1, as docs/commands.md
		// says); a malformed item is a usage error.
		if bad == "Nope" || bad == "Friends(Anna)" || bad == "Friends(Zed,x)" {
			if err == nil || isUsage(err) {
				t.Errorf("-q %s: error %v, want an unknown-predicate error", bad, err)
			}
			continue
		}
		if err == nil || !isUsage(err) {
			t.Errorf("-q %s: error %v, want a usage error", bad, err)
		}
	}
}

// runAlchemyScript runs the command lines of a script file as programs
// named infer, learnwts and learnstruct and checks each one's exit status
// and output format.
func runAlchemyScript(t *testing.T, script string, vars map[string]string) {
	f, err := os.Open(script)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := t.TempDir()
	vars["OUT"] = out
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		refused := strings.HasPrefix(text, "!")
		text = strings.TrimSpace(strings.TrimPrefix(text, "!"))
		text = os.Expand(text, func(k string) string { return vars[k] })
		args := splitArgs(text)
		args[0] = filepath.Join("/usr/local/bin", args[0]) // argv[0]: the program's name
		var so, se bytes.Buffer
		code := run(context.Background(), &env{stdout: &so, stderr: &se}, alchemyArgs(args))
		where := script + ":" + itoa(line)
		n++
		if refused {
			if code != 2 || strings.Count(se.String(), "\n") != 1 {
				t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line", where, code, se.String())
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d: %s", where, code, se.String())
			continue
		}
		checkAlchemyOutput(t, where, args)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d command lines", script, n)
}

var (
	reMarginal = regexp.MustCompile(`^\w+\([^ ()]*\) (0|1|0\.\d+|\d(\.\d+)?e-\d+)$`)
	reMAPAll   = regexp.MustCompile(`^\w+\([^ ()]*\) [01]$`)
	reMAP      = regexp.MustCompile(`^\w+\([^ ()]*\)$`)
	reFactor   = regexp.MustCompile(`^(variables:|factors:|(\d+ )+|(\d+ )+(/ (\d+ )+)*// ((-?[0-9.e+-]+|-inf) )+)$`) // Alchemy's layout
	reCounts   = regexp.MustCompile(`^[0-9.e+]+\t\S.*$`)                                                             // -counts: count<TAB>formula
)

// checkAlchemyOutput checks the output file of an Alchemy command line.
func checkAlchemyOutput(t *testing.T, where string, args []string) {
	t.Helper()
	flag := func(name string) (string, bool) {
		for i, a := range args {
			if a == "-"+name {
				if i+1 < len(args) {
					return args[i+1], true
				}
				return "", true
			}
		}
		return "", false
	}
	prog := filepath.Base(args[0])
	if prog != "infer" {
		path, _ := flag("o")
		if _, err := mln.LoadModel(path); err != nil {
			t.Errorf("%s: the learned model does not load: %v", where, err)
		}
		return
	}
	path, _ := flag("r")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	re := reMarginal
	switch {
	case has(flag, "outputNetwork"):
		re = reFactor
	case has(flag, "counts"):
		re = reCounts
	case has(flag, "a"):
		re = reMAPAll
	case has(flag, "m"):
		re = reMAP
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" && !has(flag, "m") {
		t.Errorf("%s: empty result", where)
	}
	for _, l := range lines {
		if l != "" && !re.MatchString(l) {
			t.Errorf("%s: result line %q is not in Alchemy's format (%s)", where, l, re)
			break
		}
	}
}

func has(flag func(string) (string, bool), name string) bool {
	_, ok := flag(name)
	return ok
}

func TestAlchemyScript(t *testing.T) {
	runAlchemyScript(t, filepath.Join("testdata", "alchemy", "script.txt"), map[string]string{
		"EX": filepath.Join("..", "..", "examples", "smokers"),
		"TD": filepath.Join("testdata", "alchemy"),
	})
}

// TestAlchemyScriptShared runs Alchemy command lines on Alchemy's own
// examples and UW-CSE when the shared data are present.
func TestAlchemyScriptShared(t *testing.T) {
	runAlchemyScript(t, filepath.Join("testdata", "alchemy", "script-shared.txt"), map[string]string{
		"AX":  datadir.Require(t, "alchemy-examples"),
		"UW":  datadir.Require(t, "uw-cse"),
		"SMK": datadir.Require(t, "smokers"),
	})
}

// TestAlchemyInferQueries checks which atoms the results list for
// partially ground -q atoms, -f, -a and -queryEvidence.
func TestAlchemyInferQueries(t *testing.T) {
	td := filepath.Join("testdata", "alchemy")
	res := filepath.Join(t.TempDir(), "out.result")
	for _, tc := range []struct {
		args string
		want []string // the atoms of the result, in order
		bits string   // -a: the 0/1 column
	}{
		// With -bp, every atom of Alchemy's factor graph, asked for or not:
		// the cases bp-partial and bp-query-file of expected/cases.txt.
		{"-e " + td + "/univ.db -q advisedBy(Eve,p),advisedBy(x,x) -ms -maxSteps 100", []string{
			// In the order of -q, as Alchemy's: advisedBy(Eve,Eve) at its
			// first item.
			"advisedBy(Eve,Ada)", "advisedBy(Eve,Bob)", "advisedBy(Eve,Cy)", "advisedBy(Eve,Dee)", "advisedBy(Eve,Eve)",
			"advisedBy(Ada,Ada)", "advisedBy(Bob,Bob)", "advisedBy(Cy,Cy)", "advisedBy(Dee,Dee)"}, ""},
		{"-e " + td + "/univ.db -q advisedBy(x,Bob) -a", []string{
			"advisedBy(Ada,Bob)", "advisedBy(Bob,Bob)", "advisedBy(Cy,Bob)", "advisedBy(Dee,Bob)", "advisedBy(Eve,Bob)"}, "00010"},
		// The listed advisedBy atoms of univ-train-a.db are the query
		// atoms; the unlisted ones are false evidence.
		{"-e " + td + "/univ-train-a.db -q advisedBy -queryEvidence -ms -maxSteps 100", []string{"advisedBy(Cy,Ada)", "advisedBy(Eve,Ada)"}, ""},
	} {
		args := append([]string{"/bin/infer", "-i", td + "/univ.mln", "-r", res}, strings.Fields(tc.args)...)
		var so, se bytes.Buffer
		if code := run(context.Background(), &env{stdout: &so, stderr: &se}, alchemyArgs(args)); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.args, code, se.String())
		}
		b, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		var atoms []string
		bits := ""
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(l)
			atoms = append(atoms, f[0])
			if tc.bits != "" {
				bits += f[1]
			}
		}
		if !slices.Equal(atoms, tc.want) || bits != tc.bits {
			t.Errorf("%s: result\n%s\nwant atoms %v %s", tc.args, b, tc.want, tc.bits)
		}
	}
}

// TestAlchemyLinkedBinary runs the test binary (which runs marple's main
// under MARPLE_TEST_MAIN=1, see TestMain) through links named infer and
// learnwts, as an Alchemy user would.
func TestAlchemyLinkedBinary(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"infer", "learnwts"} {
		if err := os.Symlink(self, filepath.Join(dir, name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	res := filepath.Join(dir, "smokers.result")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"infer", "-i", smokers + "smoking-weighted.mln", "-e", smokers + "smoking-test.db", "-r", res, "-q", "Smokes", "-a"}, 0},
		{[]string{"learnwts", "-i", smokers + "smoking.mln", "-o", filepath.Join(dir, "out.mln"), "-t", smokers + "smoking-train.db", "-ne", "Smokes", "-dInitWithLogOdds"}, 2},
	} {
		cmd := exec.Command(filepath.Join(dir, tc.args[0]), tc.args[1:]...)
		cmd.Env = append(os.Environ(), "MARPLE_TEST_MAIN=1")
		var se bytes.Buffer
		cmd.Stderr = &se
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, code, tc.code, se.String())
		}
		if tc.code == 2 && (strings.Count(se.String(), "\n") != 1 || !strings.HasPrefix(se.String(), "learnwts: -dInitWithLogOdds ")) {
			t.Errorf("%v: stderr %q, want one line on -dInitWithLogOdds", tc.args, se.String())
		}
	}
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Smokes(Michael) 1\n") {
		t.Errorf("infer -a result:\n%s", b)
	}
}

// TestLearnAddUnitClauses checks that -addUnitClauses adds a unit clause
// for each predicate without one (of either sign), and only for those.
func TestLearnAddUnitClauses(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.mln")
	src := "Friends(person, person)\nSmokes(person)\nCancer(person)\n1 Smokes(x) => Cancer(x)\n!Cancer(y)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.mln")
	if code, _, stderr := marple(t, "learn", "-g", "-addUnitClauses", "-i", model, "-o", out, "-t", smokers+"smoking-train.db"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := mln.LoadModel(out)
	if err == nil {
		err = m.Compile()
	}
	if err != nil {
		t.Fatal(err)
	}
	units := map[string]int{}
	for _, c := range m.Clauses {
		if len(c.Lits) == 1 {
			units[m.Preds[c.Lits[0].Pred].Name]++
		}
	}
	if want := map[string]int{"Friends": 1, "Smokes": 1, "Cancer": 1}; !maps.Equal(units, want) {
		t.Errorf("unit clauses per predicate %v, want %v", units, want)
	}
}

// TestAlchemyLiftedAlone: as in Alchemy, -lifted without -bp or -efbp does
// not choose BP: MC-SAT runs (Alchemy's default) and -lifted is ignored,
// with a warning; with -bp it lifts.
func TestAlchemyLiftedAlone(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"alchemy", "infer", "-i", smokers + "smoking-weighted.mln", "-e", smokers + "smoking-test.db", "-r", out, "-q", "Smokes", "-lifted"}
	code, stdout, stderr := marple(t, args...)
	if code != 0 || !strings.Contains(stdout, "chains") || !strings.Contains(stderr, "-lifted applies to -bp and -efbp") {
		t.Errorf("-lifted alone: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = marple(t, append(args, "-bp")...)
	if code != 0 || !strings.Contains(stdout, "lifted") || strings.Contains(stderr, "-lifted applies") {
		t.Errorf("-lifted -bp: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestLearnwtsGBlocks checks that learnwts -g says that its weights differ
// from Alchemy's on a model with mutually exclusive arguments, and that
// marple learn -g (Marple's meaning) does not.
func TestLearnwtsGBlocks(t *testing.T) {
	dir := t.TempDir()
	model, db := filepath.Join(dir, "b.mln"), filepath.Join(dir, "b.db")
	src := "prof(person)\nhasPos(person, pos!)\n1 prof(x) => hasPos(x, P1)\n0.5 hasPos(x, P2) => !prof(x)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, []byte("prof(A)\nhasPos(A, P1)\nhasPos(B, P2)\nhasPos(C, P3)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.mln")
	code, _, stderr := marple(t, "alchemy", "learnwts", "-g", "-i", model, "-o", out, "-t", db)
	if code != 0 || !strings.Contains(stderr, "mutually exclusive arguments") {
		t.Fatalf("learnwts -g: exit %d, stderr %s", code, stderr)
	}
	// As Alchemy, a unit clause is added for the predicate with the "!"
	// argument.
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), " hasPos(a1,a2)\n") {
		t.Fatalf("no unit clause of hasPos: %s %v", b, err)
	}
	code, _, stderr = marple(t, "learn", "-g", "-i", model, "-o", out, "-t", db)
	if code != 0 || strings.Contains(stderr, "mutually exclusive arguments") {
		t.Fatalf("learn -g: exit %d, stderr %s", code, stderr)
	}
}
