//go:build !unix

package cacheauth

import (
	"fmt"
	"io/fs"
	"os"
)

// CheckDir checks that dir is a directory; file ownership and modes are not checked on this
// system (the MACs still are).
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cache directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("cache directory %s is not a directory", dir)
	}
	return nil
}

func checkKeyFile(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("cache key %s is not a regular file", path)
	}
	return nil
}
