package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

var ctx = context.Background()

func TestValidateRef(t *testing.T) {
	tests := []struct{ ref, wantErr string }{
		{"HEAD", ""},
		{"main", ""},
		{"v1.0.0", ""},
		{"origin/feature/x-y", ""},
		{"HEAD~3", ""},
		{"main^2", ""},
		{"v1.0..HEAD", ""},
		{"@{upstream}", ""},
		{"0123456789abcdef0123456789abcdef01234567", ""},
		{"a-", ""},
		{"ünïcode", ""},
		{strings.Repeat("a", 256), ""},
		{"", "ref must not be empty"},
		{strings.Repeat("a", 257), "ref is 257 bytes long, at most 256 allowed"},
		{"-n", `ref "-n" must not start with "-"`},
		{"--output=/tmp/x", `ref "--output=/tmp/x" must not start with "-"`},
		{"-", `ref "-" must not start with "-"`},
		{"main\nHEAD", `ref "main\nHEAD" contains a control character`},
		{"ma\x00in", `ref "ma\x00in" contains a control character`},
		{"tab\there", `ref "tab\there" contains a control character`},
		{"bad\xffutf8", "ref is not valid UTF-8"},
	}
	for _, tt := range tests {
		err := ValidateRef(tt.ref)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.wantErr {
			t.Errorf("ValidateRef(%q) = %q, want %q", tt.ref, got, tt.wantErr)
		}
	}
}

