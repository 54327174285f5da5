package structure

import "testing"

func TestMethodAndModeNames(t *testing.T) {
	for _, name := range MethodNames() {
		m, err := ParseMethod(name)
		if err != nil || m.String() != name {
			t.Errorf("ParseMethod(%q) = %v, %v", name, m, err)
		}
	}
	if m, _ := ParseMethod("beam"); m != MethodBeam {
		t.Errorf("beam is %v", m)
	}
	if _, err := ParseMethod("osl"); err == nil {
		t.Errorf("ParseMethod(osl): OSL is not a batch search")
	}
	for _, name := range TransferModeNames() {
		m, err := ParseTransferMode(name)
		if err != nil || m.String() != name {
			t.Errorf("ParseTransferMode(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := ParseTransferMode("copy"); err == nil {
		t.Errorf("ParseTransferMode(copy): no error")
	}
	if s := Method(9).String(); s != "Method(9)" {
		t.Errorf("Method(9) = %q", s)
	}
}
