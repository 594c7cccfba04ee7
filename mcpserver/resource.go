package mcpserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	neturl "net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Defaults of ResourceServer's bounds.
const (
	DefaultClockSkew        = 60 * time.Second
	DefaultJWKSTimeout      = 5 * time.Second
	DefaultJWKSMaxBytes     = 256 << 10 // 256 KiB: a JWKS of a few dozen keys is a few KiB
	DefaultJWKSMinRefresh   = 30 * time.Second
	DefaultJWKSMaxAge       = 10 * time.Minute
	DefaultMaxTokenBytes    = 16 << 10
	protectedResourcePrefix = "/.well-known/oauth-protected-resource"
)

// ResourceServer makes NewHTTPHandler an OAuth 2.1 resource server (MCP "Authorization",
// 2025-06-18 and later): every MCP request needs "Authorization: Bearer <access token>", a
// JWT signed by a configured issuer (verified against its JWKS) whose "aud" names Resource
// (RFC 8707), valid now within ClockSkew. Its Protected Resource Metadata (RFC 9728) is served
// at /.well-known/oauth-protected-resource (and the path-suffixed form of Resource), and
// named in the WWW-Authenticate of every 401.
type ResourceServer struct {
	// Resource is this server's canonical resource URI (RFC 8707 §2, MCP "Authorization ›
	// Canonical Server URI"), e.g. "https://mcp.example.com/mcp": tokens must carry it in aud.
	Resource string
	// Issuers are the authorization servers whose tokens are accepted. At least one.
	Issuers []Issuer
	// ScopesSupported is advertised in the metadata (scopes_supported).
	ScopesSupported []string
	// StaticToken, if set, is also accepted as a bearer token: the identity
	// {Subject: StaticTokenSubject}, compared in constant time (simple setups, scripts).
	StaticToken string
	// Policy says which identity may see and call which guests and tools; nil: every
	// authenticated identity may use everything.
	Policy *Policy
	// MaxSessionsPerIdentity caps the live sessions of one identity (503 beyond); 0: no cap
	// beyond HTTPOptions.MaxSessions.
	MaxSessionsPerIdentity int
	// ClockSkew is the tolerance on exp, nbf and iat; zero: DefaultClockSkew. At most 5 min.
	ClockSkew time.Duration
	// Logger receives one line per refused token (debug) and per JWKS fetch failure (warn).
	Logger *slog.Logger
}

// Issuer is one trusted authorization server.
type Issuer struct {
	// Issuer is its issuer identifier (RFC 8414 §2), matched exactly against "iss".
	Issuer string
	// JWKSURI is where its signing keys are (RFC 8414 jwks_uri), for JWT access tokens.
	JWKSURI string
	// IntrospectionURL, if set, is its token introspection endpoint (RFC 7662): a bearer
	// token that is not a JWT is sent there (POST, HTTP Basic with ClientID and
	// ClientSecret), bounded by JWKSTimeout and JWKSMaxBytes. The answer must be active and
	// carry sub, exp and an aud naming the resource. The first issuer with one introspects.
	IntrospectionURL string
	ClientID         string
	ClientSecret     string
	// Algorithms are the JWS algorithms its tokens may use (e.g. "RS256", "ES256"); a token
	// with any other "alg" — "none", or HS256 against an RSA key — is refused. Empty: RS256.
	Algorithms []string
	// GroupsClaim names the claim holding the subject's groups (a string array, or a
	// space-separated string); empty: "groups".
	GroupsClaim string
	// JWKSTimeout, JWKSMaxBytes, JWKSMinRefresh and JWKSMaxAge bound the JWKS fetch: its
	// time, its size, how often an unknown kid may trigger a refetch, and how long keys are
	// kept before they are fetched again. Zero: the Default* values.
	JWKSTimeout    time.Duration
	JWKSMaxBytes   int64
	JWKSMinRefresh time.Duration
	JWKSMaxAge     time.Duration
	// Client fetches the JWKS; nil: a client with no proxy-independent changes
	// (http.DefaultTransport) and JWKSTimeout.
	Client *http.Client
}

