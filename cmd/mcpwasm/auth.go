package main

import (
	"context"
	"crypto"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	neturl "net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/oauth"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// authFlags are the OAuth flags of the --url client commands and of login.
type authFlags struct {
	clientID, secretEnv, secretFile, metadataURL        *string
	keyFile, keyEnv, signingAlg                         *string
	workloadTokenFile                                   *string
	idTokenFile, idpTokenURL, idpClientID, idpSecretEnv *string
	credentials, dpop                                   *bool
}

// WorkloadTokenEnv names the environment variable holding the path of a workload identity
// token file (SEP-1933) when --workload-token-file is not given.
const WorkloadTokenEnv = "MCPWASM_WORKLOAD_TOKEN_FILE"

func addAuthFlags(fs *flag.FlagSet) *authFlags {
	return &authFlags{
		clientID:          fs.String("client-id", "", "OAuth: a pre-registered client ID (default: a client ID metadata document or dynamic registration)"),
		secretEnv:         fs.String("client-secret-env", "", "OAuth: the environment variable holding the pre-registered client's secret"),
		secretFile:        fs.String("client-secret-file", "", "OAuth: the file holding the pre-registered client's secret (trailing whitespace ignored)"),
		metadataURL:       fs.String("client-metadata-url", "", "OAuth: this client's client ID metadata document (https URL), used where the authorization server supports them"),
		credentials:       fs.Bool("client-credentials", false, "OAuth: use the client credentials grant (needs --client-id and --client-secret-env or --private-key-file/-env)"),
		keyFile:           fs.String("private-key-file", "", "OAuth: PEM private key file: authenticate the client with private_key_jwt (RFC 7523)"),
		keyEnv:            fs.String("private-key-env", "", "OAuth: the environment variable holding the PEM private key for private_key_jwt"),
		signingAlg:        fs.String("signing-alg", "", "OAuth: JWS algorithm of the private_key_jwt assertion (default from the key: ES256, RS256, EdDSA)"),
		workloadTokenFile: fs.String("workload-token-file", "", "OAuth: use the JWT-bearer grant with the workload identity token in this file, re-read at each grant (default: $"+WorkloadTokenEnv+")"),
		idTokenFile:       fs.String("id-token-file", "", "OAuth: enterprise-managed authorization: the enterprise IdP's ID token in this file (needs --idp-token-url, --idp-client-id, --client-id)"),
		idpTokenURL:       fs.String("idp-token-url", "", "OAuth: enterprise-managed authorization: the IdP's token endpoint (token exchange, RFC 8693)"),
		idpClientID:       fs.String("idp-client-id", "", "OAuth: enterprise-managed authorization: this client's ID at the IdP"),
		idpSecretEnv:      fs.String("idp-client-secret-env", "", "OAuth: enterprise-managed authorization: the environment variable holding this client's secret at the IdP"),
		dpop:              fs.Bool("dpop", false, "OAuth: DPoP-bound tokens (RFC 9449): a proof with every request; such tokens are not stored"),
	}
}

// authSettings are the OAuth settings of the flags or of an upstream's config, resolved.
type authSettings struct {
	ClientID, SecretEnv, SecretFile, MetadataURL        string
	KeyFile, KeyEnv, SigningAlg                         string
	WorkloadTokenFile                                   string
	IDTokenFile, IdPTokenURL, IdPClientID, IdPSecretEnv string
	ClientCredentials, DPoP                             bool
}

func (a *authFlags) settings() authSettings {
	return authSettings{ClientID: *a.clientID, SecretEnv: *a.secretEnv, SecretFile: *a.secretFile, MetadataURL: *a.metadataURL,
		KeyFile: *a.keyFile, KeyEnv: *a.keyEnv, SigningAlg: *a.signingAlg, WorkloadTokenFile: *a.workloadTokenFile,
		IDTokenFile: *a.idTokenFile, IdPTokenURL: *a.idpTokenURL, IdPClientID: *a.idpClientID, IdPSecretEnv: *a.idpSecretEnv,
		ClientCredentials: *a.credentials, DPoP: *a.dpop}
}

// oauthConfig resolves s into the OAuth configuration for server: secrets and keys read from
// their variables and files (errors name the flag or variable, never a value).
func (s authSettings) oauthConfig(server string, logger *slog.Logger) (oauth.Config, error) {
	c := oauth.Config{Server: server, ClientID: s.ClientID, ClientMetadataURL: s.MetadataURL,
		ClientCredentials: s.ClientCredentials, DPoP: s.DPoP, Logger: logger}
	env := func(what, name string) (string, error) {
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			return "", fmt.Errorf("%s: %s is not set", what, name)
		}
		return v, nil
	}
	var err error
	switch {
	case s.SecretEnv != "" && s.SecretFile != "":
		return c, errors.New("give the client secret as a variable or as a file, not both")
	case s.SecretEnv != "":
		if c.ClientSecret, err = env("client secret", s.SecretEnv); err != nil {
			return c, err
		}
	case s.SecretFile != "":
		b, err := os.ReadFile(s.SecretFile)
		if err != nil {
			return c, fmt.Errorf("client secret: %w", err)
		}
		if c.ClientSecret = strings.TrimSpace(string(b)); c.ClientSecret == "" {
			return c, fmt.Errorf("client secret: %s is empty", s.SecretFile)
		}
	}
	var key crypto.Signer
	switch {
	case s.KeyFile != "" && s.KeyEnv != "":
		return c, errors.New("give the private key as a file or as a variable, not both")
	case s.KeyFile != "":
		b, err := os.ReadFile(s.KeyFile)
		if err != nil {
			return c, fmt.Errorf("private key: %w", err)
		}
		if key, err = oauth.ParsePrivateKey(b); err != nil {
			return c, fmt.Errorf("%s: %w", s.KeyFile, err)
		}
	case s.KeyEnv != "":
		v, err := env("private key", s.KeyEnv)
		if err != nil {
			return c, err
		}
		if key, err = oauth.ParsePrivateKey([]byte(v)); err != nil {
			return c, fmt.Errorf("$%s: %w", s.KeyEnv, err)
		}
	}
	readFile := func(path string) func() (string, error) {
		return func() (string, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return "", fmt.Errorf("oauth: %w", err)
			}
			return strings.TrimSpace(string(b)), nil
		}
	}
	wif := s.WorkloadTokenFile
	switch {
	case s.IDTokenFile != "":
		if s.IdPTokenURL == "" || s.IdPClientID == "" || s.ClientID == "" {
			return c, errors.New("enterprise-managed authorization (an ID token file) needs the IdP's token URL, a client ID at the IdP and a client ID at the server")
		}
		h := &oauth.Headless{Grant: oauth.GrantEnterprise, ClientID: s.ClientID, ClientSecret: c.ClientSecret,
			PrivateKey: key, SigningAlg: s.SigningAlg, Assertion: readFile(s.IDTokenFile),
			IdPTokenURL: s.IdPTokenURL, IdPClientID: s.IdPClientID}
		if s.IdPSecretEnv != "" {
			if h.IdPClientSecret, err = env("IdP client secret", s.IdPSecretEnv); err != nil {
				return c, err
			}
		}
		c.Headless = h
	case wif != "" || (!s.ClientCredentials && os.Getenv(WorkloadTokenEnv) != ""):
		if wif == "" {
			wif = os.Getenv(WorkloadTokenEnv)
		}
		c.Headless = &oauth.Headless{Grant: oauth.GrantJWTBearer, ClientID: s.ClientID, ClientSecret: c.ClientSecret,
			PrivateKey: key, SigningAlg: s.SigningAlg, Assertion: readFile(wif)}
	case s.ClientCredentials:
		if s.ClientID == "" || (c.ClientSecret == "" && key == nil) {
			return c, errors.New("the client credentials grant needs a client ID and a client secret or a private key")
		}
		c.Headless = &oauth.Headless{Grant: oauth.GrantClientCredentials, ClientID: s.ClientID, ClientSecret: c.ClientSecret,
			PrivateKey: key, SigningAlg: s.SigningAlg}
	case key != nil:
		return c, errors.New("a private key authenticates the client credentials, JWT-bearer or enterprise grants: add --client-credentials")
	}
	return c, nil
}

