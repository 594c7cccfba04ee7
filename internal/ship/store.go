package ship

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/mcpwasm/mcpwasm/internal/atomicfile"
	"github.com/mcpwasm/mcpwasm/internal/digest"
)

// Store is a content-addressed directory of modules: DIR/sha256/HEX holds the module whose
// SHA-256 is HEX. A file appears there only complete and verified (written to a temporary
// file in the same directory, checked, then renamed), so a reader never sees a partial one.
type Store struct {
	dir string
}

// ErrNotStored is returned by Store.Read for a digest the store does not hold.
var ErrNotStored = errors.New("not in the store")

// ErrTooLarge is wrapped by errors about a module larger than the size cap.
var ErrTooLarge = errors.New("module too large")

// ErrDigest is wrapped by errors about bytes whose SHA-256 is not the expected one.
var ErrDigest = errors.New("digest mismatch")

var hexRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// DefaultStoreDir is os.UserCacheDir()/mcpwasm/store.
func DefaultStoreDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	return filepath.Join(d, "mcpwasm", "store"), nil
}

// OpenStore returns the store rooted at dir, creating dir/sha256 (mode 0700) if needed.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sha256"), 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Path is where the module with SHA-256 hexDigest (64 lowercase hex digits) is kept.
func (s *Store) Path(hexDigest string) string { return filepath.Join(s.dir, "sha256", hexDigest) }

// Has reports whether the store holds hexDigest.
func (s *Store) Has(hexDigest string) bool {
	if !hexRE.MatchString(hexDigest) {
		return false
	}
	fi, err := os.Stat(s.Path(hexDigest))
	return err == nil && fi.Mode().IsRegular()
}

// Read returns the module with SHA-256 hexDigest, at most max bytes (0: no cap), after
// checking its digest again (a file changed on disk is an ErrDigest, not served).
func (s *Store) Read(hexDigest string, max int64) ([]byte, error) {
	if !hexRE.MatchString(hexDigest) {
		return nil, fmt.Errorf("%w: %q is not a SHA-256 hex digest", ErrDigest, hexDigest)
	}
	f, err := os.Open(s.Path(hexDigest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sha256:%s: %w", hexDigest, ErrNotStored)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(b)) > max {
		return nil, fmt.Errorf("sha256:%s: %w: more than %d bytes", hexDigest, ErrTooLarge, max)
	}
	if got := digest.Hex(b); got != hexDigest {
		return nil, fmt.Errorf("stored sha256:%s: %w: the file now has sha256:%s", hexDigest, ErrDigest, got)
	}
	return b, nil
}

// write copies r into the store and returns the SHA-256 of what it read. It reads at most
// max bytes (more is ErrTooLarge); if want is set the digest must equal it (else ErrDigest);
// check, if set, runs on the complete bytes before they become visible. On any error the
// temporary file is removed and nothing is stored.
func (s *Store) write(r io.Reader, want string, max int64, check func([]byte) error) (digest string, err error) {
	dir := filepath.Join(s.dir, "sha256")
	tmp, err := atomicfile.Create(dir, 0o600)
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	defer tmp.Abort()
	h := sha256.New()
	var buf limitedBuffer
	n, err := io.Copy(io.MultiWriter(tmp, h, &buf), io.LimitReader(r, max+1))
	if err != nil {
		return "", err
	}
	if n > max {
		return "", fmt.Errorf("%w: more than %d bytes (the module-size cap)", ErrTooLarge, max)
	}
	digest = hex.EncodeToString(h.Sum(nil))
	if want != "" && digest != want {
		return "", fmt.Errorf("%w: want sha256:%s, got sha256:%s (%d bytes)", ErrDigest, want, digest, n)
	}
	if check != nil {
		if err := check(buf.b); err != nil {
			return "", err
		}
	}
	if err := tmp.Commit(s.Path(digest)); err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	return digest, nil
}

// limitedBuffer keeps what is written to it; the caller bounds the input.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) { l.b = append(l.b, p...); return len(p), nil }

// bundlePath is where a Sigstore bundle that verified for module hexDigest is kept:
// DIR/sigstore/HEX.json. It is a cache of what the source published, not a verdict: whoever
// reads it verifies it again under its own policy.
func (s *Store) bundlePath(hexDigest string) string {
	return filepath.Join(s.dir, "sigstore", hexDigest+".json")
}

// PutBundle keeps bundle as the signature bundle of module hexDigest.
func (s *Store) PutBundle(hexDigest string, bundle []byte) error {
	if !hexRE.MatchString(hexDigest) {
		return fmt.Errorf("%w: %q is not a SHA-256 hex digest", ErrDigest, hexDigest)
	}
	return atomicfile.WriteFile(s.bundlePath(hexDigest), bundle, 0o600)
}

// Bundle returns the signature bundle kept for module hexDigest, or nil.
func (s *Store) Bundle(hexDigest string) []byte {
	if !hexRE.MatchString(hexDigest) {
		return nil
	}
	b, err := os.ReadFile(s.bundlePath(hexDigest))
	if err != nil || len(b) > maxBundleBytes {
		return nil
	}
	return b
}
