package syntax

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// EvalWeightExpr evaluates a weight written as pracmln and ProbCog write
// it: an arithmetic expression of Python (numbers, + - * / // % **,
// parentheses) with the functions of Python's math module that make sense
// for a weight (log, log10, log2, log1p, exp, expm1, sqrt, pow, fabs,
// abs, floor, ceil, min, max), the constants e, pi and inf, float('...')
// of a numeric string ('inf', '-inf' and 'infinity' included) and
// pracmln's logx, which is log but -100 at 0. Python's errors (log of a
// non-positive number, division by zero, overflow) are errors here; the
// result may be infinite (a hard formula) but never NaN.
func EvalWeightExpr(s string) (float64, error) {
	e := &wexpr{s: s}
	v := e.sum()
	if e.err == nil && e.i < len(s) {
		e.fail("unexpected %q", s[e.i:])
	}
	if e.err != nil {
		return 0, e.err
	}
	if math.IsNaN(v) {
		return 0, fmt.Errorf("weight %s is not a number", s)
	}
	return v, nil
}

// isWeightExprStart reports whether run (a line's first word in
// pracmln's dialect) is meant as a weight: it starts with a digit, a sign,
// a point or a parenthesis, or with a call of a weight function.
func isWeightExprStart(run string) bool {
	if run == "" {
		return false
	}
	switch c := run[0]; {
	case isDigit(c), c == '-', c == '+', c == '.', c == '(':
		return true
	}
	k := 0
	for k < len(run) && (isIdentStart(run[k]) || isDigit(run[k])) {
		k++
	}
	if k < len(run) && run[k] == '(' {
		_, ok := weightFuncs[run[:k]]
		return ok || run[:k] == "float"
	}
	return false
}

var weightFuncs = map[string]func(a []float64) (float64, error){
	"log": func(a []float64) (float64, error) {
		if len(a) == 2 {
			if a[0] <= 0 || a[1] <= 0 || a[1] == 1 {
				return 0, fmt.Errorf("math domain error: log(%v, %v)", a[0], a[1])
			}
			return math.Log(a[0]) / math.Log(a[1]), nil
		}
		return logPos(a[0], math.Log)
	},
	"logx": func(a []float64) (float64, error) {
		if a[0] == 0 {
			return -100, nil
		}
		return logPos(a[0], math.Log)
	},
	"log10": func(a []float64) (float64, error) { return logPos(a[0], math.Log10) },
	"log2":  func(a []float64) (float64, error) { return logPos(a[0], math.Log2) },
	"log1p": func(a []float64) (float64, error) {
		if a[0] <= -1 {
			return 0, fmt.Errorf("math domain error: log1p(%v)", a[0])
		}
		return math.Log1p(a[0]), nil
	},
	"exp":   func(a []float64) (float64, error) { return finite(math.Exp(a[0]), "exp") },
	"expm1": func(a []float64) (float64, error) { return finite(math.Expm1(a[0]), "expm1") },
	"sqrt": func(a []float64) (float64, error) {
		if a[0] < 0 {
			return 0, fmt.Errorf("math domain error: sqrt(%v)", a[0])
		}
		return math.Sqrt(a[0]), nil
	},
	"pow":   func(a []float64) (float64, error) { return power(a[0], a[1]) },
	"fabs":  func(a []float64) (float64, error) { return math.Abs(a[0]), nil },
	"abs":   func(a []float64) (float64, error) { return math.Abs(a[0]), nil },
	"floor": func(a []float64) (float64, error) { return math.Floor(a[0]), nil },
	"ceil":  func(a []float64) (float64, error) { return math.Ceil(a[0]), nil },
	"min":   func(a []float64) (float64, error) { return math.Min(a[0], a[1]), nil },
	"max":   func(a []float64) (float64, error) { return math.Max(a[0], a[1]), nil },
}

var weightArity = map[string][2]int{"log": {1, 2}, "pow": {2, 2}, "min": {2, 2}, "max": {2, 2}}

func logPos(x float64, f func(float64) float64) (float64, error) {
	if x <= 0 {
		return 0, fmt.Errorf("math domain error: log of %v", x)
	}
	return f(x), nil
}

func finite(v float64, what string) (float64, error) {
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("math range error: %s overflows", what)
	}
	return v, nil
}

func power(x, y float64) (float64, error) {
	if x == 0 && y < 0 {
		return 0, fmt.Errorf("0.0 cannot be raised to a negative power")
	}
	v := math.Pow(x, y)
	if math.IsNaN(v) {
		return 0, fmt.Errorf("math domain error: %v ** %v", x, y)
	}
	if math.IsInf(v, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return 0, fmt.Errorf("math range error: %v ** %v overflows", x, y)
	}
	return v, nil
}

type wexpr struct {
	s     string
	i     int
	depth int
	err   error
}

func (e *wexpr) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf(format, args...)
	}
	e.i = len(e.s)
}

func (e *wexpr) peek(t string) bool { return e.err == nil && strings.HasPrefix(e.s[e.i:], t) }

// sum: product (('+' | '-') product)*
func (e *wexpr) sum() float64 {
	v := e.product()
	for e.err == nil && e.i < len(e.s) {
		switch e.s[e.i] {
		case '+':
			e.i++
			v += e.product()
		case '-':
			e.i++
			v -= e.product()
		default:
			return v
		}
	}
	return v
}

