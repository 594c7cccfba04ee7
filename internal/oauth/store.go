// Package oauth wires the MCP Go SDK's OAuth 2.1 client (packages auth and oauthex: RFC 9728
// protected-resource metadata, RFC 8414 / OpenID discovery with the 2025-03-26 fallbacks,
// client ID metadata documents, pre-registration, RFC 7591 dynamic registration, PKCE, the
// RFC 8707 resource parameter, token endpoint auth methods, scope step-up, RFC 9207 iss
// checks) into mcpwasm's client paths, and adds what the SDK leaves to its caller: tokens kept
// per server in a file (Store), refreshed tokens written back, and the loopback redirect of an
// interactive login (Loopback).
//
// Tokens never leave this package except as the Authorization header the SDK's transport sets:
// no error, log line or String method here contains one.
package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/atomicfile"
	"golang.org/x/oauth2"
)

// FileName is the token file's name inside the store's directory.
const FileName = "tokens.json"

// Store keeps OAuth tokens per MCP server in one JSON file (FileName) written with mode 0600
// in a directory created with mode 0700. Entries are keyed by the server's resource URL
// (ResourceKey). It is safe for concurrent use, also across processes: a write re-reads the
// file and changes only its own entry while it holds an exclusive lock on FileName+".lock"
// (flock, where the system has it), so two processes refreshing different servers' tokens at
// once both keep their rotated refresh tokens; the file is replaced atomically.
type Store struct {
	dir string
	mu  sync.Mutex
}

// NewStore returns a store in dir (created on first write).
func NewStore(dir string) *Store { return &Store{dir: dir} }

// DefaultStore returns the store in os.UserConfigDir()/mcpwasm.
func DefaultStore() (*Store, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	return NewStore(filepath.Join(d, "mcpwasm")), nil
}

// Path is the token file's path.
func (s *Store) Path() string { return filepath.Join(s.dir, FileName) }

// entry is one server's stored grant: the token and what refreshing it needs.
type entry struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	TokenURL     string    `json:"token_url"`
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	AuthStyle    int       `json:"auth_style,omitempty"` // oauth2.AuthStyle
	Scopes       []string  `json:"scopes,omitempty"`
}

func (e *entry) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: e.AccessToken, TokenType: e.TokenType, RefreshToken: e.RefreshToken, Expiry: e.Expiry}
}

func (e *entry) config() *oauth2.Config {
	return &oauth2.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret, Scopes: e.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: e.TokenURL, AuthStyle: oauth2.AuthStyle(e.AuthStyle)}}
}

// ResourceKey is the key of a server in the store: its URL with the scheme and host lower-cased
// and no fragment (MCP 2025-11-25 "Authorization › Canonical Server URI"). An unparsable URL is
// its own key.
func ResourceKey(server string) string {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return server
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

func (s *Store) read() (map[string]entry, error) {
	b, err := os.ReadFile(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]entry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: reading the token store: %w", err)
	}
	m := map[string]entry{}
	if err := json.Unmarshal(b, &m); err != nil {
		// Not the decoder's message: it may quote the file's contents.
		return nil, fmt.Errorf("oauth: %s is not a valid token store", s.Path())
	}
	return m, nil
}

func (s *Store) write(m map[string]entry) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := os.Chmod(s.dir, 0o700); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	// The new file keeps the old one's mode (atomicfile): make that 0600 first.
	if err := os.Chmod(s.Path(), 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := atomicfile.WriteFile(s.Path(), b, 0o600); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}

func (s *Store) get(key string) (entry, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return entry{}, false, err
	}
	e, ok := m[key]
	return e, ok && e.AccessToken != "", nil
}

func (s *Store) put(key string, e entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lockFile()
	if err != nil {
		return err
	}
	defer unlock()
	m, err := s.read()
	if err != nil {
		return err
	}
	m[key] = e
	return s.write(m)
}

// Has reports whether the store holds a token for server (any URL form ResourceKey accepts).
func (s *Store) Has(server string) (bool, error) {
	_, ok, err := s.get(ResourceKey(server))
	return ok, err
}

// Delete removes server's token and reports whether there was one.
func (s *Store) Delete(server string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lockFile()
	if err != nil {
		return false, err
	}
	defer unlock()
	m, err := s.read()
	if err != nil {
		return false, err
	}
	key := ResourceKey(server)
	if _, ok := m[key]; !ok {
		return false, nil
	}
	delete(m, key)
	return true, s.write(m)
}

// lockFile takes the store's cross-process write lock (creating the directory 0700) and
// returns its release.
func (s *Store) lockFile() (func(), error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	f, err := os.OpenFile(s.Path()+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("oauth: token store lock: %w", err)
	}
	if err := lockExclusive(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("oauth: token store lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
