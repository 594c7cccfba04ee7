package ship

import (
	"io"
	"os"

	"github.com/mcpwasm/mcpwasm/internal/progress"
)

// progress wraps r so that, with Options.Progress set (a terminal), a line "NAME  n/total MiB"
// is redrawn at most every 100 ms and once at the end (internal/progress). total < 0 means
// unknown.
func (c *Client) progress(r io.Reader, name string, total int64) io.Reader {
	if c.o.Progress == nil {
		return r
	}
	return progress.Reader(r, progress.New(c.o.Progress, true), name, total)
}

func statSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