// product: unary (('*' | '/' | '//' | '%') unary)*
func (e *wexpr) product() float64 {
	v := e.unary()
	for e.err == nil && e.i < len(e.s) {
		switch {
		case e.peek("**"):
			return v // power, handled below
		case e.peek("*"):
			e.i++
			v *= e.unary()
		case e.peek("//"), e.peek("/"), e.peek("%"):
			op := e.s[e.i : e.i+1]
			if e.peek("//") {
				op = "//"
			}
			e.i += len(op)
			y := e.unary()
			if y == 0 {
				e.fail("division by zero")
				return 0
			}
			switch op {
			case "/":
				v /= y
			case "//":
				v = math.Floor(v / y)
			default:
				v -= y * math.Floor(v/y)
			}
		default:
			return v
		}
	}
	return v
}

// unary: ('-' | '+') unary | power
func (e *wexpr) unary() float64 {
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > 100 {
		e.fail("expression nested too deeply")
		return 0
	}
	if e.peek("-") {
		e.i++
		return -e.unary()
	}
	if e.peek("+") {
		e.i++
		return e.unary()
	}
	return e.power()
}

// power: atom ['**' unary] (right associative, tighter than a unary
// sign on its left).
func (e *wexpr) power() float64 {
	v := e.atom()
	if e.peek("**") {
		e.i += 2
		y := e.unary()
		if e.err != nil {
			return 0
		}
		r, err := power(v, y)
		if err != nil {
			e.fail("%v", err)
		}
		return r
	}
	return v
}

func (e *wexpr) atom() float64 {
	if e.err != nil {
		return 0
	}
	if e.i >= len(e.s) {
		e.fail("expression ends early")
		return 0
	}
	c := e.s[e.i]
	switch {
	case c == '(':
		e.i++
		v := e.sum()
		if !e.peek(")") {
			e.fail("expected ')'")
			return 0
		}
		e.i++
		return v
	case isDigit(c) || c == '.':
		start := e.i
		for e.i < len(e.s) && (isDigit(e.s[e.i]) || e.s[e.i] == '.' || e.s[e.i] == '_') {
			e.i++
		}
		if e.i < len(e.s) && (e.s[e.i] == 'e' || e.s[e.i] == 'E') {
			k := e.i + 1
			if k < len(e.s) && (e.s[k] == '+' || e.s[k] == '-') {
				k++
			}
			if k < len(e.s) && isDigit(e.s[k]) {
				e.i = k
				for e.i < len(e.s) && isDigit(e.s[e.i]) {
					e.i++
				}
			}
		}
		num := e.s[start:e.i]
		v, err := strconv.ParseFloat(strings.ReplaceAll(num, "_", ""), 64)
		if err != nil || strings.Contains(num, "__") || strings.HasSuffix(num, "_") {
			e.fail("malformed number %s", num)
			return 0
		}
		return v
	case isIdentStart(c):
		start := e.i
		for e.i < len(e.s) && (isIdentStart(e.s[e.i]) || isDigit(e.s[e.i])) {
			e.i++
		}
		name := e.s[start:e.i]
		if !e.peek("(") {
			switch name {
			case "e":
				return math.E
			case "pi":
				return math.Pi
			case "tau":
				return 2 * math.Pi
			case "inf":
				return math.Inf(1)
			}
			e.fail("unknown name %s", name)
			return 0
		}
		e.i++
		if name == "float" {
			return e.floatCall()
		}
		f, ok := weightFuncs[name]
		if !ok {
			e.fail("unknown function %s", name)
			return 0
		}
		var args []float64
		for e.err == nil && !e.peek(")") {
			args = append(args, e.sum())
			if e.peek(",") {
				e.i++
			} else if !e.peek(")") {
				e.fail("expected ',' or ')' in the arguments of %s", name)
			}
		}
		if e.err != nil {
			return 0
		}
		e.i++
		ar, ok := weightArity[name]
		if !ok {
			ar = [2]int{1, 1}
		}
		if len(args) < ar[0] || len(args) > ar[1] {
			e.fail("%s takes %d argument(s), found %d", name, ar[1], len(args))
			return 0
		}
		v, err := f(args)
		if err != nil {
			e.fail("%v", err)
		}
		return v
	}
	e.fail("unexpected %q", e.s[e.i:])
	return 0
}

// floatCall reads the argument of float(...) after its "(": a quoted
// numeric string or an expression.
func (e *wexpr) floatCall() float64 {
	var v float64
	if e.peek("'") || e.peek("\"") {
		q := e.s[e.i]
		end := strings.IndexByte(e.s[e.i+1:], q)
		if end < 0 {
			e.fail("string not terminated")
			return 0
		}
		lit := strings.TrimSpace(e.s[e.i+1 : e.i+1+end])
		e.i += end + 2
		switch strings.ToLower(strings.TrimLeft(lit, "+-")) {
		case "inf", "infinity":
			v = math.Inf(1)
			if strings.HasPrefix(lit, "-") {
				v = -v
			}
		case "nan":
			e.fail("float(%q) is not a number", lit)
			return 0
		default:
			x, err := strconv.ParseFloat(lit, 64)
			if err != nil {
				e.fail("could not convert string to float: %q", lit)
				return 0
			}
			v = x
		}
	} else {
		v = e.sum()
	}
	if !e.peek(")") {
		e.fail("expected ')' after the argument of float")
		return 0
	}
	e.i++
	return v
}