// headless reports whether c runs without a user (nothing to store, no browser).
func headless(c oauth.Config) bool { return c.Headless != nil }

// config returns the OAuth configuration for server. interactive: a user can be sent to the
// authorization URL (the loopback listener it needs is returned; close it when done).
func (a *authFlags) config(server string, interactive bool, stderr io.Writer, logger *slog.Logger) (oauth.Config, *oauth.Loopback, error) {
	c, err := a.settings().oauthConfig(server, logger)
	if err != nil {
		return c, nil, err
	}
	if s, err := oauth.DefaultStore(); err == nil {
		c.Store = s
	} else {
		logger.Warn("OAuth tokens are kept for this run only", "err", err)
	}
	if !interactive || headless(c) {
		return c, nil, nil
	}
	lb, err := oauth.ListenLoopback()
	if err != nil {
		return c, nil, err
	}
	c.RedirectURL = lb.RedirectURL()
	c.Login = lb.Fetcher(func(u string) { showAuthURL(stderr, u) })
	return c, lb, nil
}

// showAuthURL prints the authorization URL and opens it: with $BROWSER if set, else xdg-open
// or open when present. The browser's own output is discarded; a failure to start it is not an
// error (the URL is on the terminal).
func showAuthURL(w io.Writer, u string) {
	fmt.Fprintf(w, "mcpwasm: to authorize, open this URL in a browser:\n\n  %s\n\nWaiting for the redirect…\n", u)
	var opener string
	if b := os.Getenv("BROWSER"); b != "" {
		opener = b
	} else {
		for _, p := range []string{"xdg-open", "open"} {
			if path, err := exec.LookPath(p); err == nil {
				opener = path
				break
			}
		}
	}
	if opener == "" {
		return
	}
	cmd := exec.Command(opener, u)
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

// login runs `mcpwasm login URL`: a fresh authorization of this client at the server (the
// authorization code flow with a loopback redirect, or client credentials), the token stored
// for later client commands and upstreams.
func login(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("login", flag.ContinueOnError)
	fs.SetOutput(stderr)
	af := addAuthFlags(fs)
	timeout := fs.Duration("timeout", 5*time.Minute, "time limit of the whole login, the user's part included")
	logLevel := fs.String("log-level", "warn", "stderr log level: debug, info, warn or error")
	url, code, err := oneURL(fs, args)
	if url == "" {
		return code, err
	}
	hf := hostFlags{logLevel: *logLevel}
	logger, err := hf.logger(stderr)
	if err != nil {
		return ExitUsage, err
	}
	c, lb, err := af.config(url, true, stderr, logger)
	if err != nil {
		return ExitUsage, err
	}
	if lb != nil {
		defer lb.Close()
	}
	if c.Store == nil {
		return ExitError, errors.New("no place to store the token: the user config directory is unknown")
	}
	store := c.Store
	c.Fresh = true // a new grant even if one is stored
	h, err := oauth.NewHandler(c)
	if err != nil {
		return ExitUsage, err
	}
	cctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	sess, err := upstream.Dial(cctx, upstream.Spec{URL: url, OAuth: h, WrapTransport: oauth.WrapTransport(h)}, &upstream.Options{Version: version(),
		Logger: sdkLogger(logger), ConnectTimeout: *timeout})
	if err != nil {
		return ExitError, err
	}
	sess.Close()
	if headless(c) || c.DPoP {
		fmt.Fprintf(stdout, "%s accepts this client's credentials (headless and DPoP-bound tokens are not stored; give the flags to each command)\n", oauth.ResourceKey(url))
		return ExitOK, nil
	}
	if ok, err := store.Has(url); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%s did not ask for authorization; nothing stored", oauth.ResourceKey(url))
		}
		return ExitError, err
	}
	fmt.Fprintf(stdout, "logged in to %s; token stored in %s\n", oauth.ResourceKey(url), store.Path())
	return ExitOK, nil
}