// Validate reports what NewHTTPHandler would refuse in c (it then answers every request
// 500): no resource URI, no issuer, an algorithm it does not accept, a skew over 5 minutes.
func (c *ResourceServer) Validate() error {
	_, err := newResourceServer(c)
	return err
}

// authError is a refusal of the resource server: an HTTP status and the RFC 6750 §3 error.
type authError struct {
	status int
	code   string // invalid_token, insufficient_scope, invalid_request; "" for a missing token
	desc   string
	scope  string // insufficient_scope: the scopes needed
}

func (e *authError) Error() string { return e.desc }

func invalidToken(format string, a ...any) *authError {
	return &authError{status: http.StatusUnauthorized, code: "invalid_token", desc: fmt.Sprintf(format, a...)}
}

// resourceServer is the running form of a ResourceServer.
type resourceServer struct {
	cfg      ResourceServer
	skew     time.Duration
	issuers  map[string]*issuerKeys
	metaURL  string // absolute URL of the path-suffixed metadata document
	metaBody []byte
	logger   *slog.Logger
	cache    tokenCache
	// introspector is the first issuer with an introspection endpoint, or nil.
	introspector *issuerKeys
}

func newResourceServer(c *ResourceServer) (*resourceServer, error) {
	if c.Resource == "" {
		return nil, errors.New("resource server: resource (this server's URI) is required")
	}
	u, err := neturl.Parse(c.Resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
		return nil, fmt.Errorf("resource server: resource %q: want an absolute http(s) URI without fragment (RFC 8707 §2)", c.Resource)
	}
	if len(c.Issuers) == 0 {
		return nil, errors.New("resource server: at least one issuer is required")
	}
	rs := &resourceServer{cfg: *c, skew: c.ClockSkew, issuers: map[string]*issuerKeys{}, logger: c.Logger}
	if rs.skew == 0 {
		rs.skew = DefaultClockSkew
	}
	if rs.skew < 0 || rs.skew > 5*time.Minute {
		return nil, fmt.Errorf("resource server: clock skew %v: want 0 to 5m", rs.skew)
	}
	if rs.logger == nil {
		rs.logger = slog.New(slog.DiscardHandler)
	}
	var servers []string
	for _, is := range c.Issuers {
		k, err := newIssuerKeys(is, rs.logger)
		if err != nil {
			return nil, err
		}
		if _, dup := rs.issuers[is.Issuer]; dup {
			return nil, fmt.Errorf("resource server: issuer %q listed twice", is.Issuer)
		}
		rs.issuers[is.Issuer] = k
		if is.IntrospectionURL != "" && rs.introspector == nil {
			rs.introspector = k
		}
		servers = append(servers, is.Issuer)
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	rs.metaURL = (&neturl.URL{Scheme: u.Scheme, Host: u.Host}).String() + protectedResourcePrefix + path
	rs.metaBody, _ = json.Marshal(&oauthex.ProtectedResourceMetadata{
		Resource: c.Resource, AuthorizationServers: servers, ScopesSupported: c.ScopesSupported,
		BearerMethodsSupported: []string{"header"},
	})
	return rs, nil
}

// metadata serves the Protected Resource Metadata document (RFC 9728 §3.2).
func (rs *resourceServer) metadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=300")
	_, _ = w.Write(rs.metaBody)
}

// challenge writes a refusal: 401 or 403 with WWW-Authenticate: Bearer resource_metadata=…
// (RFC 9728 §5.1) and the RFC 6750 §3 error, and a plain-text body saying the same.
func (rs *resourceServer) challenge(w http.ResponseWriter, e *authError) {
	rs.setChallenge(w, e)
	http.Error(w, e.desc, e.status)
}

