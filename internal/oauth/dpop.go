package oauth

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// dpopKey is a process's DPoP key (RFC 9449; ES256, made in memory, never stored) and the
// nonces servers handed out, by origin (§8, §9).
type dpopKey struct {
	key *ecdsa.PrivateKey

	mu     sync.Mutex
	nonces map[string]string // origin → last DPoP-Nonce
}

func newDPoPKey() (*dpopKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("oauth: DPoP key: %w", err)
	}
	return &dpopKey{key: k, nonces: map[string]string{}}, nil
}

// proof is a DPoP proof JWT (RFC 9449 §4.2) for method and target (htu: no query or
// fragment), with ath = base64url(SHA-256(token)) when a token is presented (§4.3), and the
// origin's last nonce.
func (k *dpopKey) proof(method, target, token string) (string, error) {
	htu := target
	if i := strings.IndexAny(htu, "?#"); i >= 0 {
		htu = htu[:i]
	}
	claims := map[string]any{"jti": randomID(), "htm": method, "htu": htu, "iat": time.Now().Unix()}
	if n := k.nonce(origin(target)); n != "" {
		claims["nonce"] = n
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return signJWT(k.key, jose.ES256, "dpop+jwt", true, claims)
}

func (k *dpopKey) nonce(o string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nonces[o]
}

func (k *dpopKey) setNonce(o, n string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.nonces[o] = n
}

func origin(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[:i+3+j]
		}
	}
	return u
}

// transport returns a RoundTripper over base (nil: http.DefaultTransport) that sends each
// request with a fresh proof, presents a "Bearer" access token (as the SDK's transport sets it)
// with the DPoP scheme, records DPoP-Nonce headers, and retries a request once when the
// server answers use_dpop_nonce (§8 from a token endpoint, §9 from a resource server).
func (k *dpopKey) transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &dpopTransport{key: k, base: base}
}

type dpopTransport struct {
	key  *dpopKey
	base http.RoundTripper
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	send := func() (*http.Response, error) {
		r := req.Clone(req.Context())
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		var token string
		if a := r.Header.Get("Authorization"); len(a) > 7 && (strings.EqualFold(a[:7], "Bearer ") || strings.EqualFold(a[:5], "DPoP ")) {
			token = strings.TrimSpace(a[strings.IndexByte(a, ' ')+1:])
			r.Header.Set("Authorization", "DPoP "+token)
		}
		p, err := t.key.proof(r.Method, r.URL.String(), token)
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", p)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if n := resp.Header.Get("DPoP-Nonce"); n != "" {
			t.key.setNonce(origin(r.URL.String()), n)
		}
		return resp, nil
	}
	resp, err := send()
	if err != nil || !wantsNonce(resp) {
		return resp, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return send()
}

// wantsNonce: a use_dpop_nonce refusal with a nonce to use — a 401 challenge (RFC 9449 §9)
// or a 400 token error (§8).
func wantsNonce(resp *http.Response) bool {
	if resp.Header.Get("DPoP-Nonce") == "" {
		return false
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		for _, c := range cs {
			if c.Params["error"] == "use_dpop_nonce" {
				return true
			}
		}
	case http.StatusBadRequest:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body = io.NopCloser(bytes.NewReader(b))
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error == "use_dpop_nonce" {
			return true
		}
	}
	return false
}

// withDPoP is an OAuth handler whose tokens are DPoP-bound to key.
type withDPoP struct {
	auth.OAuthHandler
	key *dpopKey
}

// WrapTransport returns the transport wrapper an MCP client of h must use (see
// upstream.Spec.WrapTransport): the DPoP proofs of a handler made with Config.DPoP, else nil.
func WrapTransport(h auth.OAuthHandler) func(http.RoundTripper) http.RoundTripper {
	if d, ok := h.(*withDPoP); ok {
		return d.key.transport
	}
	return nil
}
