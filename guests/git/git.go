package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// Exec grant names the tools use (see the package comment for the grants themselves).
const (
	ProgramLog    = "git-log"
	ProgramStatus = "git-status"
)

// Limits of git_log.
const (
	DefaultRef      = "HEAD"
	MaxRefLen       = 256
	DefaultMaxCount = 20
	MaxMaxCount     = 200
)

// execDo runs a granted program; tests replace it.
var execDo = guest.Exec

type LogIn struct {
	Ref      string `json:"ref,omitempty" jsonschema:"revision to start from: a branch, tag, commit or expression such as main~3 or v1.0..HEAD (default HEAD)"`
	MaxCount int    `json:"max_count,omitempty" jsonschema:"most commits to list (default 20, at most 200)"`
}

// Log lists commits reachable from in.Ref, one "<short hash> <subject>" line each.
func Log(_ context.Context, in LogIn) (string, error) {
	ref := in.Ref
	if ref == "" {
		ref = DefaultRef
	}
	if err := ValidateRef(ref); err != nil {
		return "", err
	}
	n := in.MaxCount
	switch {
	case n == 0:
		n = DefaultMaxCount
	case n < 0 || n > MaxMaxCount:
		return "", fmt.Errorf("max_count must be between 1 and %d, got %d", MaxMaxCount, n)
	}
	out, err := run("git log "+ref, abi.ExecRequest{Program: ProgramLog, Args: []string{ref}})
	if err != nil {
		return "", err
	}
	return ShapeLog(out, n), nil
}

type StatusIn struct{}

// Status reports the working tree's changes (git status --short, per the grant).
func Status(_ context.Context, _ StatusIn) (string, error) {
	out, err := run("git status", abi.ExecRequest{Program: ProgramStatus})
	if err != nil {
		return "", err
	}
	return ShapeStatus(out), nil
}

// ValidateRef checks a ref before the host sees it: non-empty, at most MaxRefLen bytes,
// valid UTF-8, no control characters, and no leading "-" (git would read it as an option;
// the host refuses such arguments too — this is defence in depth).
func ValidateRef(ref string) error {
	switch {
	case ref == "":
		return errors.New("ref must not be empty")
	case len(ref) > MaxRefLen:
		return fmt.Errorf("ref is %d bytes long, at most %d allowed", len(ref), MaxRefLen)
	case !utf8.ValidString(ref):
		return errors.New("ref is not valid UTF-8")
	case strings.HasPrefix(ref, "-"):
		return fmt.Errorf("ref %q must not start with \"-\"", ref)
	case strings.IndexFunc(ref, unicode.IsControl) >= 0:
		return fmt.Errorf("ref %q contains a control character", ref)
	}
	return nil
}

// output is what run passes on: the program's stdout and whether the host cut it.
type output struct {
	stdout    string
	truncated bool
}

// run executes req and turns host refusals and non-zero exits into errors prefixed by what.
func run(what string, req abi.ExecRequest) (output, error) {
	resp, err := execDo(req)
	if err != nil {
		var re *guest.RequestError
		if errors.As(err, &re) {
			msg := what + ": " + re.Message
			if re.Status == abi.StatusDenied || re.Status == abi.StatusNotFound {
				msg += fmt.Sprintf(" (this tool needs an exec grant named %q for /usr/bin/git; see the git guest's documentation)", req.Program)
			}
			return output{}, errors.New(msg)
		}
		return output{}, fmt.Errorf("%s: %v", what, err)
	}
	if resp.ExitCode != 0 {
		msg := strings.TrimSpace(resp.Stderr)
		if msg == "" {
			msg = "no error output"
		}
		return output{}, fmt.Errorf("%s: exit code %d: %s", what, resp.ExitCode, msg)
	}
	return output{stdout: resp.Stdout, truncated: resp.Truncated}, nil
}

// lines splits out's stdout into lines without their terminators. When the host cut the
// output, the last line may be partial and is dropped.
func lines(out output) []string {
	s := strings.TrimRight(strings.ReplaceAll(out.stdout, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	ls := strings.Split(s, "\n")
	if out.truncated && !strings.HasSuffix(out.stdout, "\n") {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// ShapeLog keeps the first n lines of git log output and says when more were left out.
func ShapeLog(out output, n int) string {
	ls := lines(out)
	if len(ls) == 0 {
		return "(no commits)"
	}
	more := out.truncated
	if len(ls) > n {
		ls, more = ls[:n], true
	}
	s := strings.Join(ls, "\n")
	if more {
		s += "\n[more commits not shown: showing " + strconv.Itoa(len(ls)) + "; raise max_count or narrow ref]"
	}
	return s
}

// ShapeStatus returns git status output, or a note when the working tree is clean.
func ShapeStatus(out output) string {
	ls := lines(out)
	if len(ls) == 0 {
		if out.truncated {
			return "[output truncated by the host]"
		}
		return "(clean: no changes)"
	}
	s := strings.Join(ls, "\n")
	if out.truncated {
		s += "\n[output truncated by the host]"
	}
	return s
}

// logSchema is LogIn's inferred schema plus bounds and defaults, which struct tags cannot
// express. It is a constant so the guest need not link jsonschema-go; TestLogSchemaCurrent
// checks it against the inference (inferredLogSchema in git_test.go).
func logSchema() json.RawMessage { return json.RawMessage(logInputSchema) }

const logInputSchema = `{"type":"object","properties":{"ref":{"type":"string","description":"revision to start from: a branch, tag, commit or expression such as main~3 or v1.0..HEAD (default HEAD)","default":"HEAD","minLength":1,"maxLength":256,"pattern":"^[^-]"},"max_count":{"type":"integer","description":"most commits to list (default 20, at most 200)","default":20,"minimum":1,"maximum":200}},"additionalProperties":false}`
