package learn

import "testing"

func TestParseMethod(t *testing.T) {
	want := map[string]string{"cda-pl": "CDA-PL", "cda-ml": "CDA-ML", "cda": "CDA-ML", "mira": "MIRA-PL", "subgradient": "Subgradient-ML", "adagrad": "AdaGradFB-PL"}
	for _, name := range append(MethodNames(), "cda") {
		m, err := ParseMethod(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Name() != want[name] {
			t.Errorf("ParseMethod(%q) is %s, want %s", name, m.Name(), want[name])
		}
		if _, err := m.NewLearner([]float64{0}); err != nil {
			t.Errorf("%s: its defaults are refused: %v", name, err)
		}
	}
	if len(MethodNames()) != 5 {
		t.Errorf("MethodNames() = %v", MethodNames())
	}
	m, _ := ParseMethod("cda-ml")
	m.(*CDA).Sigma = 0.5
	if n, _ := ParseMethod("cda-ml"); n.(*CDA).Sigma != DefaultSigma {
		t.Errorf("ParseMethod shares its values")
	}
	if _, err := ParseMethod("mm"); err == nil {
		t.Errorf("ParseMethod(mm): the batch learner is not an online method")
	}
}
