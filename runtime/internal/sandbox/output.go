package sandbox

import "bytes"

// OutputBuffer keeps the first Limit bytes written to it and records that more were
// dropped. Writes never fail, so a chatty guest or program cannot make its own writes error.
// It is not safe for concurrent use: the owner of the instance or process owns it.
type OutputBuffer struct {
	bytes.Buffer
	Limit     int  // bytes kept
	Truncated bool // a write did not fit

	written int64  // bytes written since the last Reset, kept or not
	tail    []byte // the last tailBytes of them, once a write did not fit
}

// tailBytes is how much of the end of a truncated output Tail still has.
const tailBytes = 2048

// Written is the number of bytes written since the last Reset, dropped ones included.
func (b *OutputBuffer) Written() int64 { return b.written }

// Since returns the bytes written after Written returned from, as far as they are kept: all
// of them while nothing was dropped, else their last 2 KiB at most (what a trap's last line
// needs). from is a value Written returned since the last Reset.
func (b *OutputBuffer) Since(from int64) string {
	n := b.written - from
	if n <= 0 {
		return ""
	}
	if !b.Truncated {
		s := b.Buffer.Bytes()
		return string(s[len(s)-int(n):])
	}
	t := b.tail
	if int64(len(t)) > n {
		t = t[int64(len(t))-n:]
	}
	return string(t)
}

func (b *OutputBuffer) Write(p []byte) (int, error) {
	b.written += int64(len(p))
	if b.Truncated || b.Limit-b.Buffer.Len() < len(p) {
		if b.tail == nil {
			s := b.Buffer.Bytes()
			b.tail = append(make([]byte, 0, tailBytes), s[max(0, len(s)-tailBytes):]...)
		}
		if len(p) >= tailBytes {
			b.tail = append(b.tail[:0], p[len(p)-tailBytes:]...)
		} else {
			drop := max(0, len(b.tail)+len(p)-tailBytes)
			b.tail = append(b.tail[:copy(b.tail, b.tail[drop:])], p...)
		}
	}
	if room := b.Limit - b.Buffer.Len(); room < len(p) {
		b.Truncated = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// Reset empties the buffer and clears Truncated.
func (b *OutputBuffer) Reset() { b.Buffer.Reset(); b.Truncated, b.written, b.tail = false, 0, nil }
