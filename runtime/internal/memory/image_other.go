//go:build !linux

package memory

import "errors"

// Image is a snapshot's memory mapped copy-on-write: Linux only (image_linux.go).
// Elsewhere instances restore and reset by copying the snapshot.
type Image struct {
	size int
	View []byte
}

// NewImage fails: images are mapped on Linux only.
func NewImage([]byte) (*Image, error) {
	return nil, errors.New("snapshot images are mapped on Linux only")
}

func (*Image) mapMemory(int) ([]byte, error) { return nil, errors.New("not supported") }

func unmapMemory([]byte) {}

// DropPages fails: nothing is mapped.
func DropPages([]byte) error { return errors.New("not supported") }

// ResetMapped reports the reset as not done (dropped true, the caller copies).
func ResetMapped(buf, _ []byte, _ *[]byte) (bool, error) { return true, DropPages(buf) }
