package js

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Sync writes Files into dir (a project's mcpwasm/ directory), each file only when its bytes
// differ, through a temporary file renamed into place, so that a build running at the same
// time reads the old file or the new one, never half of one. It is what sync.mjs does for
// the example guests/typescript (whose mcpwasm/ is generated, not committed); tests that
// build with the example call it first, so that they never build with a stale copy.
func Sync(dir string) error {
	for rel, want := range Files() {
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if have, err := os.ReadFile(dst); err == nil && bytes.Equal(have, want) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("writing the guest SDK: %w", err)
		}
		tmp := dst + "." + strconv.Itoa(os.Getpid()) + ".tmp"
		if err := os.WriteFile(tmp, want, 0o644); err != nil {
			return fmt.Errorf("writing the guest SDK: %w", err)
		}
		if err := os.Rename(tmp, dst); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("writing the guest SDK: %w", err)
		}
	}
	return nil
}
