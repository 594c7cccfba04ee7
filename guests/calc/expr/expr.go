// Package expr is the calc guest's arithmetic language: a lexer, a recursive-descent parser
// and an evaluator over an allowlisted grammar (numbers, + - * / % ^, parentheses, unary
// signs, sqrt abs min max floor ceil round, pi and e) — never eval. It is a package of its
// own so other guests (guests/llm's react_loop calculator) evaluate exactly what calc does.
package expr

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Limits on an expression.
const (
	// MaxLen is the longest expression accepted, in bytes.
	MaxLen = 1024
	// MaxDepth is the deepest nesting accepted: each parenthesis, function argument list,
	// unary sign and exponent adds one level.
	MaxDepth = 64
)

// ErrDivisionByZero is returned for x/0 and x%0.
var ErrDivisionByZero = errors.New("division by zero")

// Eval parses and evaluates expr. It returns an error naming the byte offset for a syntax
// error, and for an operation whose result is not a finite number.
func Eval(expr string) (float64, error) {
	if len(expr) > MaxLen {
		return 0, errors.New("expression longer than " + strconv.Itoa(MaxLen) + " bytes")
	}
	n, err := Parse(expr)
	if err != nil {
		return 0, err
	}
	v, err := n.eval()
	if err != nil {
		return 0, err
	}
	if v == 0 {
		v = 0 // no "-0" in results
	}
	return v, nil
}

// ---- lexer ----

type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tIdent
	tOp // one of + - * / % ^ ( ) ,
)

type token struct {
	kind tokKind
	text string
	pos  int
	num  float64
}

func (t token) describe() string {
	if t.kind == tEOF {
		return "end of expression"
	}
	return strconv.Quote(t.text)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			start := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			if i < len(s) && s[i] == '.' {
				i++
				for i < len(s) && isDigit(s[i]) {
					i++
				}
			}
			if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
				j := i + 1
				if j < len(s) && (s[j] == '+' || s[j] == '-') {
					j++
				}
				if j < len(s) && isDigit(s[j]) {
					for j < len(s) && isDigit(s[j]) {
						j++
					}
					i = j
				}
			}
			text := s[start:i]
			// The scanner admits only digits, one '.', and an exponent, so the only possible
			// error is overflow to ±Inf (underflow silently rounds to 0).
			v, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return nil, errors.New("number " + strconv.Quote(text) + " out of range at offset " + strconv.Itoa(start))
			}
			toks = append(toks, token{kind: tNum, text: text, pos: start, num: v})
		case isIdentStart(c):
			start := i
			for i < len(s) && (isIdentStart(s[i]) || isDigit(s[i])) {
				i++
			}
			toks = append(toks, token{kind: tIdent, text: s[start:i], pos: start})
		case c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '^' || c == '(' || c == ')' || c == ',':
			toks = append(toks, token{kind: tOp, text: s[i : i+1], pos: i})
			i++
		default:
			// Name the whole (possibly multi-byte) character.
			r, _ := utf8.DecodeRuneInString(s[i:])
			return nil, errors.New("unexpected " + strconv.QuoteRune(r) + " at offset " + strconv.Itoa(i))
		}
	}
	return append(toks, token{kind: tEOF, pos: len(s)}), nil
}

// ---- parser ----

// node is a parsed expression.
type node struct {
	op   string // "num", "neg", "+", "-", "*", "/", "%", "^", or a function name
	pos  int    // byte offset of the operator, function name or number
	val  float64
	args []*node
}

type parser struct {
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isOp(ops string) (token, bool) {
	t := p.peek()
	if t.kind != tOp {
		return t, false
	}
	for i := 0; i < len(ops); i++ {
		if t.text[0] == ops[i] {
			return t, true
		}
	}
	return t, false
}

func unexpected(t token) error {
	if t.kind == tEOF {
		return errors.New("unexpected end of expression at offset " + strconv.Itoa(t.pos))
	}
	return errors.New("unexpected " + t.describe() + " at offset " + strconv.Itoa(t.pos))
}

// Parse parses expr into a tree without evaluating it.
//
// Grammar (lowest precedence first):
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/" | "%") unary }
//	unary   = ("+" | "-") unary | power
//	power   = primary [ "^" unary ]            (right-associative; binds tighter than unary minus)
//	primary = number | constant | function "(" expr { "," expr } ")" | "(" expr ")"
func Parse(expr string) (*node, error) {
	if len(expr) > MaxLen {
		return nil, errors.New("expression longer than " + strconv.Itoa(MaxLen) + " bytes")
	}
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	if toks[0].kind == tEOF {
		return nil, errors.New("empty expression")
	}
	p := &parser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, unexpected(t)
	}
	return n, nil
}

func (p *parser) expr() (*node, error) {
	left, err := p.term()
	if err != nil {
		return nil, err
	}
	for {
		t, ok := p.isOp("+-")
		if !ok {
			return left, nil
		}
		p.next()
		right, err := p.term()
		if err != nil {
			return nil, err
		}
		left = &node{op: t.text, pos: t.pos, args: []*node{left, right}}
	}
}

