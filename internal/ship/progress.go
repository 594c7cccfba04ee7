package ship

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress wraps r so that, with Options.Progress set, a line "NAME  n/total MiB" is redrawn
// at most every 100 ms and once at the end. total < 0 means unknown.
func (c *Client) progress(r io.Reader, name string, total int64) io.Reader {
	if c.o.Progress == nil {
		return r
	}
	return &progressReader{r: r, w: c.o.Progress, name: name, total: total}
}

type progressReader struct {
	r     io.Reader
	w     io.Writer
	name  string
	total int64
	n     int64
	last  time.Time
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if now := time.Now(); err != nil || now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		if p.total > 0 {
			fmt.Fprintf(p.w, "\r%s  %.1f/%.1f MiB", p.name, float64(p.n)/(1<<20), float64(p.total)/(1<<20))
		} else {
			fmt.Fprintf(p.w, "\r%s  %.1f MiB", p.name, float64(p.n)/(1<<20))
		}
		if err != nil {
			fmt.Fprintln(p.w)
		}
	}
	return n, err
}

func statSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
