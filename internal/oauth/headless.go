package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Grant types of the headless flows (the token request's grant_type).
const (
	GrantClientCredentials = "client_credentials"                          // RFC 6749 §4.4
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer" // RFC 7523 §2.1
	// GrantEnterprise is SEP-990 enterprise-managed authorization: an RFC 8693 token exchange
	// at the IdP, then GrantJWTBearer with the ID-JAG it returns.
	GrantEnterprise = "enterprise"
)

// Client authentication methods at the token endpoint (RFC 8414 token_endpoint_auth_methods_supported).
const (
	AuthNone          = "none"
	AuthSecretBasic   = "client_secret_basic"
	AuthSecretPost    = "client_secret_post"
	AuthPrivateKeyJWT = "private_key_jwt" // RFC 7523 §2.2 client assertion
)

const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// Headless configures a flow with no user: the handler discovers the authorization server
// from the MCP server's 401 (RFC 9728, RFC 8414) and asks its token endpoint for a token with
// one grant. Secrets and keys stay in this struct: no error or log line contains them.
type Headless struct {
	// Grant is GrantClientCredentials, GrantJWTBearer (the assertion from Assertion: a workload
	// identity token, SEP-1933) or GrantEnterprise (SEP-990: Assertion's ID token exchanged at
	// IdPTokenURL for an ID-JAG (RFC 8693), then the JWT-bearer grant with it).
	Grant string
	// ClientID is the client at the authorization server (required but for GrantJWTBearer).
	ClientID string
	// ClientSecret authenticates with client_secret_basic or _post (the server's metadata
	// picks, basic first); PrivateKey with private_key_jwt. Neither: public client ("none").
	ClientSecret string
	// PrivateKey signs the private_key_jwt client assertion (ParsePrivateKey); SigningAlg is
	// its JWS alg (default: ES256 for EC P-256 keys, RS256 for RSA, EdDSA for Ed25519).
	PrivateKey crypto.Signer
	SigningAlg string
	// Assertion returns the JWT of GrantJWTBearer or the ID token of GrantEnterprise; it is
	// called for each grant (a workload token file is re-read: it rotates).
	Assertion func() (string, error)
	// IdPTokenURL, IdPClientID, IdPClientSecret: the enterprise IdP's token endpoint and this
	// client there (GrantEnterprise only).
	IdPTokenURL, IdPClientID, IdPClientSecret string
	// Scopes are asked for when neither the server's challenge nor its metadata name any.
	Scopes []string
}

// ParsePrivateKey parses a PEM private key (PKCS #8, SEC 1 EC or PKCS #1 RSA). The error never
// quotes the key.
func ParsePrivateKey(pemBytes []byte) (crypto.Signer, error) {
	b, _ := pem.Decode(pemBytes)
	if b == nil {
		return nil, errors.New("oauth: private key: no PEM block")
	}
	var k any
	var err error
	switch b.Type {
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(b.Bytes)
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	default:
		k, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: private key (%s): not a valid key", b.Type)
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("oauth: private key (%s): unsupported key type", b.Type)
	}
	return s, nil
}

// headless is the auth.OAuthHandler of a Headless flow.
type headless struct {
	c      Headless
	server string
	hc     *http.Client
	dpop   bool // tokens must be DPoP-bound (hc adds the proofs)

	mu     sync.Mutex
	tok    *oauth2.Token
	failed error // a grant the server refused: not asked again (SEP-1933 "no retry")
}

func newHeadless(server string, c Headless, hc *http.Client, dpop bool) (*headless, error) {
	switch c.Grant {
	case GrantClientCredentials:
		if c.ClientID == "" {
			return nil, errors.New("oauth: the client credentials grant needs a client ID")
		}
		if c.ClientSecret == "" && c.PrivateKey == nil {
			return nil, errors.New("oauth: the client credentials grant needs a client secret or a private key")
		}
	case GrantJWTBearer:
		if c.Assertion == nil {
			return nil, errors.New("oauth: the JWT-bearer grant needs an assertion (a workload identity token file)")
		}
	case GrantEnterprise:
		if c.Assertion == nil || c.IdPTokenURL == "" || c.IdPClientID == "" || c.ClientID == "" {
			return nil, errors.New("oauth: enterprise-managed authorization needs an ID token, the IdP's token endpoint, a client ID there and a client ID at the server")
		}
	default:
		return nil, fmt.Errorf("oauth: unknown headless grant %q", c.Grant)
	}
	return &headless{c: c, server: server, hc: hc, dpop: dpop}, nil
}

func (h *headless) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tok == nil {
		return nil, nil
	}
	return oauth2.StaticTokenSource(h.tok), nil
}