func (p *parser) term() (*node, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t, ok := p.isOp("*/%")
		if !ok {
			return left, nil
		}
		p.next()
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = &node{op: t.text, pos: t.pos, args: []*node{left, right}}
	}
}

// unary is the only recursive entry point every nesting passes through (parentheses and
// argument lists via expr → term → unary, signs and exponents directly), so it alone
// counts depth.
func (p *parser) unary() (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxDepth {
		return nil, errors.New("expression nested deeper than " + strconv.Itoa(MaxDepth) + " levels at offset " + strconv.Itoa(p.peek().pos))
	}
	if t, ok := p.isOp("+-"); ok {
		p.next()
		operand, err := p.unary()
		if err != nil {
			return nil, err
		}
		if t.text == "+" {
			return operand, nil
		}
		return &node{op: "neg", pos: t.pos, args: []*node{operand}}, nil
	}
	base, err := p.primary()
	if err != nil {
		return nil, err
	}
	if t, ok := p.isOp("^"); ok {
		p.next()
		exp, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{op: "^", pos: t.pos, args: []*node{base, exp}}, nil
	}
	return base, nil
}

// functions maps each allowed function to its minimum and maximum argument count
// (-1: no maximum).
var functions = map[string][2]int{
	"sqrt":  {1, 1},
	"abs":   {1, 1},
	"floor": {1, 1},
	"ceil":  {1, 1},
	"round": {1, 1},
	"min":   {1, -1},
	"max":   {1, -1},
}

var constants = map[string]float64{
	"pi": math.Pi,
	"e":  math.E,
}

func (p *parser) primary() (*node, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		return &node{op: "num", pos: t.pos, val: t.num}, nil
	case tIdent:
		if v, ok := constants[t.text]; ok {
			return &node{op: "num", pos: t.pos, val: v}, nil
		}
		arity, ok := functions[t.text]
		if !ok {
			return nil, errors.New("unknown name " + strconv.Quote(t.text) + " at offset " + strconv.Itoa(t.pos))
		}
		if _, ok := p.isOp("("); !ok {
			return nil, errors.New("expected \"(\" after " + t.text + " at offset " + strconv.Itoa(p.peek().pos))
		}
		p.next()
		n := &node{op: t.text, pos: t.pos}
		if _, ok := p.isOp(")"); !ok {
			for {
				arg, err := p.expr()
				if err != nil {
					return nil, err
				}
				n.args = append(n.args, arg)
				if _, ok := p.isOp(","); !ok {
					break
				}
				p.next()
			}
		}
		if _, ok := p.isOp(")"); !ok {
			return nil, unexpected(p.peek())
		}
		p.next()
		if len(n.args) < arity[0] || arity[1] >= 0 && len(n.args) > arity[1] {
			want := "1 argument"
			if arity[1] < 0 {
				want = "at least 1 argument"
			}
			return nil, errors.New(t.text + " takes " + want + ", got " + strconv.Itoa(len(n.args)) + " at offset " + strconv.Itoa(t.pos))
		}
		return n, nil
	case tOp:
		if t.text == "(" {
			n, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, ok := p.isOp(")"); !ok {
				return nil, unexpected(p.peek())
			}
			p.next()
			return n, nil
		}
	}
	return nil, unexpected(t)
}

// ---- evaluation ----

func (n *node) eval() (float64, error) {
	if n.op == "num" {
		return n.val, nil
	}
	args := make([]float64, len(n.args))
	for i, a := range n.args {
		v, err := a.eval()
		if err != nil {
			return 0, err
		}
		args[i] = v
	}
	var v float64
	switch n.op {
	case "neg":
		v = -args[0]
	case "+":
		v = args[0] + args[1]
	case "-":
		v = args[0] - args[1]
	case "*":
		v = args[0] * args[1]
	case "/":
		if args[1] == 0 {
			return 0, ErrDivisionByZero
		}
		v = args[0] / args[1]
	case "%":
		if args[1] == 0 {
			return 0, ErrDivisionByZero
		}
		v = math.Mod(args[0], args[1])
	case "^":
		v = math.Pow(args[0], args[1])
	case "sqrt":
		if args[0] < 0 {
			return 0, errors.New("sqrt of negative number " + strconv.FormatFloat(args[0], 'g', -1, 64) + " at offset " + strconv.Itoa(n.pos))
		}
		v = math.Sqrt(args[0])
	case "abs":
		v = math.Abs(args[0])
	case "floor":
		v = math.Floor(args[0])
	case "ceil":
		v = math.Ceil(args[0])
	case "round":
		v = math.Round(args[0])
	case "min":
		v = args[0]
		for _, a := range args[1:] {
			v = math.Min(v, a)
		}
	case "max":
		v = args[0]
		for _, a := range args[1:] {
			v = math.Max(v, a)
		}
	default:
		return 0, errors.New("internal error: unknown operation " + strconv.Quote(n.op))
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		name := n.op
		if name == "neg" {
			name = "-"
		}
		return 0, errors.New("result of " + strconv.Quote(name) + " at offset " + strconv.Itoa(n.pos) + " is not a finite number")
	}
	return v, nil
}