// setChallenge sets the WWW-Authenticate (and Cache-Control) of refusal e.
func (rs *resourceServer) setChallenge(w http.ResponseWriter, e *authError) {
	params := []string{fmt.Sprintf("resource_metadata=%q", rs.metaURL)}
	if e.code != "" {
		params = append(params, fmt.Sprintf("error=%q", e.code))
		params = append(params, `error_description="`+descriptionChars(e.desc)+`"`)
	}
	if e.scope != "" {
		params = append(params, `scope="`+descriptionChars(e.scope)+`"`)
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	w.Header().Set("Cache-Control", "no-store")
}

// descriptionChars keeps what RFC 6750 §3 allows in error_description and scope (printable
// ASCII but '"' and '\'): '"' becomes "'", anything else outside the set '?'.
func descriptionChars(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r < 0x20 || r > 0x7e || r == '\\':
			return '?'
		}
		return r
	}, s)
}

// authenticate returns the identity of r's bearer token, or the refusal.
func (rs *resourceServer) authenticate(r *http.Request) (*Identity, time.Time, *authError) {
	h := r.Header.Values("Authorization")
	if len(h) == 0 {
		return nil, time.Time{}, &authError{status: http.StatusUnauthorized, desc: "missing bearer token: this server is an OAuth 2.1 resource server; get a token from an authorization server in its metadata"}
	}
	scheme, token, _ := strings.Cut(h[0], " ")
	token = strings.TrimSpace(token)
	if len(h) > 1 || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, time.Time{}, &authError{status: http.StatusBadRequest, code: "invalid_request", desc: "want one header Authorization: Bearer <token> (RFC 6750 section 2.1)"}
	}
	if rs.cfg.StaticToken != "" && subtle.ConstantTimeCompare([]byte(token), []byte(rs.cfg.StaticToken)) == 1 {
		return &Identity{Subject: StaticTokenSubject}, time.Time{}, nil
	}
	if len(token) > DefaultMaxTokenBytes {
		return nil, time.Time{}, invalidToken("token longer than %d bytes", DefaultMaxTokenBytes)
	}
	key := sha256.Sum256([]byte(token))
	if id, exp, ok := rs.cache.get(key, time.Now(), rs.generation); ok {
		return id, exp, nil
	}
	id, exp, aerr := rs.verifyJWT(r.Context(), token)
	if aerr == nil {
		rs.cache.put(key, id, exp, rs.issuers[id.Issuer].generation(), time.Now())
	}
	return id, exp, aerr
}

// generation is the key-set generation of issuer.
func (rs *resourceServer) generation(issuer string) uint64 {
	if k := rs.issuers[issuer]; k != nil {
		return k.generation()
	}
	return 0
}

// Bounds of the validated-token cache.
const (
	tokenCacheEntries = 4096
	tokenCacheTTL     = time.Minute
)

// tokenCache keeps validated tokens (by SHA-256) for at most tokenCacheTTL and never past
// their exp, and only while their issuer's key set is the one they were checked against (a
// refetch, e.g. after a key was removed, checks them again). At most tokenCacheEntries: when
// full, expired entries go, then arbitrary ones.
type tokenCache struct {
	mu sync.Mutex
	m  map[[32]byte]cachedToken
}

type cachedToken struct {
	id    *Identity
	exp   time.Time // the token's exp
	until time.Time // min(exp, cached + tokenCacheTTL)
	gen   uint64
}

func (c *tokenCache) get(key [32]byte, now time.Time, gen func(string) uint64) (*Identity, time.Time, bool) {
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if !ok || !now.Before(e.until) || gen(e.id.Issuer) != e.gen {
		return nil, time.Time{}, false
	}
	return e.id, e.exp, true
}

