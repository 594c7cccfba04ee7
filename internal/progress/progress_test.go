package progress_test

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mcpwasm/mcpwasm/internal/progress"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		progress, total float64
		msg             string
		tty             bool
		want            string
	}{
		{1, 4, "reading", false, "progress: 1/4 reading\n"},
		{3, 0, "", false, "progress: 3\n"},
		{2, 4, "half\x1b[2J", true, "\r[###############               ]  50% half [2J\x1b[K"},
		{9, 4, "", true, "\r[##############################] 100%\x1b[K"},
		{7, 0, "", true, "\r[7]\x1b[K"},
		{1, 2, strings.Repeat("é", 61), true, "\r[###############               ]  50% " + strings.Repeat("é", 60) + "…\x1b[K"},
	} {
		if got := progress.Format(tc.progress, tc.total, tc.msg, tc.tty); got != tc.want {
			t.Errorf("Format(%v, %v, %q, %v) = %q, want %q", tc.progress, tc.total, tc.msg, tc.tty, got, tc.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, total int64
		tty      bool
		want     string
	}{
		{"oci://r/echo:v1", 3 << 19, 4 << 20, true, "\roci://r/echo:v1  1.5/4.0 MiB"},
		{"https://h/x.wasm", 1 << 20, -1, true, "\rhttps://h/x.wasm  1.0 MiB"},
		{"x\r\x1b[2J", 0, 10, false, "x  [2J  0.0/0.0 MiB\n"},
	} {
		if got := progress.FormatBytes(tc.name, tc.n, tc.total, tc.tty); got != tc.want {
			t.Errorf("FormatBytes(%q, %d, %d, %v) = %q, want %q", tc.name, tc.n, tc.total, tc.tty, got, tc.want)
		}
	}
}

// On a terminal Done ends the redrawn line once; elsewhere every update is already a line.
func TestPrinterDone(t *testing.T) {
	var b strings.Builder
	p := progress.New(&b, true)
	p.Done() // nothing drawn: nothing to end
	p.Step(1, 2, "a")
	p.Step(2, 2, "")
	p.Done()
	p.Done()
	if want := "\r[###############               ]  50% a\x1b[K\r[##############################] 100%\x1b[K\n"; b.String() != want {
		t.Errorf("terminal: %q, want %q", b.String(), want)
	}
	b.Reset()
	p = progress.New(&b, false)
	p.Step(1, 2, "a")
	p.Done()
	if want := "progress: 1/2 a\n"; b.String() != want {
		t.Errorf("not a terminal: %q, want %q", b.String(), want)
	}
}

// A Reader draws its first read, and its last (the error) followed by the line's end.
func TestReader(t *testing.T) {
	var b strings.Builder
	r := progress.Reader(iotest.OneByteReader(strings.NewReader("abc")), progress.New(&b, true), "x.wasm", 3)
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "abc" {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
	if !strings.HasPrefix(b.String(), "\rx.wasm  0.0/0.0 MiB") || !strings.HasSuffix(b.String(), "\rx.wasm  0.0/0.0 MiB\n") {
		t.Errorf("drawn %q", b.String())
	}
}
