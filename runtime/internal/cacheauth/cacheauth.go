// Package cacheauth guards the host's on-disk cache (compiled code and cached manifests) against
// anyone but its owner: the directory must be the user's own and not writable by others (as
// ssh treats ~/.ssh), and every entry read back must carry an HMAC-SHA256 under a secret kept
// in the directory (KeyName, mode 0600). An entry whose MAC does not verify is discarded and
// rebuilt; it is never used.
//
// Compiled code is written and read by wazero's file cache (wazero-*/<key> files), which
// cannot be wrapped, so its files are authenticated around each compile: VerifyCompiled,
// called just before one, deletes every file without a valid MAC (wazero then misses and
// recompiles), and SignCompiled, called after it, records the MAC of the files it added in
// MACDir. Manifest entries are sealed: Seal prefixes the MAC, Open checks and strips it.
package cacheauth

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/internal/atomicfile"
)

// KeyName is the secret's file in the cache directory; MACDir holds the MACs of compiled-code
// files (MACDir/wazero-…/<key>, hex).
const (
	KeyName = "cache.key"
	MACDir  = "macs"
)

// ErrTampered is wrapped by Open's error for an entry whose MAC does not verify.
var ErrTampered = errors.New("cache entry fails authentication (changed outside mcpwasm)")

// Dir is an authenticated cache directory.
type Dir struct {
	dir string
	key []byte
	mu  sync.Mutex // VerifyCompiled and SignCompiled

	hashed int // compiled-code files read in full, for tests
}

// Open checks dir (creating it, mode 0700, if missing) with CheckDir and loads its key,
// creating it on first use.
func Open(dir string) (*Dir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("cache directory %s: %w", abs, err)
	}
	if err := CheckDir(abs); err != nil {
		return nil, err
	}
	key, err := loadKey(filepath.Join(abs, KeyName))
	if err != nil {
		return nil, err
	}
	return &Dir{dir: abs, key: key}, nil
}

// Path is the directory.
func (d *Dir) Path() string { return d.dir }

// loadKey reads the 32-byte key at path, or creates it (atomically: a complete temporary
// file is linked into place, so a concurrent process reads all of it or none).
func loadKey(path string) ([]byte, error) {
	for range 2 {
		fi, err := os.Lstat(path)
		if err == nil {
			if err := checkKeyFile(path, fi); err != nil {
				return nil, err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("cache key: %w", err)
			}
			if len(b) != 32 {
				return nil, fmt.Errorf("cache key %s: %d bytes, want 32 (remove the cache directory to start afresh)", path, len(b))
			}
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cache key: %w", err)
		}
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("cache key: %w", err)
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), ".key-*")
		if err != nil {
			return nil, fmt.Errorf("cache key: %w", err)
		}
		_, werr := tmp.Write(key)
		err = errors.Join(werr, tmp.Chmod(0o600), tmp.Sync(), tmp.Close())
		if err == nil {
			err = os.Link(tmp.Name(), path)
		}
		os.Remove(tmp.Name())
		if err == nil {
			return key, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("cache key: %w", err)
		}
		// Another process created it first: read theirs.
	}
	return nil, fmt.Errorf("cache key %s: cannot create or read it", path)
}

func (d *Dir) mac(name string, b []byte) []byte {
	m := hmac.New(sha256.New, d.key)
	io.WriteString(m, name)
	m.Write([]byte{0})
	m.Write(b)
	return m.Sum(nil)
}

// sealPrefix starts a sealed entry: the prefix, 64 hex digits of MAC, a newline.
const sealPrefix = "mcpwasm-hmac-sha256 "

// Seal returns b prefixed with its MAC under name (the entry's file name: an entry moved to
// another name does not verify).
func (d *Dir) Seal(name string, b []byte) []byte {
	out := make([]byte, 0, len(sealPrefix)+65+len(b))
	out = append(out, sealPrefix...)
	out = hex.AppendEncode(out, d.mac(name, b))
	out = append(out, '\n')
	return append(out, b...)
}