// logout runs `mcpwasm logout URL`: forgets the server's stored token.
func logout(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("logout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url, code, err := oneURL(fs, args)
	if url == "" {
		return code, err
	}
	store, err := oauth.DefaultStore()
	if err != nil {
		return ExitError, err
	}
	had, err := store.Delete(url)
	if err != nil {
		return ExitError, err
	}
	if had {
		fmt.Fprintf(stdout, "logged out of %s\n", oauth.ResourceKey(url))
	} else {
		fmt.Fprintf(stdout, "no token stored for %s\n", oauth.ResourceKey(url))
	}
	return ExitOK, nil
}

// oneURL parses flags and exactly one URL argument (flags may follow it). An empty URL comes
// with the exit code and error to return.
func oneURL(fs *flag.FlagSet, args []string) (string, int, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", ExitUsage, err
	}
	switch {
	case len(pos) == 0:
		return "", ExitUsage, errors.New("missing URL")
	case len(pos) > 1:
		return "", ExitUsage, fmt.Errorf("unexpected argument %q", pos[1])
	}
	if err := checkServerURL(pos[0]); err != nil {
		return "", ExitUsage, err
	}
	return pos[0], ExitOK, nil
}

// checkServerURL refuses what cannot be a Streamable HTTP endpoint: a URL needs http:// or
// https:// and a host ("127.0.0.1:8080/mcp" parses as something else entirely).
func checkServerURL(raw string) error {
	u, err := neturl.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q: want an http:// or https:// URL, e.g. http://127.0.0.1:8080/mcp", raw)
	}
	return nil
}

