package expr

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestEval(t *testing.T) {
	tests := []struct {
		expr string
		want float64
	}{
		{"2*(3+4)^2", 98},
		{"1+2*3", 7},
		{"(1+2)*3", 9},
		{"1-2-3", -4},
		{"2/4", 0.5},
		{"100/10/5", 2},
		{"7%3", 1},
		{"-7%3", -1},
		{"7.5%2", 1.5},
		{"2^3^2", 512},
		{"(2^3)^2", 64},
		{"-2^2", -4},
		{"(-2)^2", 4},
		{"2^-1", 0.5},
		{"2^-2^2", 0.0625},
		{"--3", 3},
		{"+-+3", -3},
		{"-(2+3)", -5},
		{"3 - -3", 6},
		{"2*-3", -6},
		{"42", 42},
		{"3.25", 3.25},
		{".5", 0.5},
		{"5.", 5},
		{"1e3", 1000},
		{"1E3", 1000},
		{"2.5e-1", 0.25},
		{"1e+2", 100},
		{"1e-999", 0},
		{"0.1+0.2", 0.30000000000000004},
		{"sqrt(16)", 4},
		{"sqrt(2)", math.Sqrt2},
		{"abs(-3.5)", 3.5},
		{"min(3)", 3},
		{"min(3, 1, 2)", 1},
		{"max(3, 1, 2)", 3},
		{"max(-1, -2)", -1},
		{"floor(-2.5)", -3},
		{"ceil(-2.5)", -2},
		{"round(2.5)", 3},
		{"round(-2.5)", -3},
		{"round(2.4)", 2},
		{"pi", math.Pi},
		{"e", math.E},
		{"2*pi", 2 * math.Pi},
		{"max(1, min(5, 3) * 2)", 6},
		{"sqrt(abs(-16)) + floor(pi)", 7},
		{" \t1 +\n2\r ", 3},
		{"-0", 0},
		{"0*-1", 0},
	}
	for _, tt := range tests {
		got, err := Eval(tt.expr)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.expr, err)
			continue
		}
		if got != tt.want || math.Signbit(got) != math.Signbit(tt.want) {
			t.Errorf("Eval(%q) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	deep := strings.Repeat("(", 64) + "1" + strings.Repeat(")", 64)
	tests := []struct {
		expr, want string
	}{
		{"", "empty expression"},
		{"   ", "empty expression"},
		{"1/0", "division by zero"},
		{"1%0", "division by zero"},
		{"1/(2-2)", "division by zero"},
		{"5%(0*3)", "division by zero"},
		{"sqrt(-4)", "sqrt of negative number -4 at offset 0"},
		{"1 + sqrt(-0.5)", "sqrt of negative number -0.5 at offset 4"},
		{"1e308*10", `result of "*" at offset 5 is not a finite number`},
		{"10^400", `result of "^" at offset 2 is not a finite number`},
		{"(-8)^(1/3)", `result of "^" at offset 4 is not a finite number`},
		{"1e999", `number "1e999" out of range at offset 0`},
		{"2+*3", `unexpected "*" at offset 2`},
		{"2 + * 3", `unexpected "*" at offset 4`},
		{"2*", "unexpected end of expression at offset 2"},
		{"(1+2", "unexpected end of expression at offset 4"},
		{"1+2)", `unexpected ")" at offset 3`},
		{"()", `unexpected ")" at offset 1`},
		{"2 3", `unexpected "3" at offset 2`},
		{"1..2", `unexpected ".2" at offset 2`},
		{"2e", `unexpected "e" at offset 1`},
		{"1 # 2", `unexpected '#' at offset 2`},
		{"1 + é", `unexpected 'é' at offset 4`},
		{"\xff", `unexpected '�' at offset 0`},
		{"x+1", `unknown name "x" at offset 0`},
		{"eval(1)", `unknown name "eval" at offset 0`},
		{"sqrt 4", `expected "(" after sqrt at offset 5`},
		{"sqrt", `expected "(" after sqrt at offset 4`},
		{"pi(2)", `unexpected "(" at offset 2`},
		{"sqrt()", "sqrt takes 1 argument, got 0 at offset 0"},
		{"sqrt(1, 2)", "sqrt takes 1 argument, got 2 at offset 0"},
		{"1+min()", "min takes at least 1 argument, got 0 at offset 2"},
		{"max(1,)", `unexpected ")" at offset 6`},
		{"max(1 2)", `unexpected "2" at offset 6`},
		{"2^", "unexpected end of expression at offset 2"},
		{"=1", `unexpected '=' at offset 0`},
		{"(" + deep + ")", "expression nested deeper than 64 levels at offset 64"},
		{strings.Repeat("-", 64) + "1", "expression nested deeper than 64 levels at offset 64"},
		{strings.Repeat("2^", 64) + "2", "expression nested deeper than 64 levels at offset 128"},
		{strings.Repeat("1", 1025), "expression longer than 1024 bytes"},
	}
	for _, tt := range tests {
		got, err := Eval(tt.expr)
		if err == nil {
			t.Errorf("Eval(%q) = %v, want error %q", tt.expr, got, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Eval(%q) error = %q, want %q", tt.expr, err, tt.want)
		}
	}
}

func TestEvalLimitsInclusive(t *testing.T) {
	// Exactly at each limit is accepted.
	deep := strings.Repeat("(", 63) + "7" + strings.Repeat(")", 63)
	if v, err := Eval(deep); err != nil || v != 7 {
		t.Errorf("63 parentheses: %v, %v", v, err)
	}
	if v, err := Eval(strings.Repeat("-", 63) + "1"); err != nil || v != -1 {
		t.Errorf("63 minus signs: %v, %v", v, err)
	}
	long := "1" + strings.Repeat("+1", 511) + " " // 1024 bytes
	if len(long) != MaxLen {
		t.Fatalf("len = %d", len(long))
	}
	if v, err := Eval(long); err != nil || v != 512 {
		t.Errorf("1024-byte expression: %v, %v", v, err)
	}
}

func FuzzEval(f *testing.F) {
	for _, s := range []string{
		"2*(3+4)^2", "-2^2", "max(1,2,3)", "sqrt(-1)", "1/0", "((((1))))", "1e3%7",
		"round(pi*e)", "2^-2^-2", ".5e-3", "min(", "1 # 2", "\xff", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Work is linear in the (bounded) input, so even a loaded fuzzing machine finishes
		// a call in microseconds; a second means a runaway.
		start := time.Now()
		v, err := Eval(s)
		if d := time.Since(start); d > time.Second {
			t.Errorf("Eval(%q) took %v", s, d)
		}
		if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
			t.Errorf("Eval(%q) = %v without error", s, v)
		}
		if err != nil && err.Error() == "" {
			t.Errorf("Eval(%q): empty error", s)
		}
	})
}
