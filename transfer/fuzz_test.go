package transfer

import (
	"strings"
	"testing"
)

// FuzzReadTemplates: reading a templates file never panics, and every
// template read prints and reads back as itself.
func FuzzReadTemplates(f *testing.F) {
	f.Add("template 1 0.1 24  r(x,y), r(y,x)\n  clique 0.1 10  P(x,y), P(y,x)  =  {P(x,y)} x {P(y,x)}\n")
	f.Add("# c\ntemplate 2 1e-3 5  r(x), s(x,y), t(y)\n")
	f.Add("template 1 0.5 1 a(b,c),,d(c)\n")
	f.Fuzz(func(t *testing.T, src string) {
		rs, err := ReadTemplates(strings.NewReader(src), "f.txt")
		if err != nil {
			return
		}
		for _, r := range rs {
			p, err := ParseTemplate(r.Template.String())
			if err != nil || p.Key() != r.Template.Key() {
				t.Fatalf("%s does not read back: %v", r.Template, err)
			}
		}
	})
}