// clientOAuth returns the OAuth handler of a --url client command (interactive: the user may
// be sent to a browser) and a function that releases what it holds.
func clientOAuth(af *authFlags, url string, stderr io.Writer, logger *slog.Logger) (auth.OAuthHandler, func(), error) {
	c, lb, err := af.config(url, true, stderr, logger)
	if err != nil {
		return nil, nil, err
	}
	done := func() {
		if lb != nil {
			lb.Close()
		}
	}
	h, err := oauth.NewHandler(c)
	if err != nil {
		done()
		return nil, nil, err
	}
	return h, done, nil
}

// upstreamOAuth returns the OAuth handler of url upstream name: no user to ask (a missing or
// unusable token is an error naming `mcpwasm login`), the stored token used and refreshed,
// or client credentials. A configuration it cannot use is logged and leaves the upstream
// without OAuth (nil).
func upstreamOAuth(name string, u config.Upstream, logger *slog.Logger) auth.OAuthHandler {
	var st authSettings
	if o := u.OAuth; o != nil {
		st = authSettings{ClientID: o.ClientID, SecretEnv: o.ClientSecretEnv, SecretFile: o.ClientSecretFile, MetadataURL: o.ClientMetadataURL,
			ClientCredentials: o.ClientCredentials, KeyFile: o.PrivateKeyFile, KeyEnv: o.PrivateKeyEnv, SigningAlg: o.SigningAlg,
			WorkloadTokenFile: o.WorkloadTokenFile, IDTokenFile: o.IDTokenFile, IdPTokenURL: o.IdPTokenURL,
			IdPClientID: o.IdPClientID, IdPSecretEnv: o.IdPClientSecretEnv, DPoP: o.DPoP}
	}
	c, err := st.oauthConfig(u.URL, logger)
	if err != nil {
		logger.Warn("upstream: OAuth is off", "upstream", name, "err", err)
		return nil
	}
	if s, err := oauth.DefaultStore(); err == nil {
		c.Store = s
	} else {
		logger.Warn("upstream: OAuth tokens are kept for this run only", "upstream", name, "err", err)
	}
	h, err := oauth.NewHandler(c)
	if err != nil {
		logger.Warn("upstream: OAuth is off", "upstream", name, "err", err)
		return nil
	}
	return h
}
