//go:build !linux

package runtime

import "io/fs"

// fileIdentity is unavailable here: LoadFile always reads the file.
func fileIdentity(string, fs.FileInfo) (string, bool) { return "", false }
