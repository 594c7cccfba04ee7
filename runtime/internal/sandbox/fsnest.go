package sandbox

import (
	"path/filepath"
	"strings"
)

// within reports whether dir is base or below it (both clean and absolute).
func within(dir, base string) bool {
	return dir == base || base == "/" || strings.HasPrefix(dir, base+string(filepath.Separator))
}
