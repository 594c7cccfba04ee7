// Package atomicfile writes files so a reader sees the old content, the new content, or no
// file — never part of one — and the new content survives a crash once the write returns:
// a temporary file in the destination's directory is written, fsynced, renamed over the
// destination, and the directory is fsynced.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a temporary file that becomes a destination on Commit. Write to it, then Commit
// or Abort (Abort after Commit is a no-op, so `defer f.Abort()` is safe).
type File struct {
	*os.File
	done bool
}

// Create returns a temporary file in dir (created 0700 if missing) with mode perm.
func Create(dir string, perm fs.FileMode) (*File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f}, nil
}

// Commit fsyncs the file, renames it to path (which must be in the same directory) and
// fsyncs the directory.
func (f *File) Commit(path string) error {
	return f.place(path, func(tmp string) error {
		err := os.Rename(tmp, path)
		if err != nil {
			os.Remove(tmp)
		}
		return err
	})
}

// CommitNew is Commit for a file that must not be replaced: path is created only if it does
// not exist (a hard link, then the temporary name is removed), so of two processes creating
// the same file one wins and the other gets an error wrapping fs.ErrExist and can read the
// winner's. A reader never sees the file partly written.
func (f *File) CommitNew(path string) error {
	return f.place(path, func(tmp string) error {
		err := os.Link(tmp, path)
		os.Remove(tmp)
		return err
	})
}

// place fsyncs and closes the file, moves it to path with move (which leaves nothing at the
// temporary name, whether it succeeds or not) and fsyncs path's directory.
func (f *File) place(path string, move func(tmp string) error) error {
	if f.done {
		return errors.New("atomicfile: already committed or aborted")
	}
	f.done = true
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := move(f.Name()); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// Abort removes the temporary file. It is a no-op after Commit or Abort.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile writes b to path atomically. An existing file's mode is kept; a new file gets
// perm.
func WriteFile(path string, b []byte, perm fs.FileMode) error {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	f, err := Create(filepath.Dir(path), perm)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer f.Abort()
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Commit(path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// syncDir fsyncs directory dir so a rename in it is durable. Systems that cannot sync a
// directory (Windows) are not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}
