package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/suggest"
)

// parseArgs parses fs's flags from args, which may stand before, between or after the
// positional arguments (`serve x.wasm --timeout 1s`); "--" ends the flags. It returns the
// positional arguments. A parse error is one line naming the flag and what it expects
// (flagError). A user's -h is answered before a command runs (wantsHelp); here -h only lists
// the flags, for the help text.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(out) // the flag listing of 'mcpwasm help' (flagHelp) is this
			fs.PrintDefaults()
			return nil, err
		} else if err != nil {
			return nil, flagError(fs, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError turns the flag package's parse error into one line that says what the flag
// expects ("--timeout "5": want a duration such as 30s or 1m30s") or, for an unknown flag,
// which known one is nearest.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if near := nearestFlag(fs, name); near != "" {
			return fmt.Errorf("%s (did you mean --%s?)", msg, near)
		}
		return err
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		if f := fs.Lookup(name); f != nil {
			if want := expects(f.Value); want != "" {
				return fmt.Errorf("--%s needs a value: %s", name, strings.TrimPrefix(want, "want "))
			}
			return fmt.Errorf("--%s needs a value", name)
		}
		return err
	}
	// invalid value "V" for flag -NAME: CAUSE, or invalid boolean value "V" for -NAME: CAUSE
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		if rest, ok = strings.CutPrefix(msg, "invalid boolean value "); !ok {
			return err
		}
	}
	value, err2 := strconv.QuotedPrefix(rest)
	if err2 != nil {
		return err
	}
	rest = strings.TrimPrefix(strings.TrimPrefix(rest[len(value):], " for flag -"), " for -")
	name, cause, _ := strings.Cut(rest, ": ")
	f := fs.Lookup(name)
	if f == nil {
		return err
	}
	want := expects(f.Value)
	if want == "" { // a flag of our own type: its Set error says what it wants
		want = cause
	}
	return fmt.Errorf("--%s %s: %s", name, value, want)
}

// expects describes the values a flag of a standard type takes ("want …"), or "" for a
// flag of our own type.
func expects(v flag.Value) string {
	if g, ok := v.(flag.Getter); ok {
		switch g.Get().(type) {
		case time.Duration:
			return "want a duration such as 30s, 500ms or 1m30s"
		case bool:
			return "want true or false"
		case int, int64:
			return "want a whole number"
		case uint, uint64:
			return "want a whole number, 0 or more"
		case float64:
			return "want a number"
		}
	}
	return ""
}

// nearestFlag is the defined flag closest to name (edit distance at most 2, or a prefix), or "".
func nearestFlag(fs *flag.FlagSet, name string) string {
	best, bestD := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := suggest.Distance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}
