// Package size formats byte counts for messages. It is a leaf: it imports only the standard
// library, so every package that names a limit in an error (runtime's parts, the sandbox,
// mcpserver) spells sizes the same way.
package size

import "fmt"

// Format writes n as "16 MiB", "64 KiB" or "1000 bytes": the largest binary unit that
// divides n exactly, else bytes.
func Format(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
