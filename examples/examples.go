// Package examples embeds the example models and databases shipped with
// Marple, so that commands and experiments can use them from any working
// directory.
package examples

import "embed"

// FS holds the example files: smokers/ (the friends-and-smokers tutorial
// example) and citeseer/ism.mln (the isolated segmentation model for
// CiteSeer).
//
//go:embed smokers/*.mln smokers/*.db citeseer/*.mln
var FS embed.FS

// CiteSeerISM returns the text of the CiteSeer isolated segmentation model.
func CiteSeerISM() string {
	b, err := FS.ReadFile("citeseer/ism.mln")
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}
