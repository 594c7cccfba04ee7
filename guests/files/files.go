package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// Limits.
const (
	DefaultMaxBytes   = 100_000
	MaxMaxBytes       = 1_000_000
	MaxListEntries    = 10_000
	DefaultMaxMatches = 100
	MaxMaxMatches     = 1_000
	MaxGrepFileSize   = 1 << 20 // grep skips larger files
	MaxPatternLen     = 1024
	MaxMatchText      = 500 // bytes of a matching line returned; longer lines are cut
)

// Files serves the tools over the directory tree at Root, an absolute clean path: "/data"
// in the guest, a temporary directory in tests.
type Files struct {
	Root string
}

// cancelled reports whether the call was cancelled; tests replace it.
var cancelled = guest.Cancelled

// resolve checks that p (an absolute path; "" means Root) lies lexically within f.Root and
// returns it cleaned, after checking that Root itself is there. Symbolic links that leave
// Root are the host's to refuse: its fs grant confines the mount (natively, in tests,
// nothing does).
func (f Files) resolve(op, p string) (string, error) {
	if p == "" {
		p = f.Root
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("path %q must be absolute, under %s", p, f.Root)
	}
	clean := filepath.Clean(p)
	if clean != f.Root && !strings.HasPrefix(clean, strings.TrimSuffix(f.Root, "/")+"/") {
		// Go's wasip1 file system maps a path to the preopen that is its string prefix, so
		// without this check /database/x would silently read /data/base/x.
		return "", &fs.PathError{Op: op, Path: clean, Err: fmt.Errorf("outside %s, the only directory this guest can see", f.Root)}
	}
	if _, err := os.Stat(f.Root); err != nil {
		return "", fmt.Errorf("%v (this guest sees files only when the operator mounts a directory at %s)", err, f.Root)
	}
	return clean, nil
}

// ---- list ----

type ListIn struct {
	Path string `json:"path,omitempty" jsonschema:"absolute path of the directory to list (default /data)"`
}

type Entry struct {
	Name string `json:"name" jsonschema:"file name (not the full path)"`
	Dir  bool   `json:"dir" jsonschema:"true for a directory"`
	Size int64  `json:"size" jsonschema:"size in bytes (0 for directories)"`
}

type ListOut struct {
	Entries   []Entry `json:"entries" jsonschema:"the directory's entries sorted by name"`
	Truncated bool    `json:"truncated,omitempty" jsonschema:"true if the directory has more than 10000 entries and only the first are listed"`
}

