package syntax

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tNewline          // end of line (or a block comment spanning lines)
	tIdent            // identifier (predicate, type, variable, constant, keyword, "v")
	tInt              // integer literal, possibly negative
	tFloat            // floating-point literal, possibly negative
	tString           // "quoted string" (text keeps the quotes)
	tLparen           // (
	tRparen           // )
	tLbrace           // {
	tRbrace           // }
	tComma            // ,
	tDot              // .
	tEllipsis         // ...
	tNot              // !
	tAnd              // ^
	tOr               // |
	tImplies          // =>
	tIff              // <=>
	tEq               // =
	tNeq              // !=
	tLt               // <
	tLe               // <=
	tGt               // >
	tGe               // >=
	tPlus             // +
	tStar             // *
	tQuestion         // ?
	tColon            // : (before a utility)
	tInclude          // #include
	tMinus            // - (infix, in integer terms)
	tSlash            // / (infix, in integer terms)
	tPercent          // % (infix, in integer terms)
	tAt               // @ (a domain-size-aware weight)
	tLbrack           // [ (Tuffy: a condition)
	tRbrack           // ] (Tuffy)
	tDefine           // :- (a definite clause or Datalog rule)
	tInc              // ++ (LoMRF: successor)
	tDec              // -- (LoMRF: predecessor)
)

var tokNames = [...]string{
	tEOF:      "end of file",
	tNewline:  "end of line",
	tIdent:    "identifier",
	tInt:      "integer",
	tFloat:    "number",
	tString:   "string",
	tLparen:   "'('",
	tRparen:   "')'",
	tLbrace:   "'{'",
	tRbrace:   "'}'",
	tComma:    "','",
	tDot:      "'.'",
	tEllipsis: "'...'",
	tNot:      "'!'",
	tAnd:      "'^'",
	tOr:       "'|'",
	tImplies:  "'=>'",
	tIff:      "'<=>'",
	tEq:       "'='",
	tNeq:      "'!='",
	tLt:       "'<'",
	tLe:       "'<='",
	tGt:       "'>'",
	tGe:       "'>='",
	tPlus:     "'+'",
	tStar:     "'*'",
	tQuestion: "'?'",
	tColon:    "':'",
	tInclude:  "'#include'",
	tMinus:    "'-'",
	tSlash:    "'/'",
	tPercent:  "'%'",
	tAt:       "'@'",
	tLbrack:   "'['",
	tRbrack:   "']'",
	tDefine:   "':-'",
	tInc:      "'++'",
	tDec:      "'--'",
}

func (k tokKind) String() string {
	if int(k) < len(tokNames) {
		return tokNames[k]
	}
	return "token"
}

// token is a lexical token.
type token struct {
	kind tokKind
	line int32
	col  int32
	text string // identifier, number or string text
}

// describe returns a description of the token for error messages.
func (t token) describe() string {
	switch t.kind {
	case tIdent:
		return "'" + t.text + "'"
	case tInt, tFloat, tString:
		return t.text
	}
	return t.kind.String()
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '-' || c == '\''
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
