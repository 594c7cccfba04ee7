//go:build !linux

package runtime

import "errors"

// memImage is a snapshot's memory mapped copy-on-write: Linux only (memimage_linux.go).
// Elsewhere instances restore and reset by copying the snapshot.
type memImage struct {
	size int
	view []byte
}

func newMemImage([]byte) (*memImage, error) {
	return nil, errors.New("snapshot images are mapped on Linux only")
}

func (*memImage) mapMemory(int) ([]byte, error) { return nil, errors.New("not supported") }

func unmapMemory([]byte) {}

func dropPages([]byte) error { return errors.New("not supported") }

func resetMapped(buf, _ []byte, _ *[]byte) (bool, error) { return true, dropPages(buf) }
