package sandbox

import "bytes"

// OutputBuffer keeps the first Limit bytes written to it and records that more were
// dropped. Writes never fail, so a chatty guest or program cannot make its own writes error.
// It is not safe for concurrent use: the owner of the instance or process owns it.
type OutputBuffer struct {
	bytes.Buffer
	Limit     int  // bytes kept
	Truncated bool // a write did not fit
}

func (b *OutputBuffer) Write(p []byte) (int, error) {
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
func (b *OutputBuffer) Reset() { b.Buffer.Reset(); b.Truncated = false }
