package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// ErrLoginRequired: the server wants authorization, no stored token works, and this client
// path cannot ask a user (an upstream of `serve`). `mcpwasm login URL` fixes it.
var ErrLoginRequired = errors.New("oauth: not logged in")

// Config says how one MCP server's client authorizes. The zero value of every field but
// Server is valid: dynamic client registration, tokens in memory, no interactive login.
type Config struct {
	// Server is the MCP endpoint URL; ResourceKey(Server) keys its stored token.
	Server string
	// Store keeps the token across runs (and receives refreshed tokens); nil keeps it in
	// memory only.
	Store *Store
	// Fresh ignores a stored token (a new login); the new token still replaces it.
	Fresh bool
	// ClientID and ClientSecret are a pre-registered client. An empty ClientSecret is a
	// public client (token endpoint auth "none"); otherwise the SDK picks client_secret_basic
	// or client_secret_post from the authorization server's metadata (RFC 8414).
	ClientID, ClientSecret string
	// ClientCredentials uses the client credentials grant (RFC 6749 §4.4) with ClientID and
	// ClientSecret instead of the authorization code flow: for headless servers.
	ClientCredentials bool
	// Headless, if set, replaces the authorization code flow with a grant that needs no user
	// (client credentials with a secret or private_key_jwt, JWT bearer, enterprise-managed).
	// Its tokens are not stored: each run asks for its own.
	Headless *Headless
	// DPoP binds tokens to a key made for this handler (RFC 9449, SEP-1932): the MCP client
	// must then use WrapTransport(handler) under its HTTP transport.
	DPoP bool
	// ClientMetadataURL is this client's client ID metadata document (an https URL with a
	// path), used as client_id where the authorization server supports such documents.
	ClientMetadataURL string
	// Login runs the user's part of the authorization code flow: send the user to the URL,
	// return the redirect's code, state and iss. Nil: no user to ask; authorizing without a
	// stored token fails with ErrLoginRequired.
	Login auth.AuthorizationCodeFetcher
	// RedirectURL is where the authorization server sends the user back (Loopback.RedirectURL);
	// required with Login.
	RedirectURL string
	// HTTPClient makes the discovery, registration and token requests; nil means
	// http.DefaultClient.
	HTTPClient *http.Client
	// Logger receives failures to save a token (never the token). Nil discards them.
	Logger *slog.Logger
}

