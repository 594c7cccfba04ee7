package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"

	"github.com/mcpwasm/mcpwasm/bench"
)

// stdioFloor is what `mcpwasm-bench -stdio-floor` runs: a stdio peer with no MCP in it. Each
// line with an "id" is answered at once with that id and the result an echo tool gives for
// bench.Args(100); lines without one (notifications) are dropped. Section 9 measures it
// beside Node and mcpwasm: its calls/s are the ceiling the load driver, the pipes and the
// process wake-ups allow with one call in flight, so what each server adds can be read off.
func stdioFloor() error {
	var args struct{ Text string }
	if err := json.Unmarshal(bench.Args(100), &args); err != nil {
		return err
	}
	text, _ := json.Marshal(args.Text)
	result := `,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}` + "\n"
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriter(os.Stdout)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return nil // EOF: the driver closed stdin
		}
		i := bytes.Index(line, []byte(`"id":`))
		if i < 0 {
			continue
		}
		id := line[i+5:]
		id = id[:bytes.IndexAny(id, ",}")]
		w.WriteString(`{"jsonrpc":"2.0","id":`)
		w.Write(id)
		w.WriteString(result)
		if err := w.Flush(); err != nil {
			return nil // the driver stopped reading
		}
	}
}
