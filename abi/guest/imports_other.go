//go:build !wasip1

package guest

import (
	"fmt"
	"os"

	"github.com/mcpwasm/mcpwasm/abi"
)

// Outside a wasm host the imports degrade to what a test needs: logs on stderr, no
// cancellation, and every capability request unavailable.

func hostLog(level abi.Level, msg string) { fmt.Fprintf(os.Stderr, "%s: %s\n", level, msg) }

func hostProgress(progress, total float64, msg string) {}

func hostCancelled() bool { return false }

func request(kind string, req []byte) (abi.Status, []byte) {
	return abi.StatusUnavailable, []byte(`{"error":"no mcpwasm host (not running as a wasm guest)"}`)
}
