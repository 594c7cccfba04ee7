package codemode_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/mcpserver/codemode"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// idEnv is code mode behind an OAuth resource server with a policy: alice may use run_code
// and the calc guest, bob run_code and the text guest, and the tool wipe only with the
// scope "admin" (rule "admins"). Tokens are minted here and checked against a JWKS served
// from httptest.
type idEnv struct {
	url, iss string
	key      *rsa.PrivateKey
	mode     *codemode.Mode
}

func newIDEnv(t *testing.T) *idEnv {
	t.Helper()
	ctx := context.Background()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	}))
	t.Cleanup(jwks.Close)
	policy := &mcpserver.Policy{Rules: []mcpserver.PolicyRule{
		{Name: "calc-users", Subjects: []string{"alice"}, Guests: []string{"calc"}, Tools: []string{"run_code"}},
		{Name: "text-users", Subjects: []string{"bob"}, Guests: []string{"text"}, Tools: []string{"run_code"}},
		{Name: "admins", Subjects: []string{"bob"}, Scopes: []string{"admin"}, Tools: []string{"wipe"}},
	}}
	m := codemode.New(codemode.Config{Enabled: true, TimeoutMS: 5000, MemoryMB: 32}, nil)
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Upstreams: m.Upstreams()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Close(ctx) })
	var gs []*runtime.Guest
	group := map[string]string{"wipe": "admin"}
	for _, b := range guests.Default() {
		if b.Name != "calc" && b.Name != "text" {
			continue
		}
		g, err := host.Load(ctx, b.Wasm, &runtime.GuestConfig{Source: "bundled:" + b.Name})
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
		for _, tl := range g.Manifest().Tools {
			group[tl.Name] = g.Name()
		}
	}
	s, err := mcpserver.NewServer(gs, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.AddTool(&mcp.Tool{Name: "wipe", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("wipe ran for an identity the policy refuses it")
	})
	if err := m.Serve(ctx, host, s, &codemode.ServeOptions{Group: func(tool string) string { return group[tool] }, Policy: policy}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(ctx) })
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	rs := &mcpserver.ResourceServer{Resource: ts.URL + "/mcp", Policy: policy,
		Issuers: []mcpserver.Issuer{{Issuer: jwks.URL, JWKSURI: jwks.URL + "/jwks", Algorithms: []string{"RS256"}}}}
	mux.Handle("/", mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{ResourceServer: rs}))
	return &idEnv{url: ts.URL + "/mcp", iss: jwks.URL, key: key, mode: m}
}

// client connects a go-sdk client over Streamable HTTP with a token for subject.
func (e *idEnv) client(t *testing.T, subject string) *mcp.ClientSession {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: e.key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(sig).Claims(map[string]any{"iss": e.iss, "sub": subject, "aud": e.url, "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: subject, Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: e.url, HTTPClient: &http.Client{Transport: bearer(tok)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// Two identities over HTTP see different declarations (description, resource, one
// server's resource), and each run calls only what its identity may call.
func TestDeclarationsPerIdentity(t *testing.T) {
	e := newIDEnv(t)
	ctx := t.Context()
	for _, tc := range []struct {
		who, has, hasNot, server, run, want string
	}{
		{"alice", "    calc(args: { expression: string }): Promise<{ value: number }>; // read-only\n", "text:", "calc",
			"return [Object.keys(tools), (await tools.calc.calc({ expression: '6*7' })).value]", `[["calc"],42]`},
		{"bob", "    sha256(args: { text: string }): Promise<{ hex: string }>; // read-only\n", "calc:", "text",
			"return [Object.keys(tools), typeof tools.admin, (await tools.text.sha256({ text: '' })).hex.slice(0, 8)]", `[["text"],"undefined","e3b0c442"]`},
	} {
		t.Run(tc.who, func(t *testing.T) {
			cs := e.client(t, tc.who)
			lr, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var desc string
			for _, tl := range lr.Tools {
				if tl.Name == "run_code" {
					desc = tl.Description
				}
			}
			if !strings.Contains(desc, tc.has) || strings.Contains(desc, tc.hasNot) || strings.Contains(desc, "wipe") {
				t.Errorf("%s's description: want %q, not %q nor wipe:\n%s", tc.who, tc.has, tc.hasNot, desc)
			}
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: codemode.ResourceURI})
			if err != nil {
				t.Fatal(err)
			}
			if full := rr.Contents[0].Text; !strings.Contains(full, tc.has) || strings.Contains(full, tc.hasNot) || strings.Contains(full, "wipe") {
				t.Errorf("%s's declarations resource:\n%s", tc.who, full)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcpwasm://code-mode/servers/" + tc.server + ".d.ts"}); err != nil {
				t.Errorf("%s reading its server %s: %v", tc.who, tc.server, err)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcpwasm://code-mode/servers/admin.d.ts"}); err == nil {
				t.Errorf("%s reads the declarations of admin, which it may not call", tc.who)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": tc.run}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || got != tc.want {
				t.Errorf("%s's run: %s (error %v), want %s", tc.who, got, res.IsError, tc.want)
			}
		})
	}
}

// A run's tool call is checked against the identity that called run_code: bob's call of
// wipe (rule "admins" needs the scope admin) is refused naming the rule, and a call with no
// identity (stdio) passes the policy.
func TestRunCallRefusedByPolicy(t *testing.T) {
	e := newIDEnv(t)
	err := e.mode.CallAs(t.Context(), &mcpserver.Identity{Subject: "bob", Issuer: e.iss}, "wipe")
	want := `code mode: tool "wipe" needs scope "admin" for subject "bob" (policy rule "admins")`
	if err == nil || err.Error() != want {
		t.Fatalf("bob calling wipe: %v, want %q", err, want)
	}
	err = e.mode.CallAs(t.Context(), &mcpserver.Identity{Subject: "alice", Issuer: e.iss}, "sha256")
	want = `code mode: tool "sha256" is not allowed for subject "alice": no rule of the server's policy grants it`
	if err == nil || err.Error() != want {
		t.Fatalf("alice calling sha256: %v, want %q", err, want)
	}
}