func TestShapeLog(t *testing.T) {
	three := "a1 one\nb2 two\nc3 three\n"
	tests := []struct {
		name string
		out  output
		n    int
		want string
	}{
		{"all fit", output{stdout: three}, 20, "a1 one\nb2 two\nc3 three"},
		{"exact", output{stdout: three}, 3, "a1 one\nb2 two\nc3 three"},
		{"cut", output{stdout: three}, 2, "a1 one\nb2 two\n[more commits not shown: showing 2; raise max_count or narrow ref]"},
		{"crlf", output{stdout: "a1 one\r\nb2 two\r\n"}, 5, "a1 one\nb2 two"},
		{"no trailing newline", output{stdout: "a1 one"}, 5, "a1 one"},
		{"empty", output{stdout: ""}, 5, "(no commits)"},
		{"host cut mid-line", output{stdout: "a1 one\nb2 tw", truncated: true}, 5,
			"a1 one\n[more commits not shown: showing 1; raise max_count or narrow ref]"},
		{"host cut at line end", output{stdout: "a1 one\nb2 two\n", truncated: true}, 5,
			"a1 one\nb2 two\n[more commits not shown: showing 2; raise max_count or narrow ref]"},
	}
	for _, tt := range tests {
		if got := ShapeLog(tt.out, tt.n); got != tt.want {
			t.Errorf("%s: ShapeLog = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestShapeStatus(t *testing.T) {
	tests := []struct {
		out  output
		want string
	}{
		{output{stdout: ""}, "(clean: no changes)"},
		{output{stdout: " M a.go\n?? new.txt\n"}, " M a.go\n?? new.txt"},
		{output{stdout: " M a.go\n?? ne", truncated: true}, " M a.go\n[output truncated by the host]"},
		{output{stdout: "?? ne", truncated: true}, "[output truncated by the host]"},
	}
	for _, tt := range tests {
		if got := ShapeStatus(tt.out); got != tt.want {
			t.Errorf("ShapeStatus(%+v) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

// fakeExec replaces execDo for one test and records the requests it sees.
func fakeExec(t *testing.T, resp *abi.ExecResponse, err error) *[]abi.ExecRequest {
	t.Helper()
	var seen []abi.ExecRequest
	old := execDo
	execDo = func(req abi.ExecRequest) (*abi.ExecResponse, error) {
		seen = append(seen, req)
		return resp, err
	}
	t.Cleanup(func() { execDo = old })
	return &seen
}

func TestLog(t *testing.T) {
	seen := fakeExec(t, &abi.ExecResponse{Stdout: "a1 one\nb2 two\nc3 three\n"}, nil)
	got, err := Log(ctx, LogIn{})
	if err != nil || got != "a1 one\nb2 two\nc3 three" {
		t.Errorf("Log({}) = %q, %v", got, err)
	}
	got, err = Log(ctx, LogIn{Ref: "v1.0..main", MaxCount: 1})
	if want := "a1 one\n[more commits not shown: showing 1; raise max_count or narrow ref]"; err != nil || got != want {
		t.Errorf("Log(v1.0..main, 1) = %q, %v; want %q", got, err, want)
	}
	want := []abi.ExecRequest{{Program: "git-log", Args: []string{"HEAD"}}, {Program: "git-log", Args: []string{"v1.0..main"}}}
	if diff := cmp.Diff(want, *seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestLogErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      LogIn
		resp    *abi.ExecResponse
		err     error
		wantErr string
		noCall  bool
	}{
		{name: "option ref", in: LogIn{Ref: "--all"}, noCall: true, wantErr: `ref "--all" must not start with "-"`},
		{name: "max_count negative", in: LogIn{MaxCount: -1}, noCall: true, wantErr: "max_count must be between 1 and 200, got -1"},
		{name: "max_count too big", in: LogIn{MaxCount: 201}, noCall: true, wantErr: "max_count must be between 1 and 200, got 201"},
		{name: "unknown revision", in: LogIn{Ref: "nope"},
			resp:    &abi.ExecResponse{ExitCode: 128, Stderr: "fatal: ambiguous argument 'nope': unknown revision or path not in the working tree.\n"},
			wantErr: "git log nope: exit code 128: fatal: ambiguous argument 'nope': unknown revision or path not in the working tree."},
		{name: "silent failure", in: LogIn{}, resp: &abi.ExecResponse{ExitCode: 1},
			wantErr: "git log HEAD: exit code 1: no error output"},
		{name: "denied", in: LogIn{},
			err:     &guest.RequestError{Kind: "exec", Status: abi.StatusDenied, Message: `exec: program "git-log" is not granted to guest "git"`},
			wantErr: `git log HEAD: exec: program "git-log" is not granted to guest "git" (this tool needs an exec grant named "git-log" for /usr/bin/git; see the git guest's documentation)`},
		{name: "timeout", in: LogIn{},
			err:     &guest.RequestError{Kind: "exec", Status: abi.StatusTimeout, Message: "exec: time limit 5s exceeded"},
			wantErr: "git log HEAD: exec: time limit 5s exceeded"},
	}
	for _, tt := range tests {
		seen := fakeExec(t, tt.resp, tt.err)
		got, err := Log(ctx, tt.in)
		if err == nil || err.Error() != tt.wantErr {
			t.Errorf("%s: Log = %q, %v; want error %q", tt.name, got, err, tt.wantErr)
		}
		if tt.noCall && len(*seen) != 0 {
			t.Errorf("%s: ran a program, want none", tt.name)
		}
	}
}

func TestStatus(t *testing.T) {
	seen := fakeExec(t, &abi.ExecResponse{Stdout: " M main.go\n"}, nil)
	if got, err := Status(ctx, StatusIn{}); err != nil || got != " M main.go" {
		t.Errorf("Status = %q, %v", got, err)
	}
	if diff := cmp.Diff([]abi.ExecRequest{{Program: "git-status"}}, *seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	fakeExec(t, &abi.ExecResponse{ExitCode: 128, Stderr: "fatal: not a git repository (or any of the parent directories): .git\n"}, nil)
	_, err := Status(ctx, StatusIn{})
	if want := "git status: exit code 128: fatal: not a git repository (or any of the parent directories): .git"; err == nil || err.Error() != want {
		t.Errorf("Status error = %v, want %q", err, want)
	}
}

func TestLogSchema(t *testing.T) {
	var got map[string]any
	if err := json.Unmarshal(logSchema(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"properties": map[string]any{
			"ref": map[string]any{"type": "string", "minLength": 1.0, "maxLength": 256.0, "pattern": "^[^-]", "default": "HEAD",
				"description": "revision to start from: a branch, tag, commit or expression such as main~3 or v1.0..HEAD (default HEAD)"},
			"max_count": map[string]any{"type": "integer", "minimum": 1.0, "maximum": 200.0, "default": 20.0,
				"description": "most commits to list (default 20, at most 200)"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
}

// inferredLogSchema is LogIn's inferred schema plus bounds and defaults, which struct tags cannot
// express.
func inferredLogSchema() json.RawMessage {
	s, err := jsonschema.For[LogIn](nil)
	if err != nil {
		panic(err)
	}
	ref := s.Properties["ref"]
	ref.MinLength, ref.MaxLength = ptr(1), ptr(MaxRefLen)
	ref.Pattern = "^[^-]"
	ref.Default = json.RawMessage(strconv.Quote(DefaultRef))
	mc := s.Properties["max_count"]
	mc.Minimum, mc.Maximum = ptr(1.0), ptr(float64(MaxMaxCount))
	mc.Default = json.RawMessage(strconv.Itoa(DefaultMaxCount))
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// TestLogSchemaCurrent: the constant schema is what jsonschema-go infers from LogIn, plus
// the bounds and defaults, byte for byte.
func TestLogSchemaCurrent(t *testing.T) {
	if got, want := string(logSchema()), string(inferredLogSchema()); got != want {
		t.Errorf("logInputSchema is stale; set it to\n%s", want)
	}
}
