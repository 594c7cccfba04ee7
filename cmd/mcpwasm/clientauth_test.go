package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/oauth"
)

// The headless flags resolve to the flow they name, secrets and keys read from variables and
// files; a missing or bad one is an error that names the variable or file, never a value.
func TestAuthSettingsHeadlessFlows(t *testing.T) {
	dir := t.TempDir()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	keyFile := filepath.Join(dir, "key.pem")
	os.WriteFile(keyFile, keyPEM, 0o600)
	os.WriteFile(keyFile+".secret", []byte("file-secret\n"), 0o600)
	wl := filepath.Join(dir, "wl.jwt")
	os.WriteFile(wl, []byte("workload-jwt\n"), 0o600)
	t.Setenv("H_SECRET", "s3cret-value")
	t.Setenv("H_KEY", string(keyPEM))
	t.Setenv("H_BADKEY", "-----BEGIN PRIVATE KEY-----\nbm90LWEta2V5\n-----END PRIVATE KEY-----\n")
	t.Setenv(WorkloadTokenEnv, "")
	logger := slog.New(slog.DiscardHandler)
	const url = "https://mcp.example.com/mcp"

	for name, tc := range map[string]struct {
		s         authSettings
		grant     string
		withKey   bool
		assertion string
	}{
		"secret file":  {s: authSettings{ClientID: "a", SecretFile: keyFile + ".secret", ClientCredentials: true}, grant: oauth.GrantClientCredentials},
		"secret":       {s: authSettings{ClientID: "a", SecretEnv: "H_SECRET", ClientCredentials: true}, grant: oauth.GrantClientCredentials},
		"key file":     {s: authSettings{ClientID: "a", KeyFile: keyFile, ClientCredentials: true}, grant: oauth.GrantClientCredentials, withKey: true},
		"key variable": {s: authSettings{ClientID: "a", KeyEnv: "H_KEY", ClientCredentials: true, DPoP: true}, grant: oauth.GrantClientCredentials, withKey: true},
		"workload":     {s: authSettings{WorkloadTokenFile: wl}, grant: oauth.GrantJWTBearer, assertion: "workload-jwt"},
		"enterprise": {s: authSettings{ClientID: "a", SecretEnv: "H_SECRET", IDTokenFile: wl, IdPTokenURL: "https://idp.example.com/token", IdPClientID: "i"},
			grant: oauth.GrantEnterprise, assertion: "workload-jwt"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := tc.s.oauthConfig(url, logger)
			if err != nil {
				t.Fatal(err)
			}
			h := c.Headless
			if h == nil || h.Grant != tc.grant || (h.PrivateKey != nil) != tc.withKey || c.DPoP != tc.s.DPoP {
				t.Fatalf("config %+v, want grant %s (key %v)", h, tc.grant, tc.withKey)
			}
			if tc.assertion != "" {
				if a, err := h.Assertion(); err != nil || a != tc.assertion {
					t.Fatalf("assertion %q, %v; want %q", a, err, tc.assertion)
				}
			}
		})
	}

	t.Run("secret file is trimmed", func(t *testing.T) {
		c, err := authSettings{ClientID: "a", SecretFile: keyFile + ".secret", ClientCredentials: true}.oauthConfig(url, logger)
		if err != nil || c.Headless.ClientSecret != "file-secret" {
			t.Fatalf("secret from the file: %v (equal: %v)", err, err == nil && c.Headless.ClientSecret == "file-secret")
		}
	})

	t.Run("workload from the environment", func(t *testing.T) {
		t.Setenv(WorkloadTokenEnv, wl)
		c, err := authSettings{ClientID: "w"}.oauthConfig(url, logger)
		if err != nil || c.Headless == nil || c.Headless.Grant != oauth.GrantJWTBearer {
			t.Fatalf("%+v, %v: want the JWT-bearer grant from $%s", c.Headless, err, WorkloadTokenEnv)
		}
	})

	for name, tc := range map[string]struct {
		s    authSettings
		want string
	}{
		"unset secret":   {authSettings{ClientID: "a", SecretEnv: "H_UNSET", ClientCredentials: true}, "client secret: H_UNSET is not set"},
		"no secret":      {authSettings{ClientID: "a", ClientCredentials: true}, "needs a client ID and a client secret or a private key"},
		"bad key":        {authSettings{ClientID: "a", KeyEnv: "H_BADKEY", ClientCredentials: true}, "$H_BADKEY: oauth: private key (PRIVATE KEY): not a valid key"},
		"two secrets":    {authSettings{ClientID: "a", SecretEnv: "H_SECRET", SecretFile: keyFile, ClientCredentials: true}, "not both"},
		"two keys":       {authSettings{ClientID: "a", KeyEnv: "H_KEY", KeyFile: keyFile, ClientCredentials: true}, "not both"},
		"key, no grant":  {authSettings{ClientID: "a", KeyFile: keyFile}, "add --client-credentials"},
		"enterprise gap": {authSettings{ClientID: "a", IDTokenFile: wl}, "needs the IdP's token URL"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.s.oauthConfig(url, logger)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret-value") || strings.Contains(err.Error(), "bm90LWEta2V5") {
				t.Fatalf("the error quotes a secret: %v", err)
			}
		})
	}
}