// Unseal checks a sealed entry read from file name and returns its content; a missing or
// wrong MAC is ErrTampered.
func (d *Dir) Unseal(name string, sealed []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(sealed, []byte(sealPrefix))
	if !ok || len(rest) < 65 || rest[64] != '\n' {
		return nil, fmt.Errorf("%s: %w: no MAC", name, ErrTampered)
	}
	want, err := hex.DecodeString(string(rest[:64]))
	if err != nil || !hmac.Equal(want, d.mac(name, rest[65:])) {
		return nil, fmt.Errorf("%s: %w", name, ErrTampered)
	}
	return rest[65:], nil
}

// compiled lists the compiled-code files: wazero-*/<name>, skipping wazero's temporaries.
func (d *Dir) compiled() ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(d.dir, "wazero-*"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sub := range dirs {
		ents, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp") || !e.Type().IsRegular() {
				continue
			}
			out = append(out, filepath.Join(filepath.Base(sub), e.Name()))
		}
	}
	return out, nil
}

func (d *Dir) fileMAC(rel string) ([]byte, error) {
	d.hashed++
	f, err := os.Open(filepath.Join(d.dir, rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := hmac.New(sha256.New, d.key)
	io.WriteString(m, filepath.ToSlash(rel))
	m.Write([]byte{0})
	if _, err := io.Copy(m, f); err != nil {
		return nil, err
	}
	return m.Sum(nil), nil
}

// VerifyCompiled deletes every compiled-code file whose recorded MAC is missing or wrong,
// so wazero cannot load it, and returns what it deleted (callers log it). A file whose
// kernel-kept state (fingerprint: device, inode, size, change time) equals the one recorded
// beside its MAC is not read again: the cache of a busy machine holds gigabytes of compiled
// code, and hashing all of it made every start take seconds. A file that changed in any way
// since it was signed has a new change time and is hashed in full.
func (d *Dir) VerifyCompiled() (discarded []string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	files, err := d.compiled()
	if err != nil {
		return nil, err
	}
	for _, rel := range files {
		rec, _ := os.ReadFile(filepath.Join(d.dir, MACDir, rel))
		wantHex, recPrint, _ := strings.Cut(strings.TrimSpace(string(rec)), "\n")
		fi, err := os.Stat(filepath.Join(d.dir, rel))
		if err != nil {
			continue // gone meanwhile: nothing to load
		}
		if fp := fingerprint(fi); fp != "" && fp == strings.TrimSpace(recPrint) {
			continue
		}
		got, err := d.fileMAC(rel)
		if err != nil {
			continue
		}
		if w, derr := hex.DecodeString(strings.TrimSpace(wantHex)); derr == nil && hmac.Equal(w, got) {
			// Unchanged content under a new fingerprint (copied, restored): record it.
			if err := d.recordMAC(rel, got, fingerprint(fi)); err != nil {
				return discarded, err
			}
			continue
		}
		if err := os.Remove(filepath.Join(d.dir, rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return discarded, fmt.Errorf("discarding tampered cache entry %s: %w", rel, err)
		}
		// Its MAC goes too, so the recompiled file is signed afresh (SignCompiled).
		os.Remove(filepath.Join(d.dir, MACDir, rel))
		discarded = append(discarded, rel)
	}
	return discarded, nil
}

// SignCompiled records the MAC of every compiled-code file that has none yet (the files
// wazero added by the compile that just ended), with the file's fingerprint.
func (d *Dir) SignCompiled() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	files, err := d.compiled()
	if err != nil {
		return err
	}
	for _, rel := range files {
		if _, err := os.Stat(filepath.Join(d.dir, MACDir, rel)); err == nil {
			continue
		}
		fi, err := os.Stat(filepath.Join(d.dir, rel))
		if err != nil {
			continue
		}
		m, err := d.fileMAC(rel)
		if err != nil {
			continue
		}
		if err := d.recordMAC(rel, m, fingerprint(fi)); err != nil {
			return err
		}
	}
	return nil
}

// recordMAC writes MACDir/rel: the hex MAC, and on a second line the fingerprint of the file
// it was computed from, taken before hashing (a write during the hash leaves a fingerprint
// that no longer matches, and the file is hashed again next time).
func (d *Dir) recordMAC(rel string, mac []byte, print string) error {
	mp := filepath.Join(d.dir, MACDir, rel)
	if err := os.MkdirAll(filepath.Dir(mp), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(mp, []byte(hex.EncodeToString(mac)+"\n"+print+"\n"), 0o600)
}
