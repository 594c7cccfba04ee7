// Package oauthtest is an OAuth 2.1 authorization server and an MCP server protected by it
// (MCP 2025-11-25 "Authorization"), in one loopback httptest server, for tests: RFC 9728
// resource metadata, RFC 8414 server metadata, RFC 7591 registration, the authorization code
// grant with PKCE (S256) and the RFC 8707 resource parameter checked, refresh tokens (rotated;
// the replaced access token stops working) and client credentials. Its /authorize redirects
// at once (no user), so following the authorization URL completes a login.
//
// The MCP server has one tool, echo {text} → "echo: TEXT".
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is the authorization server (at URL) and the MCP endpoint (at MCPURL).
type Server struct {
	*httptest.Server
	MCPURL string

	mu        sync.Mutex
	expiresIn int               // expires_in of issued access tokens, in seconds (SetExpiresIn)
	clients   map[string]string // pre-registered confidential clients: ID → secret (AddClient)
	valid     map[string]bool   // access tokens the MCP endpoint accepts
	refresh   map[string]string // refresh token → the access token issued with it
	codes     map[string]grant  // authorization code → what it was issued for
	issued    []string          // every access and refresh token issued
	logins    int
	refreshes int
}

type grant struct{ challenge, redirect, resource string }

// SetExpiresIn sets the expires_in of access tokens issued from now on, in seconds. 1 makes
// a client refresh before every use (golang.org/x/oauth2 refreshes 10 s before expiry). Safe
// while requests are served (a client in another process has no happens-before edge to a
// plain field write).
func (s *Server) SetExpiresIn(sec int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expiresIn = sec
}

// AddClient pre-registers a confidential client (client credentials grant).
func (s *Server) AddClient(id, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[id] = secret
}

// NewServer starts the server; it is closed when the test ends.
func NewServer(t interface{ Cleanup(func()) }) *Server {
	s := &Server{expiresIn: 3600, clients: map[string]string{}, valid: map[string]bool{},
		refresh: map[string]string{}, codes: map[string]grant{}}
	mux := http.NewServeMux()
	s.Server = httptest.NewServer(mux)
	s.MCPURL = s.URL + "/mcp"
	t.Cleanup(s.Close)

	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": s.MCPURL, "authorization_servers": []string{s.URL}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": s.URL, "authorization_endpoint": s.URL + "/authorize", "token_endpoint": s.URL + "/token",
			"registration_endpoint": s.URL + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"},
		})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if json.NewDecoder(r.Body).Decode(&m) != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
			return
		}
		m["client_id"] = "client-" + random()
		m["token_endpoint_auth_method"] = "none"
		writeJSON(w, http.StatusCreated, m)
	})
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)

	srv := mcp.NewServer(&mcp.Implementation{Name: "oauthtest", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	mux.Handle("/mcp", auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: s.URL + "/.well-known/oauth-protected-resource/mcp"})(h))
	return s
}

func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.valid[token] {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case err != nil || redirect.Scheme != "http":
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "want response_type=code with an S256 code_challenge", http.StatusBadRequest)
		return
	case q.Get("resource") != s.MCPURL:
		http.Error(w, "wrong resource", http.StatusBadRequest)
		return
	}
	code := "code-" + random()
	s.mu.Lock()
	s.codes[code] = grant{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), resource: q.Get("resource")}
	s.mu.Unlock()
	rq := redirect.Query()
	rq.Set("code", code)
	rq.Set("state", q.Get("state"))
	redirect.RawQuery = rq.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(e string) { writeJSON(w, http.StatusBadRequest, map[string]string{"error": e}) }
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok:
			fail("invalid_grant")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			fail("invalid_grant") // PKCE
			return
		case f.Get("redirect_uri") != g.redirect || f.Get("resource") != g.resource:
			fail("invalid_grant")
			return
		}
		s.logins++
		s.issue(w, true)
	case "refresh_token":
		old, ok := s.refresh[f.Get("refresh_token")]
		if !ok {
			fail("invalid_grant")
			return
		}
		delete(s.refresh, f.Get("refresh_token"))
		delete(s.valid, old)
		s.refreshes++
		s.issue(w, true)
	case "client_credentials":
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = f.Get("client_id"), f.Get("client_secret")
		}
		if want, known := s.clients[id]; !known || want != secret || secret == "" {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
		s.logins++
		s.issue(w, false)
	default:
		fail("unsupported_grant_type")
	}
}

// issue answers a token request with a new access token (and refresh token). s.mu is held.
func (s *Server) issue(w http.ResponseWriter, withRefresh bool) {
	at := "at-" + random()
	s.valid[at] = true
	s.issued = append(s.issued, at)
	res := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": s.expiresIn}
	if withRefresh {
		rt := "rt-" + random()
		s.refresh[rt] = at
		s.issued = append(s.issued, rt)
		res["refresh_token"] = rt
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, res)
}

// Revoke makes every access token issued so far invalid (refresh tokens stay valid).
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.valid)
}

// Issued returns every access and refresh token issued so far.
func (s *Server) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issued...)
}

// Counts returns how many grants were made by login (authorization code or client
// credentials) and by refresh.
func (s *Server) Counts() (logins, refreshes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins, s.refreshes
}

// Browser returns a function that acts as the user's browser: it follows an authorization URL
// and its redirect (to the client's loopback listener). Errors go to fail.
func Browser(fail func(error)) func(authURL string) {
	return func(authURL string) {
		go func() {
			resp, err := http.Get(authURL)
			if err != nil {
				fail(fmt.Errorf("browser: %w", err))
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				fail(fmt.Errorf("browser: %s", resp.Status))
			}
		}()
	}
}

func random() string { return rand.Text() }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
