// Package progress prints progress on a writer (a terminal's stderr, usually): on a terminal
// one line redrawn in place, elsewhere one line per update. It serves both the progress
// notifications of `mcpwasm call` (MCP "Utilities › Progress": Step) and the downloads of
// `mcpwasm pull` (bytes read: Bytes, Reader), so both draw by one rule.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/termtext"
)

// Printer draws progress on w. Safe for concurrent use.
type Printer struct {
	w   io.Writer
	tty bool

	mu    sync.Mutex
	drawn bool // a line is on the terminal's current line, not yet ended
}

// New returns a Printer on w; tty says whether w is a terminal (lines are redrawn in place
// with "\r", else each update is a line of its own).
func New(w io.Writer, tty bool) *Printer {
	return &Printer{w: w, tty: tty}
}

// Step draws one progress notification (Format): progress of total (total 0: unknown) and
// the sender's message.
func (p *Printer) Step(progress, total float64, msg string) {
	p.draw(Format(progress, total, msg, p.tty))
}

// Bytes draws n bytes of total read for name (FormatBytes; total <= 0: unknown).
func (p *Printer) Bytes(name string, n, total int64) {
	p.draw(FormatBytes(name, n, total, p.tty))
}

func (p *Printer) draw(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.w, s)
	p.drawn = p.tty
}

// Done ends a redrawn line, so what follows starts on a fresh one. It writes nothing when
// no line is open.
func (p *Printer) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// Format renders one progress notification: for a terminal "\r[#####     ]  50% msg" with
// the rest of the line cleared after it (msg cut at 60 characters), else
// "progress: 5/10 msg\n" (or "progress: 5 msg\n" without a total). Control characters in
// msg become spaces, so a server cannot move the cursor.
func Format(progress, total float64, msg string, tty bool) string {
	msg = printable(msg)
	if !tty {
		s := "progress: " + fmt.Sprint(progress)
		if total > 0 {
			s += "/" + fmt.Sprint(total)
		}
		if msg != "" {
			s += " " + msg
		}
		return s + "\n"
	}
	const width = 30
	var bar string
	if total > 0 {
		frac := min(max(progress/total, 0), 1)
		n := int(frac * width)
		bar = fmt.Sprintf("[%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(" ", width-n), int(frac*100))
	} else {
		bar = fmt.Sprintf("[%v]", progress)
	}
	if msg != "" {
		if r := []rune(msg); len(r) > 60 {
			msg = string(r[:60]) + "…"
		}
		bar += " " + msg
	}
	return "\r" + bar + "\x1b[K"
}

// FormatBytes renders n of total bytes read for name, in MiB with one decimal:
// "\rNAME  1.5/4.0 MiB" for a terminal ("\rNAME  1.5 MiB" when total <= 0), else the same
// without "\r" and ending in a newline. Control characters in name become spaces.
func FormatBytes(name string, n, total int64, tty bool) string {
	s := fmt.Sprintf("%s  %.1f MiB", printable(name), mib(n))
	if total > 0 {
		s = fmt.Sprintf("%s  %.1f/%.1f MiB", printable(name), mib(n), mib(total))
	}
	if tty {
		return "\r" + s
	}
	return s + "\n"
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// printable replaces the characters a terminal obeys (termtext.IsControl), and newline and
// tab, with spaces: the message stays on its line.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || termtext.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// Reader counts the bytes read from r and draws them on p (Bytes) at most every 100 ms, and
// once more when r returns an error (io.EOF included), then ends the line (Done). total < 0
// (or 0) means the size is unknown.
func Reader(r io.Reader, p *Printer, name string, total int64) io.Reader {
	return &reader{r: r, p: p, name: name, total: total}
}

type reader struct {
	r     io.Reader
	p     *Printer
	name  string
	total int64
	n     int64
	last  time.Time
}

func (r *reader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.n += int64(n)
	if now := time.Now(); err != nil || now.Sub(r.last) >= 100*time.Millisecond {
		r.last = now
		r.p.Bytes(r.name, r.n, r.total)
		if err != nil {
			r.p.Done()
		}
	}
	return n, err
}