func (h *headless) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed != nil {
		return h.failed
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	var metaURL, scope string
	for _, c := range challenges {
		if v := c.Params["resource_metadata"]; v != "" && metaURL == "" {
			metaURL = v
		}
		if v := c.Params["scope"]; v != "" && scope == "" {
			scope = v
		}
	}
	resource := ResourceKey(h.server)
	prm, err := h.resourceMeta(ctx, metaURL, resource)
	if err != nil {
		return err
	}
	if len(prm.AuthorizationServers) == 0 {
		return fmt.Errorf("oauth: %s names no authorization server", resource)
	}
	asm, err := h.authServerMeta(ctx, prm.AuthorizationServers[0])
	if err != nil {
		return err
	}
	if scope == "" && len(prm.ScopesSupported) > 0 {
		scope = strings.Join(prm.ScopesSupported, " ")
	}
	if scope == "" && len(h.c.Scopes) > 0 {
		scope = strings.Join(h.c.Scopes, " ")
	}
	tok, err := h.grant(ctx, asm, prm.Resource, scope)
	if err != nil {
		var te *tokenError
		if errors.As(err, &te) {
			h.failed = err
		}
		return err
	}
	h.tok = tok
	return nil
}

// resourceMeta fetches the protected resource metadata (RFC 9728 §3): from the challenge's
// resource_metadata, else the well-known URL with the server's path, else at the root.
func (h *headless) resourceMeta(ctx context.Context, metaURL, resource string) (*oauthex.ProtectedResourceMetadata, error) {
	var urls []string
	if metaURL != "" {
		urls = []string{metaURL}
	} else {
		u, err := url.Parse(resource)
		if err != nil {
			return nil, fmt.Errorf("oauth: server URL: %w", err)
		}
		origin := u.Scheme + "://" + u.Host
		if p := strings.TrimSuffix(u.Path, "/"); p != "" {
			urls = append(urls, origin+"/.well-known/oauth-protected-resource"+p)
		}
		urls = append(urls, origin+"/.well-known/oauth-protected-resource")
	}
	var last error
	for _, mu := range urls {
		var m oauthex.ProtectedResourceMetadata
		if err := h.getJSON(ctx, mu, &m); err != nil {
			last = err
			continue
		}
		if strings.TrimSuffix(m.Resource, "/") != strings.TrimSuffix(resource, "/") {
			return nil, fmt.Errorf("oauth: %s is for resource %q, not %q", mu, m.Resource, resource)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("oauth: protected resource metadata of %s: %w", resource, last)
}

// authServerMeta fetches RFC 8414 / OpenID discovery metadata of issuer (path-insertion forms
// first, then the path-appended OpenID form) and checks its issuer.
func (h *headless) authServerMeta(ctx context.Context, issuer string) (*oauthex.AuthServerMeta, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization server %q: %w", issuer, err)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.Path, "/")
	urls := []string{origin + "/.well-known/oauth-authorization-server" + p, origin + "/.well-known/openid-configuration" + p}
	if p != "" {
		urls = append(urls, origin+p+"/.well-known/openid-configuration")
	}
	var last error
	for _, mu := range urls {
		var m oauthex.AuthServerMeta
		if err := h.getJSON(ctx, mu, &m); err != nil {
			last = err
			continue
		}
		if strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("oauth: %s names issuer %q, not %q", mu, m.Issuer, issuer)
		}
		if m.TokenEndpoint == "" {
			return nil, fmt.Errorf("oauth: %s has no token_endpoint", mu)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("oauth: authorization server metadata of %s: %w", issuer, last)
}

func (h *headless) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// tokenError is the token endpoint's refusal (RFC 6749 §5.2).
type tokenError struct {
	Endpoint    string
	Status      int
	Code        string
	Description string
}

func (e *tokenError) Error() string {
	s := fmt.Sprintf("oauth: token endpoint %s refused the grant (HTTP %d)", e.Endpoint, e.Status)
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// grant runs the configured grant at asm's token endpoint for resource (RFC 8707).
func (h *headless) grant(ctx context.Context, asm *oauthex.AuthServerMeta, resource, scope string) (*oauth2.Token, error) {
	form := url.Values{}
	switch h.c.Grant {
	case GrantClientCredentials:
		form.Set("grant_type", GrantClientCredentials)
	case GrantJWTBearer:
		a, err := h.c.Assertion()
		if err != nil {
			return nil, err
		}
		form.Set("grant_type", GrantJWTBearer)
		form.Set("assertion", a)
	case GrantEnterprise:
		jag, err := h.exchangeForJAG(ctx, asm.Issuer, resource, scope)
		if err != nil {
			return nil, err
		}
		form.Set("grant_type", GrantJWTBearer)
		form.Set("assertion", jag)
	}
	form.Set("resource", resource)
	if scope != "" {
		form.Set("scope", scope)
	}
	return h.tokenRequest(ctx, asm, form)
}

// exchangeForJAG trades the ID token for an ID-JAG at the IdP (RFC 8693; SEP-990 §4).
func (h *headless) exchangeForJAG(ctx context.Context, audience, resource, scope string) (string, error) {
	idt, err := h.c.Assertion()
	if err != nil {
		return "", err
	}
	creds := &oauthex.ClientCredentials{ClientID: h.c.IdPClientID}
	if h.c.IdPClientSecret != "" {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.c.IdPClientSecret}
	}
	var scopes []string
	if scope != "" {
		scopes = strings.Fields(scope)
	}
	t, err := oauthex.ExchangeToken(ctx, h.c.IdPTokenURL, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG, Audience: audience, Resource: resource, Scope: scopes,
		SubjectToken: idt, SubjectTokenType: oauthex.TokenTypeIDToken,
	}, creds, h.hc)
	if err != nil {
		return "", fmt.Errorf("oauth: token exchange at the IdP: %w", err)
	}
	return t.AccessToken, nil
}

// tokenRequest posts form to the token endpoint with this client's authentication and, with
// DPoP, a proof (retried once with the server's nonce, RFC 9449 §8).
func (h *headless) tokenRequest(ctx context.Context, asm *oauthex.AuthServerMeta, form url.Values) (*oauth2.Token, error) {
	method := h.authMethod(asm.TokenEndpointAuthMethodsSupported)
	var basic [2]string
	switch method {
	case AuthSecretBasic:
		basic = [2]string{h.c.ClientID, h.c.ClientSecret}
	case AuthSecretPost:
		form.Set("client_id", h.c.ClientID)
		form.Set("client_secret", h.c.ClientSecret)
	case AuthPrivateKeyJWT:
		a, err := h.clientAssertion(asm)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", h.c.ClientID)
		form.Set("client_assertion_type", assertionType)
		form.Set("client_assertion", a)
	default:
		if h.c.ClientID != "" {
			form.Set("client_id", h.c.ClientID)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, asm.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic[0] != "" {
		req.SetBasicAuth(url.QueryEscape(basic[0]), url.QueryEscape(basic[1]))
	}
	resp, err := h.hc.Do(req) // with DPoP: the proof and the nonce retry are hc's
	if err != nil {
		return nil, fmt.Errorf("oauth: token request: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var tr struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &tr)
	if resp.StatusCode != http.StatusOK || tr.AccessToken == "" {
		return nil, &tokenError{Endpoint: asm.TokenEndpoint, Status: resp.StatusCode, Code: tr.Error, Description: tr.Description}
	}
	if h.dpop && !strings.EqualFold(tr.TokenType, "DPoP") {
		return nil, fmt.Errorf("oauth: token endpoint %s issued a %q token, not a DPoP-bound one", asm.TokenEndpoint, tr.TokenType)
	}
	t := &oauth2.Token{AccessToken: tr.AccessToken, TokenType: tr.TokenType}
	if tr.ExpiresIn > 0 {
		t.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return t, nil
}

// authMethod picks the client authentication: private_key_jwt with a key; with a secret,
// client_secret_basic unless the server lists only client_secret_post; else none.
func (h *headless) authMethod(supported []string) string {
	switch {
	case h.c.PrivateKey != nil:
		return AuthPrivateKeyJWT
	case h.c.ClientSecret != "":
		if len(supported) > 0 && !slices.Contains(supported, AuthSecretBasic) && slices.Contains(supported, AuthSecretPost) {
			return AuthSecretPost
		}
		return AuthSecretBasic
	}
	return AuthNone
}

// clientAssertion is the private_key_jwt assertion (RFC 7523 §3): iss and sub the client ID,
// aud the authorization server's issuer, a fresh jti, valid for 5 minutes.
func (h *headless) clientAssertion(asm *oauthex.AuthServerMeta) (string, error) {
	alg := h.c.SigningAlg
	if alg == "" {
		alg = defaultAlg(h.c.PrivateKey)
	}
	if alg == "" {
		return "", errors.New("oauth: private key: no signing algorithm for this key type; set one")
	}
	if algs := asm.TokenEndpointAuthSigningAlgValuesSupported; len(algs) > 0 && !slices.Contains(algs, alg) {
		return "", fmt.Errorf("oauth: the authorization server takes client assertions signed with %v, not %s", algs, alg)
	}
	now := time.Now()
	claims := map[string]any{"iss": h.c.ClientID, "sub": h.c.ClientID, "aud": asm.Issuer,
		"jti": randomID(), "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	return signJWT(h.c.PrivateKey, jose.SignatureAlgorithm(alg), "JWT", false, claims)
}

func defaultAlg(k crypto.Signer) string {
	switch pk := k.Public().(type) {
	case *ecdsa.PublicKey:
		switch pk.Curve.Params().BitSize {
		case 256:
			return "ES256"
		case 384:
			return "ES384"
		case 521:
			return "ES512"
		}
	case *rsa.PublicKey:
		return "RS256"
	case ed25519.PublicKey:
		return "EdDSA"
	}
	return ""
}

// signJWT signs claims with key as a compact JWS of type typ; embedJWK puts the public key in
// the header (a DPoP proof, RFC 9449 §4.2).
func signJWT(key crypto.Signer, alg jose.SignatureAlgorithm, typ string, embedJWK bool, claims map[string]any) (string, error) {
	opts := (&jose.SignerOptions{EmbedJWK: embedJWK}).WithType(jose.ContentType(typ))
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		return "", fmt.Errorf("oauth: signer: %w", err)
	}
	b, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := s.Sign(b)
	if err != nil {
		return "", fmt.Errorf("oauth: signing: %w", err)
	}
	return jws.CompactSerialize()
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
