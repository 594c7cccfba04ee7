//go:build !unix

package oauth

import "os"

// lockExclusive is a no-op where flock is not available: writers in one process are still
// serialised by Store.mu.
func lockExclusive(*os.File) error { return nil }
