package syntax

// Formula is a formula node of the AST. (Placeholder: the front end defines
// the AST in ast.go and removes this file.)
type Formula interface{ Pos() Pos }