func (c *tokenCache) put(key [32]byte, id *Identity, exp time.Time, gen uint64, now time.Time) {
	until := now.Add(tokenCacheTTL)
	if exp.Before(until) {
		until = exp
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[[32]byte]cachedToken{}
	}
	if len(c.m) >= tokenCacheEntries {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		for k := range c.m {
			if len(c.m) < tokenCacheEntries {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[key] = cachedToken{id: id, exp: exp, until: until, gen: gen}
}

// claims are the claims read beyond the registered ones.
type extraClaims struct {
	Scope string   `json:"scope"`
	Scp   []string `json:"scp"`
}

func (rs *resourceServer) verifyJWT(ctx context.Context, token string) (*Identity, time.Time, *authError) {
	// Which issuer: read iss unverified, then verify with that issuer's keys and algorithms
	// only. Parsing with every algorithm any issuer allows; the issuer's own list is checked
	// against the header below.
	tok, err := jwt.ParseSigned(token, allAlgorithms)
	if err != nil {
		if rs.introspector != nil && strings.Count(token, ".") != 2 { // opaque: not a JWS at all
			return rs.introspect(ctx, token)
		}
		return nil, time.Time{}, invalidToken("not a signed JWT with an accepted algorithm: %v", err)
	}
	if len(tok.Headers) != 1 {
		return nil, time.Time{}, invalidToken("want exactly one signature")
	}
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, time.Time{}, invalidToken("claims: %v", err)
	}
	is := rs.issuers[unverified.Issuer]
	if is == nil {
		return nil, time.Time{}, invalidToken("issuer %q is not trusted by this server", unverified.Issuer)
	}
	hdr := tok.Headers[0]
	if !slices.Contains(is.algs, jose.SignatureAlgorithm(hdr.Algorithm)) {
		return nil, time.Time{}, invalidToken("algorithm %q is not one of issuer %q's (%s)", hdr.Algorithm, is.cfg.Issuer, joinAlgs(is.algs))
	}
	if is.cfg.JWKSURI == "" {
		return nil, time.Time{}, invalidToken("issuer %q's tokens are checked by introspection, not as JWTs", is.cfg.Issuer)
	}
	key, err := is.key(ctx, hdr.KeyID, hdr.Algorithm)
	if err != nil {
		return nil, time.Time{}, invalidToken("%v", err)
	}
	var c jwt.Claims
	var x extraClaims
	var all map[string]any
	if err := tok.Claims(key, &c, &x, &all); err != nil {
		return nil, time.Time{}, invalidToken("signature does not verify with issuer %q's key %q: %v", is.cfg.Issuer, hdr.KeyID, err)
	}
	if c.Expiry == nil {
		return nil, time.Time{}, invalidToken("token has no exp")
	}
	if c.Subject == "" {
		return nil, time.Time{}, invalidToken("token has no sub")
	}
	err = c.ValidateWithLeeway(jwt.Expected{Issuer: is.cfg.Issuer, AnyAudience: jwt.Audience{rs.cfg.Resource}, Time: time.Now()}, rs.skew)
	switch {
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, time.Time{}, invalidToken("token audience %q does not name this resource %q (RFC 8707)", []string(c.Audience), rs.cfg.Resource)
	case errors.Is(err, jwt.ErrExpired):
		return nil, time.Time{}, invalidToken("token expired at %s", c.Expiry.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrNotValidYet):
		return nil, time.Time{}, invalidToken("token not valid before %s", c.NotBefore.Time().UTC().Format(time.RFC3339))
	case err != nil:
		return nil, time.Time{}, invalidToken("%v", err)
	}
	id := &Identity{Subject: c.Subject, Issuer: is.cfg.Issuer, Groups: stringsClaim(all[is.groupsClaim])}
	id.Scopes = strings.Fields(x.Scope)
	if len(id.Scopes) == 0 {
		id.Scopes = x.Scp
	}
	return id, c.Expiry.Time(), nil
}

// stringsClaim reads a claim that is a string array or a space-separated string.
func stringsClaim(v any) []string {
	switch v := v.(type) {
	case string:
		return strings.Fields(v)
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// allAlgorithms are the asymmetric JWS algorithms an issuer may be configured with. HMAC
// algorithms are not among them: an access token signed with a shared secret is no key a
// JWKS publishes, and accepting HS* is how RS/HS key confusion happens.
var allAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

func joinAlgs(a []jose.SignatureAlgorithm) string {
	s := make([]string, len(a))
	for i, x := range a {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// issuerKeys is an issuer's JWKS, fetched on first use, again after JWKSMaxAge, and again
// when a token names a kid it lacks — at most once per JWKSMinRefresh, so tokens with made-up
// kids cannot make the server hammer the issuer. A refetch replaces the whole set: a key the
// issuer removed is refused from then on.
type issuerKeys struct {
	cfg         Issuer
	algs        []jose.SignatureAlgorithm
	groupsClaim string
	client      *http.Client
	logger      *slog.Logger

	fetchMu sync.Mutex // one fetch at a time

	mu      sync.RWMutex
	keys    *jose.JSONWebKeySet
	gen     uint64    // incremented each time keys is replaced: cached tokens of older keys are checked again
	fetched time.Time // last attempt (success or not)
	lastErr error
}

// generation is the number of times the key set has been replaced.
func (k *issuerKeys) generation() uint64 {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.gen
}

func newIssuerKeys(c Issuer, logger *slog.Logger) (*issuerKeys, error) {
	if c.Issuer == "" || (c.JWKSURI == "" && c.IntrospectionURL == "") {
		return nil, errors.New("resource server: an issuer needs issuer, and jwks_uri or an introspection endpoint")
	}
	k := &issuerKeys{cfg: c, groupsClaim: c.GroupsClaim, logger: logger, client: c.Client}
	if k.groupsClaim == "" {
		k.groupsClaim = "groups"
	}
	if len(c.Algorithms) == 0 {
		k.algs = []jose.SignatureAlgorithm{jose.RS256}
	}
	for _, a := range c.Algorithms {
		if !slices.Contains(allAlgorithms, jose.SignatureAlgorithm(a)) {
			return nil, fmt.Errorf("resource server: issuer %q: algorithm %q: want one of %s", c.Issuer, a, joinAlgs(allAlgorithms))
		}
		k.algs = append(k.algs, jose.SignatureAlgorithm(a))
	}
	if k.cfg.JWKSTimeout <= 0 {
		k.cfg.JWKSTimeout = DefaultJWKSTimeout
	}
	if k.cfg.JWKSMaxBytes <= 0 {
		k.cfg.JWKSMaxBytes = DefaultJWKSMaxBytes
	}
	if k.cfg.JWKSMinRefresh <= 0 {
		k.cfg.JWKSMinRefresh = DefaultJWKSMinRefresh
	}
	if k.cfg.JWKSMaxAge <= 0 {
		k.cfg.JWKSMaxAge = DefaultJWKSMaxAge
	}
	if k.client == nil {
		k.client = &http.Client{Timeout: k.cfg.JWKSTimeout}
	}
	return k, nil
}

// key returns the public key kid names, usable with alg.
func (k *issuerKeys) key(ctx context.Context, kid, alg string) (any, error) {
	now := time.Now()
	k.mu.RLock()
	keys, fetched := k.keys, k.fetched
	k.mu.RUnlock()
	// At most one fetch per JWKSMinRefresh, whatever the reason (none yet, keys too old, an
	// unknown kid, the last fetch failed): an issuer that is down or tokens with made-up kids
	// do not make every request wait on the issuer.
	mayFetch := fetched.IsZero() || now.Sub(fetched) >= k.cfg.JWKSMinRefresh
	stale := keys == nil || now.Sub(fetched) >= k.cfg.JWKSMaxAge
	jwk, found := lookupKey(keys, kid)
	if mayFetch && (stale || !found) {
		keys = k.refresh(ctx, fetched)
		jwk, found = lookupKey(keys, kid)
	}
	if !found {
		k.mu.RLock()
		err := k.lastErr
		k.mu.RUnlock()
		if keys == nil && err != nil {
			return nil, fmt.Errorf("issuer %q's keys are unavailable: %w", k.cfg.Issuer, err)
		}
		return nil, fmt.Errorf("key %q is not in issuer %q's JWKS", kid, k.cfg.Issuer)
	}
	if jwk.Algorithm != "" && jwk.Algorithm != alg {
		return nil, fmt.Errorf("key %q is for %s, the token says %s", kid, jwk.Algorithm, alg)
	}
	if jwk.Use != "" && jwk.Use != "sig" {
		return nil, fmt.Errorf("key %q is for use %q, not signatures", kid, jwk.Use)
	}
	if !jwk.IsPublic() {
		return nil, fmt.Errorf("key %q is not a public key", kid)
	}
	return jwk.Key, nil
}

func lookupKey(set *jose.JSONWebKeySet, kid string) (jose.JSONWebKey, bool) {
	if set == nil {
		return jose.JSONWebKey{}, false
	}
	for _, k := range set.Keys {
		if k.KeyID == kid {
			return k, true
		}
	}
	return jose.JSONWebKey{}, false
}

// refresh fetches the JWKS unless another caller did since seen (the fetched time the caller
// saw), and returns the keys now held. A failed fetch keeps the keys held (a JWKS endpoint
// that is briefly down does not lock everyone out) until they are older than JWKSMaxAge twice.
func (k *issuerKeys) refresh(ctx context.Context, seen time.Time) *jose.JSONWebKeySet {
	k.fetchMu.Lock()
	defer k.fetchMu.Unlock()
	k.mu.RLock()
	if !k.fetched.Equal(seen) { // fetched meanwhile
		keys := k.keys
		k.mu.RUnlock()
		return keys
	}
	k.mu.RUnlock()
	// The fetch is the server's, not the request's: a client hanging up does not cancel it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.cfg.JWKSTimeout)
	defer cancel()
	set, err := k.fetch(fctx)
	now := time.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fetched, k.lastErr = now, err
	if err != nil {
		k.logger.Warn("resource server: JWKS fetch failed", "issuer", k.cfg.Issuer, "jwks_uri", k.cfg.JWKSURI, "err", err)
		if k.keys != nil && now.Sub(seen) > 2*k.cfg.JWKSMaxAge {
			k.keys = nil
			k.gen++
		}
		return k.keys
	}
	k.keys = set
	k.gen++
	return set
}

func (k *issuerKeys) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.cfg.JWKSURI, nil)
	if err != nil {
		return nil, fmt.Errorf("jwks_uri: %w", err)
	}
	req.Header.Set("Accept", "application/json, application/jwk-set+json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching JWKS (timeout %v): %w", k.cfg.JWKSTimeout, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching JWKS: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, k.cfg.JWKSMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading JWKS (timeout %v): %w", k.cfg.JWKSTimeout, err)
	}
	if int64(len(body)) > k.cfg.JWKSMaxBytes {
		return nil, fmt.Errorf("JWKS larger than %d bytes", k.cfg.JWKSMaxBytes)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	return &set, nil
}

type tokenInfoCtxKey struct{}

// authenticateHTTP is the resource server's middleware: a request without a valid token is
// refused (challenge); a valid one goes on with its Identity in the context (IdentityFrom),
// and through the SDK's auth.RequireBearerToken, so the SDK binds sessions to the identity
// (TokenInfo.UserID: another identity naming the session gets 403) and hands it to handlers
// (RequestExtra.TokenInfo, read by identityMiddleware).
func (rs *resourceServer) authenticateHTTP(next http.Handler) http.Handler {
	sdk := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		ti, _ := ctx.Value(tokenInfoCtxKey{}).(*auth.TokenInfo)
		if ti == nil {
			return nil, auth.ErrInvalidToken
		}
		return ti, nil
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: rs.metaURL, ClockSkew: rs.skew})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, exp, aerr := rs.authenticate(r)
		if aerr != nil {
			rs.logger.Debug("resource server: request refused", "status", aerr.status, "err", aerr.desc)
			rs.challenge(w, aerr)
			return
		}
		rs.logger.Debug("resource server: request", "subject", id.Subject, "issuer", id.Issuer, "method", r.Method,
			"session", r.Header.Get("Mcp-Session-Id"))
		if exp.IsZero() { // the static token: no expiry of its own
			exp = time.Now().Add(24 * time.Hour)
		}
		ti := &auth.TokenInfo{UserID: id.Key(), Scopes: id.Scopes, Expiration: exp, Extra: map[string]any{identityExtraKey: id}}
		ctx := context.WithValue(WithIdentity(r.Context(), id), tokenInfoCtxKey{}, ti)
		sdk.ServeHTTP(w, r.WithContext(ctx))
	})
}

// introspect asks the introspecting issuer about an opaque token (RFC 7662 §2) and checks the
// answer as verifyJWT checks claims: active, iss (when given) the issuer, aud naming the
// resource, sub and exp present, exp/nbf within the skew.
func (rs *resourceServer) introspect(ctx context.Context, token string) (*Identity, time.Time, *authError) {
	is := rs.introspector
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), is.cfg.JWKSTimeout)
	defer cancel()
	form := neturl.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(fctx, http.MethodPost, is.cfg.IntrospectionURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, time.Time{}, invalidToken("introspection endpoint: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if is.cfg.ClientID != "" {
		req.SetBasicAuth(neturl.QueryEscape(is.cfg.ClientID), neturl.QueryEscape(is.cfg.ClientSecret)) // RFC 6749 §2.3.1
	}
	resp, err := is.client.Do(req)
	if err != nil {
		rs.logger.Warn("resource server: introspection failed", "issuer", is.cfg.Issuer, "err", err)
		return nil, time.Time{}, invalidToken("introspection at issuer %q failed (timeout %v): %v", is.cfg.Issuer, is.cfg.JWKSTimeout, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, is.cfg.JWKSMaxBytes+1))
	switch {
	case err != nil:
		return nil, time.Time{}, invalidToken("introspection at issuer %q: reading the answer (timeout %v): %v", is.cfg.Issuer, is.cfg.JWKSTimeout, err)
	case resp.StatusCode != http.StatusOK:
		return nil, time.Time{}, invalidToken("introspection at issuer %q: %s", is.cfg.Issuer, resp.Status)
	case int64(len(body)) > is.cfg.JWKSMaxBytes:
		return nil, time.Time{}, invalidToken("introspection answer larger than %d bytes", is.cfg.JWKSMaxBytes)
	}
	var r struct {
		Active bool             `json:"active"`
		Sub    string           `json:"sub"`
		Iss    string           `json:"iss"`
		Scope  string           `json:"scope"`
		Aud    jwt.Audience     `json:"aud"`
		Exp    *jwt.NumericDate `json:"exp"`
		Nbf    *jwt.NumericDate `json:"nbf"`
	}
	var all map[string]any
	if err := json.Unmarshal(body, &r); err != nil || json.Unmarshal(body, &all) != nil {
		return nil, time.Time{}, invalidToken("introspection answer is not a JSON object: %v", err)
	}
	now := time.Now()
	switch {
	case !r.Active:
		return nil, time.Time{}, invalidToken("token is not active (introspection at issuer %q)", is.cfg.Issuer)
	case r.Iss != "" && r.Iss != is.cfg.Issuer:
		return nil, time.Time{}, invalidToken("introspection names issuer %q, not %q", r.Iss, is.cfg.Issuer)
	case !r.Aud.Contains(rs.cfg.Resource):
		return nil, time.Time{}, invalidToken("token audience %q does not name this resource %q (RFC 8707)", []string(r.Aud), rs.cfg.Resource)
	case r.Sub == "":
		return nil, time.Time{}, invalidToken("introspection gave no sub")
	case r.Exp == nil:
		return nil, time.Time{}, invalidToken("introspection gave no exp")
	case now.Add(-rs.skew).After(r.Exp.Time()):
		return nil, time.Time{}, invalidToken("token expired at %s", r.Exp.Time().UTC().Format(time.RFC3339))
	case r.Nbf != nil && now.Add(rs.skew).Before(r.Nbf.Time()):
		return nil, time.Time{}, invalidToken("token not valid before %s", r.Nbf.Time().UTC().Format(time.RFC3339))
	}
	return &Identity{Subject: r.Sub, Issuer: is.cfg.Issuer, Scopes: strings.Fields(r.Scope), Groups: stringsClaim(all[is.groupsClaim])}, r.Exp.Time(), nil
}
