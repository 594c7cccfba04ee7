package ship

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/atomicfile"
	"github.com/mcpwasm/mcpwasm/internal/digest"
)

// LockName is the lock file's name, beside the config file.
const LockName = "mcpwasm.lock"

// LockVersion is the version of the lock format this package writes and reads.
const LockVersion = 1

// Lock is the content of mcpwasm.lock: what each guest's source resolved to when it was
// locked, and what its tools looked like. JSON, two-space indented, guests sorted by source:
//
//	{"version": 1,
//	 "guests": [{"name": "echo", "source": "oci://r.example/tools/echo:v1",
//	             "resolved": "sha256:<OCI manifest digest>", "sha256": "<module hex>",
//	             "manifest": "sha256:<canonical describe output>",
//	             "tools": {"echo": {"description": "sha256:…", "inputSchema": "sha256:…", …}}}]}
type Lock struct {
	Version int           `json:"version"`
	Guests  []LockedGuest `json:"guests"`
	// Upstreams pins the tools of exposed upstream MCP servers: server name → tool name →
	// field digests (as Tools of a guest, without "requests").
	Upstreams map[string]map[string]ToolDigests `json:"upstreams,omitempty"`
}

// LockedGuest pins one guest.
type LockedGuest struct {
	// Name is the guest's name (the config's, else the manifest's), for messages.
	Name string `json:"name"`
	// Source is the guest's source as written in the config: the key.
	Source string `json:"source"`
	// Resolved is the OCI manifest digest for an oci:// source, else "sha256:" and the
	// module's digest.
	Resolved string `json:"resolved"`
	// SHA256 is the module's hex SHA-256.
	SHA256 string `json:"sha256"`
	// Manifest is "sha256:" and the SHA-256 of the canonical JSON of the guest's describe
	// output (ManifestDigest).
	Manifest string `json:"manifest"`
	// Tools maps each tool to the digests of its fields (ToolFields).
	Tools map[string]ToolDigests `json:"tools"`
}

// ToolDigests maps a tool field ("title", "description", "inputSchema", "outputSchema",
// "annotations", "icons", "requests") to "sha256:" and the SHA-256 of its canonical JSON.
// "requests" covers the guest-wide requests and the tool's own.
type ToolDigests map[string]string

// ReadLock reads the lock file at path. A missing file is (nil, nil).
func ReadLock(path string) (*Lock, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if l.Version != LockVersion {
		return nil, fmt.Errorf("%s: lock version %d, this mcpwasm reads %d", path, l.Version, LockVersion)
	}
	return &l, nil
}

// Write writes l to path atomically (internal/atomicfile).
func (l *Lock) Write(path string) error {
	l.Version = LockVersion
	slices.SortFunc(l.Guests, func(a, b LockedGuest) int { return strings.Compare(a.Source, b.Source) })
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// Guest returns the entry for source, or nil.
func (l *Lock) Guest(source string) *LockedGuest {
	if l == nil {
		return nil
	}
	for i := range l.Guests {
		if l.Guests[i].Source == source {
			return &l.Guests[i]
		}
	}
	return nil
}

// Set adds or replaces the entry for g.Source.
func (l *Lock) Set(g LockedGuest) {
	if old := l.Guest(g.Source); old != nil {
		*old = g
		return
	}
	l.Guests = append(l.Guests, g)
}

// ManifestDigest is "sha256:" and the SHA-256 of the canonical JSON of m.
func ManifestDigest(m *abi.Manifest) string { return digest.Of(m) }

// ToolFields returns the field digests of every tool of m.
func ToolFields(m *abi.Manifest) map[string]ToolDigests {
	out := make(map[string]ToolDigests, len(m.Tools))
	for _, t := range m.Tools {
		var support string
		if t.Execution != nil {
			support = t.Execution.TaskSupport
		}
		d := digest.Tool(t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations, t.Icons, t.Meta, support)
		d["requests"] = digest.Of([]abi.Requests{m.Requests, t.Requests})
		out[t.Name] = d
	}
	return out
}

// Change is one tool that differs between a lock and a manifest.
type Change struct {
	Tool string
	// Kind is "added", "removed" or "changed".
	Kind string
	// Fields lists the changed fields, sorted (for "changed").
	Fields []string
}

// String is "tool NAME: added", "… removed" or "… description changed, inputSchema changed".
func (c Change) String() string {
	if c.Kind != "changed" {
		return fmt.Sprintf("tool %q: %s", c.Tool, c.Kind)
	}
	parts := make([]string, len(c.Fields))
	for i, f := range c.Fields {
		parts[i] = f + " changed"
	}
	return fmt.Sprintf("tool %q: %s", c.Tool, strings.Join(parts, ", "))
}

// Diff lists, sorted by tool name, how the tools now differ from those locked. A field the
// lock does not have (a lock written before that field was digested, e.g. "_meta" and
// "execution") is not a change: the next lock --update records it.
func Diff(locked, now map[string]ToolDigests) []Change {
	var out []Change
	for name, n := range now {
		o, ok := locked[name]
		if !ok {
			out = append(out, Change{Tool: name, Kind: "added"})
			continue
		}
		var fields []string
		for f, d := range n {
			if od, had := o[f]; had && od != d {
				fields = append(fields, f)
			}
		}
		for f := range o {
			if _, ok := n[f]; !ok {
				fields = append(fields, f)
			}
		}
		if len(fields) > 0 {
			slices.Sort(fields)
			out = append(out, Change{Tool: name, Kind: "changed", Fields: fields})
		}
	}
	for name := range locked {
		if _, ok := now[name]; !ok {
			out = append(out, Change{Tool: name, Kind: "removed"})
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}
