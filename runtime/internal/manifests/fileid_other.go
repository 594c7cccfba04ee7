//go:build !linux

package manifests

import "io/fs"

// FileIdentity is unavailable here: LoadFile always reads the file.
func FileIdentity(string, fs.FileInfo) (string, bool) { return "", false }