// NewHandler returns the SDK OAuth handler for c: set it as the Streamable HTTP transport's
// OAuthHandler. A token stored for c.Server is used (and refreshed) first; a new or refreshed
// token is written back to c.Store.
func NewHandler(c Config) (auth.OAuthHandler, error) {
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if c.DPoP {
		k, err := newDPoPKey()
		if err != nil {
			return nil, err
		}
		d := *hc
		d.Transport = k.transport(hc.Transport)
		// The token is bound to this process's key: storing it would only hand a later
		// process a token it cannot present.
		c.DPoP, c.HTTPClient, c.Store = false, &d, nil
		h, err := NewHandler(c)
		if err != nil {
			return nil, err
		}
		if hh, ok := h.(*headless); ok {
			hh.dpop = true
		}
		return &withDPoP{OAuthHandler: h, key: k}, nil
	}
	if c.Headless != nil {
		return newHeadless(c.Server, *c.Headless, hc, false)
	}
	if c.ClientCredentials && c.Headless == nil {
		if c.ClientID == "" || c.ClientSecret == "" {
			return nil, errors.New("oauth: the client credentials grant needs a client ID and a client secret")
		}
		c.Headless = &Headless{Grant: GrantClientCredentials, ClientID: c.ClientID, ClientSecret: c.ClientSecret}
	}
	if c.Headless != nil {
		return newHeadless(c.Server, *c.Headless, hc, false)
	}
	key := ResourceKey(c.Server)
	saver := &saver{store: c.Store, key: key, logger: logger}
	fetch := c.Login
	redirect := c.RedirectURL
	if fetch == nil {
		fetch = func(context.Context, *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return nil, fmt.Errorf("%w to %s: run `mcpwasm login %s`", ErrLoginRequired, key, key)
		}
		if redirect == "" {
			redirect = "http://127.0.0.1/callback" // never visited: fetch fails first
		}
	}
	ac := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetch,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect},
			ClientName:   "mcpwasm",
			GrantTypes:   []string{"authorization_code", "refresh_token"},
		}},
		RequestRefreshToken: true,
		Client:              hc,
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			e := entry{TokenURL: oc.Endpoint.TokenURL, ClientID: oc.ClientID, ClientSecret: oc.ClientSecret,
				AuthStyle: int(oc.Endpoint.AuthStyle), Scopes: oc.Scopes}
			return saver.source(oc.TokenSource(ctx, tok), e), nil
		},
	}
	if c.ClientMetadataURL != "" {
		ac.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: c.ClientMetadataURL}
	}
	if c.ClientID != "" {
		pc := &oauthex.ClientCredentials{ClientID: c.ClientID}
		if c.ClientSecret != "" {
			pc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: c.ClientSecret}
		}
		ac.PreregisteredClient = pc
	}
	if c.Store != nil && !c.Fresh {
		e, ok, err := c.Store.get(key)
		if err != nil {
			return nil, err
		}
		if ok {
			// A step-up asks for the scopes of the stored grant too (SEP-2350), as the SDK
			// does for grants of the same run.
			stored := e.Scopes
			ac.ScopeFilter = func(discovered []string) []string {
				out := slices.Clone(stored)
				for _, s := range discovered {
					if !slices.Contains(out, s) {
						out = append(out, s)
					}
				}
				return out
			}
			rctx := context.WithValue(context.Background(), oauth2.HTTPClient, hc)
			ac.InitialTokenSource = saver.source(e.config().TokenSource(rctx, e.token()), e)
			saver.last = e.AccessToken
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(ac)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	if c.Login != nil || c.Store == nil || c.Fresh {
		return h, nil
	}
	// No user: a token that `mcpwasm login` stored after this handler was made is picked up
	// when the server next refuses a request, without a restart.
	return &reloading{inner: h, saver: saver, rebuild: func() (auth.OAuthHandler, error) { return NewHandler(c) }}, nil
}

// reloading is the handler of a client that cannot ask a user: before authorizing (which can
// only fail with ErrLoginRequired) it looks for a token stored since, by another process.
type reloading struct {
	saver   *saver // of inner: the token it last stored or loaded
	rebuild func() (auth.OAuthHandler, error)

	mu    sync.Mutex
	inner auth.OAuthHandler
}

func (r *reloading) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	r.mu.Lock()
	inner := r.inner
	r.mu.Unlock()
	return inner.TokenSource(ctx)
}

func (r *reloading) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	sv := r.saver
	sv.mu.Lock()
	last := sv.last
	sv.mu.Unlock()
	if e, ok, err := sv.store.get(sv.key); err == nil && ok && e.AccessToken != last {
		if h, err := r.rebuild(); err == nil {
			if rh, ok := h.(*reloading); ok {
				r.inner, r.saver = rh.inner, rh.saver
				resp.Body.Close()
				return nil // the transport retries with the new token
			}
		}
	}
	return r.inner.Authorize(ctx, req, resp)
}

// saver writes a server's token to the store whenever its token source hands out a new one
// (after a login, a step-up or a refresh).
type saver struct {
	store  *Store
	key    string
	logger *slog.Logger

	mu   sync.Mutex
	last string // the access token last stored
}

func (s *saver) source(base oauth2.TokenSource, e entry) oauth2.TokenSource {
	return &savingSource{base: base, saver: s, tmpl: e}
}

type savingSource struct {
	base  oauth2.TokenSource
	saver *saver
	tmpl  entry // client and endpoint of the grant
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.base.Token()
	if err != nil || t == nil {
		return t, err
	}
	sv := s.saver
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.store == nil || t.AccessToken == sv.last {
		return t, nil
	}
	e := s.tmpl
	e.AccessToken, e.TokenType, e.RefreshToken, e.Expiry = t.AccessToken, t.TokenType, t.RefreshToken, t.Expiry
	if err := sv.store.put(sv.key, e); err != nil {
		sv.logger.Warn("oauth: saving the token failed; it is used for this run only", "server", sv.key, "err", err)
	} else {
		sv.last = t.AccessToken
	}
	return t, nil
}
