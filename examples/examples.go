// Package examples embeds the example models and databases shipped with
// Marple, so that commands and experiments can use them from any working
// directory.
package examples

import "embed"

// FS holds the example files: smokers/ (the friends-and-smokers tutorial
// example) and citeseer/: ism.mln (the isolated segmentation model),
// ism-context.mln, lc0.mln and empty.mln (the OSL paper's starting
// models) and citeseer.modes (OSL's mode declarations); webkb/webkb.mln
// (the WebKB page classification model of the max-margin slides);
// cora/er.mln and cora/evidence.mln (Cora entity resolution, joint and
// evidence-only).
//
//go:embed smokers/*.mln smokers/*.db citeseer/*.mln citeseer/*.modes webkb/*.mln cora/*.mln
var FS embed.FS

// File returns the text of an embedded example file, e.g.
// "citeseer/lc0.mln".
func File(name string) (string, error) {
	b, err := FS.ReadFile(name)
	return string(b), err
}

// CiteSeerISM returns the text of the CiteSeer isolated segmentation model.
func CiteSeerISM() string {
	b, err := FS.ReadFile("citeseer/ism.mln")
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}
