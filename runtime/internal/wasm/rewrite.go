package wasm

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Rewriter writes a module made from a parsed one: every section kept as it is (byte for
// byte) unless it is replaced, extended, dropped, or added; sections the module lacks are
// placed by Rank, before the first section that must follow them, and appended custom
// sections go at the end. Without changes, Bytes returns the module's bytes unchanged.
type Rewriter struct {
	m       *Module
	repl    [SectionTag + 1][]byte
	set     [SectionTag + 1]bool
	drop    [SectionTag + 1]bool
	prefix  []string // custom sections dropped by name prefix
	customs []Custom // appended
	err     error
}

// NewRewriter returns a Rewriter of m with no changes.
func NewRewriter(m *Module) *Rewriter { return &Rewriter{m: m} }

// Replace sets the body of the non-custom section id (adding the section if m lacks it).
func (r *Rewriter) Replace(id SectionID, body []byte) {
	if id == SectionCustom || id > SectionTag {
		r.err = fmt.Errorf("wasm: Replace of section id %d", id)
		return
	}
	r.repl[id], r.set[id], r.drop[id] = body, true, false
}

// Body returns the section id's body as the rewrite stands: replaced, or the module's.
func (r *Rewriter) Body(id SectionID) (body []byte, ok bool) {
	if id <= SectionTag && r.set[id] {
		return r.repl[id], true
	}
	return r.m.Section(id)
}

// Append appends n entries, encoded in items, to the vector section id (creating it if the
// module lacks it), and returns the index of the first within the section: the old count.
func (r *Rewriter) Append(id SectionID, n int, items []byte) uint32 {
	sec, _ := r.Body(id)
	var count uint32
	var rest []byte
	if len(sec) > 0 {
		c, l, err := U32(sec)
		if err != nil {
			r.err = fmt.Errorf("%w: section %d count: %v", ErrMalformed, id, err)
			return 0
		}
		count, rest = c, sec[l:]
	}
	out := binary.AppendUvarint(make([]byte, 0, len(sec)+len(items)+5), uint64(count)+uint64(n))
	out = append(out, rest...)
	r.Replace(id, append(out, items...))
	return count
}

// Drop leaves the non-custom section id out.
func (r *Rewriter) Drop(id SectionID) {
	if id <= SectionTag {
		r.drop[id], r.set[id] = true, false
	}
}

// DropCustom leaves out the custom sections whose name starts with prefix.
func (r *Rewriter) DropCustom(prefix string) { r.prefix = append(r.prefix, prefix) }

// AppendCustom adds a custom section named name holding data at the end of the module.
func (r *Rewriter) AppendCustom(name string, data []byte) {
	r.customs = append(r.customs, Custom{Name: name, Data: data})
}

// RewriteBodies replaces the code section with one whose function bodies are fn's: fn gets
// the code-section index i and the body (locals and code), and returns the new body appended
// to out (a buffer it may reuse). Extra bodies appended later with Append follow them.
func (r *Rewriter) RewriteBodies(fn func(i uint32, body, out []byte) ([]byte, error)) error {
	sec, ok := r.m.Section(SectionCode)
	if !ok {
		return nil
	}
	count, _, err := U32(sec)
	if err != nil {
		return fmt.Errorf("%w: code section count: %v", ErrMalformed, err)
	}
	out := make([]byte, 0, len(sec)+len(sec)/4+int(min(count, uint32(len(sec))))*48)
	out = binary.AppendUvarint(out, uint64(count))
	var body []byte
	err = r.m.Bodies(func(i uint32, b []byte) error {
		var err error
		if body, err = fn(i, b, body[:0]); err != nil {
			return err
		}
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
		return nil
	})
	if err != nil {
		return err
	}
	r.Replace(SectionCode, out)
	return nil
}

// dropped reports whether the custom section body is left out by DropCustom.
func (r *Rewriter) dropped(body []byte) bool {
	if len(r.prefix) == 0 {
		return false
	}
	name, _, ok := customName(body) // an unreadable name is kept: the module stays invalid
	if !ok {
		return false
	}
	for _, p := range r.prefix {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Bytes returns the rewritten module, or the first error of a change.
func (r *Rewriter) Bytes() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	m := r.m
	size := len(m.b) // exactly: sizes are at most 5 bytes
	for id, b := range r.repl {
		if r.set[id] {
			size += 6 + len(b)
		}
		if k := m.at[id]; k != 0 && (r.set[id] || r.drop[id]) {
			size -= m.secs[k-1].end - m.secs[k-1].start
		}
	}
	for _, c := range r.customs {
		size += 11 + len(c.Name) + len(c.Data)
	}
	out := make([]byte, 0, size)
	out = append(out, m.b[:8]...)
	emit := func(id SectionID, body []byte) {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	// The sections m lacks, in rank order.
	var added []SectionID
	for _, id := range [...]SectionID{1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11} {
		if r.set[id] && m.at[id] == 0 {
			added = append(added, id)
		}
	}
	flush := func(before int) {
		for len(added) > 0 && Rank(added[0]) < before {
			emit(added[0], r.repl[added[0]])
			added = added[1:]
		}
	}
	for _, s := range m.secs {
		switch {
		case s.id == SectionCustom:
			if !r.dropped(m.b[s.body:s.end]) {
				out = append(out, m.b[s.start:s.end]...)
			}
			continue
		case r.drop[s.id]:
		case r.set[s.id]:
			flush(Rank(s.id))
			emit(s.id, r.repl[s.id])
			continue
		}
		flush(Rank(s.id))
		if !r.drop[s.id] {
			out = append(out, m.b[s.start:s.end]...)
		}
	}
	flush(1 << 30)
	for _, c := range r.customs {
		body := AppendName(make([]byte, 0, len(c.Name)+len(c.Data)+5), c.Name)
		emit(SectionCustom, append(body, c.Data...))
	}
	return out, nil
}

// AppendCustom returns b (a module) with a custom section named name holding data appended
// at its end, as a build step adds a script to an engine. b is not changed.
func AppendCustom(b []byte, name string, data []byte) ([]byte, error) {
	m, err := Parse(b)
	if err != nil {
		return nil, err
	}
	r := NewRewriter(m)
	r.AppendCustom(name, data)
	return r.Bytes()
}