// List returns the entries of the directory at in.Path, sorted by name. A symbolic link is
// listed as itself (dir false, size of the link).
func (f Files) List(_ context.Context, in ListIn) (ListOut, error) {
	clean, err := f.resolve("list", in.Path)
	if err != nil {
		return ListOut{}, err
	}
	st, err := os.Stat(clean)
	if err != nil {
		return ListOut{}, err
	}
	if !st.IsDir() {
		return ListOut{}, fmt.Errorf("list %s: not a directory", clean)
	}
	des, err := os.ReadDir(clean)
	if err != nil {
		return ListOut{}, err
	}
	out := ListOut{Entries: []Entry{}}
	if len(des) > MaxListEntries {
		des, out.Truncated = des[:MaxListEntries], true
	}
	for _, de := range des {
		e := Entry{Name: de.Name(), Dir: de.IsDir()}
		if !e.Dir {
			if info, err := de.Info(); err == nil {
				e.Size = info.Size()
			}
		}
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

// ---- read ----

type ReadIn struct {
	Path     string `json:"path" jsonschema:"absolute path of the file to read, under /data"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"most bytes to return (default 100000, at most 1000000); a longer file is cut and marked"`
}

// Read returns the UTF-8 text of the file at in.Path, cut to max_bytes on a rune boundary
// with a trailing note giving the file's size. Directories, other non-regular files and
// files that are not UTF-8 are errors.
func (f Files) Read(_ context.Context, in ReadIn) (string, error) {
	limit := in.MaxBytes
	switch {
	case limit == 0:
		limit = DefaultMaxBytes
	case limit < 0 || limit > MaxMaxBytes:
		return "", fmt.Errorf("max_bytes must be between 1 and %d, got %d", MaxMaxBytes, limit)
	}
	if in.Path == "" {
		return "", errors.New("path is required")
	}
	clean, err := f.resolve("read", in.Path)
	if err != nil {
		return "", err
	}
	file, err := os.Open(clean)
	if err != nil {
		return "", err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return "", err
	}
	switch {
	case st.IsDir():
		return "", fmt.Errorf("read %s: is a directory", clean)
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("read %s: not a regular file", clean)
	}
	b, err := io.ReadAll(io.LimitReader(file, int64(limit)+1))
	if err != nil {
		return "", err
	}
	truncated := len(b) > limit
	if truncated {
		cut := limit
		for cut > 0 && cut > limit-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = b[:cut]
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("read %s: not UTF-8 text", clean)
	}
	s := string(b)
	if truncated {
		size := st.Size()
		if size < int64(len(b)) {
			size = int64(len(b))
		}
		s += "\n\n[truncated: showing " + strconv.Itoa(len(b)) + " of " + strconv.FormatInt(size, 10) + " bytes; raise max_bytes for more]"
	}
	return s, nil
}

// ---- grep ----

type GrepIn struct {
	Pattern    string `json:"pattern" jsonschema:"Go RE2 regular expression matched against each line (^ and $ anchor at line ends; (?i) for case-insensitive)"`
	Path       string `json:"path,omitempty" jsonschema:"absolute path of the directory (or file) to search recursively (default /data)"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"most matches to return (default 100, at most 1000)"`
}

type Match struct {
	File string `json:"file" jsonschema:"absolute path of the file"`
	Line int    `json:"line" jsonschema:"line number, from 1"`
	Text string `json:"text" jsonschema:"the line without its terminator, cut to 500 bytes"`
}

type GrepOut struct {
	Matches   []Match `json:"matches" jsonschema:"matches in path order, then line order"`
	Truncated bool    `json:"truncated,omitempty" jsonschema:"true if more matches exist than max_matches"`
	Skipped   int     `json:"skipped,omitempty" jsonschema:"files not searched: larger than 1 MiB, not UTF-8 text, or unreadable"`
}

// Grep walks the tree at in.Path in lexical order (symbolic links are not followed) and
// returns the lines matching in.Pattern. Files over MaxGrepFileSize, files that are not
// UTF-8, and unreadable files and directories are skipped and counted.
func (f Files) Grep(_ context.Context, in GrepIn) (GrepOut, error) {
	limit := in.MaxMatches
	switch {
	case limit == 0:
		limit = DefaultMaxMatches
	case limit < 0 || limit > MaxMaxMatches:
		return GrepOut{}, fmt.Errorf("max_matches must be between 1 and %d, got %d", MaxMaxMatches, limit)
	}
	if len(in.Pattern) > MaxPatternLen {
		return GrepOut{}, fmt.Errorf("pattern is %d bytes long, at most %d allowed", len(in.Pattern), MaxPatternLen)
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return GrepOut{}, fmt.Errorf("invalid pattern: %v", err)
	}
	clean, err := f.resolve("grep", in.Path)
	if err != nil {
		return GrepOut{}, err
	}
	out := GrepOut{Matches: []Match{}}
	err = filepath.WalkDir(clean, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == clean {
				return err
			}
			out.Skipped++ // an unreadable directory (or entry): skip it, keep walking
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // directories are walked; links, devices, pipes are not read
		}
		if cancelled() {
			return errors.New("cancelled")
		}
		info, err := d.Info()
		if err != nil || info.Size() > MaxGrepFileSize {
			out.Skipped++
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) > MaxGrepFileSize || !utf8.Valid(b) {
			out.Skipped++
			return nil
		}
		for i, line := range splitLines(b) {
			if !re.Match(line) {
				continue
			}
			if len(out.Matches) == limit {
				out.Truncated = true
				return fs.SkipAll
			}
			out.Matches = append(out.Matches, Match{File: p, Line: i + 1, Text: cutText(string(line), MaxMatchText)})
		}
		return nil
	})
	if err != nil {
		return GrepOut{}, err
	}
	return out, nil
}

// splitLines splits b at "\n", dropping a trailing "\r" from each line and the empty line
// after a final "\n".
func splitLines(b []byte) [][]byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) == 0 {
		return nil
	}
	ls := bytes.Split(b, []byte("\n"))
	for i, l := range ls {
		ls[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return ls
}

// cutText returns s cut to at most n bytes on a rune boundary, with "…" appended when cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ---- schemas ----

// readSchema and grepSchema are ReadIn's and GrepIn's inferred schemas with their integer
// limits bounded and defaulted, which struct tags cannot express. They are constants so the
// guest need not link jsonschema-go; TestSchemasCurrent checks them against the inference
// (inferredSchema in files_test.go).
func readSchema() json.RawMessage { return json.RawMessage(readInputSchema) }

func grepSchema() json.RawMessage { return json.RawMessage(grepInputSchema) }

const (
	readInputSchema = `{"type":"object","properties":{"path":{"type":"string","description":"absolute path of the file to read, under /data"},"max_bytes":{"type":"integer","description":"most bytes to return (default 100000, at most 1000000); a longer file is cut and marked","default":100000,"minimum":1,"maximum":1000000}},"required":["path"],"additionalProperties":false}`
	grepInputSchema = `{"type":"object","properties":{"pattern":{"type":"string","description":"Go RE2 regular expression matched against each line (^ and $ anchor at line ends; (?i) for case-insensitive)"},"path":{"type":"string","description":"absolute path of the directory (or file) to search recursively (default /data)"},"max_matches":{"type":"integer","description":"most matches to return (default 100, at most 1000)","default":100,"minimum":1,"maximum":1000}},"required":["pattern"],"additionalProperties":false}`
)
