package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	neturl "net/url"
	"os"
	"os/exec"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/oauth"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// authFlags are the OAuth flags of the --url client commands and of login.
type authFlags struct {
	clientID, secretEnv, metadataURL *string
	credentials                      *bool
}

func addAuthFlags(fs *flag.FlagSet) *authFlags {
	return &authFlags{
		clientID:    fs.String("client-id", "", "OAuth: a pre-registered client ID (default: a client ID metadata document or dynamic registration)"),
		secretEnv:   fs.String("client-secret-env", "", "OAuth: the environment variable holding the pre-registered client's secret"),
		metadataURL: fs.String("client-metadata-url", "", "OAuth: this client's client ID metadata document (https URL), used where the authorization server supports them"),
		credentials: fs.Bool("client-credentials", false, "OAuth: use the client credentials grant (needs --client-id and --client-secret-env)"),
	}
}

// config returns the OAuth configuration for server. interactive: a user can be sent to the
// authorization URL (the loopback listener it needs is returned; close it when done).
func (a *authFlags) config(server string, interactive bool, stderr io.Writer, logger *slog.Logger) (oauth.Config, *oauth.Loopback, error) {
	c := oauth.Config{Server: server, ClientID: *a.clientID, ClientMetadataURL: *a.metadataURL,
		ClientCredentials: *a.credentials, Logger: logger}
	if *a.secretEnv != "" {
		v, ok := os.LookupEnv(*a.secretEnv)
		if !ok || v == "" {
			return c, nil, fmt.Errorf("--client-secret-env: %s is not set", *a.secretEnv)
		}
		c.ClientSecret = v
	}
	if c.ClientCredentials && (c.ClientID == "" || c.ClientSecret == "") {
		return c, nil, errors.New("--client-credentials needs --client-id and --client-secret-env")
	}
	if s, err := oauth.DefaultStore(); err == nil {
		c.Store = s
	} else {
		logger.Warn("OAuth tokens are kept for this run only", "err", err)
	}
	if !interactive || c.ClientCredentials {
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
	sess, err := upstream.Dial(cctx, upstream.Spec{URL: url, OAuth: h}, &upstream.Options{Version: version(),
		Logger: sdkLogger(logger), ConnectTimeout: *timeout})
	if err != nil {
		return ExitError, err
	}
	sess.Close()
	if c.ClientCredentials {
		fmt.Fprintf(stdout, "%s accepts this client's credentials (client credentials are not stored; give them to each command)\n", oauth.ResourceKey(url))
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
	c := oauth.Config{Server: u.URL, Logger: logger}
	if o := u.OAuth; o != nil {
		c.ClientID, c.ClientCredentials, c.ClientMetadataURL = o.ClientID, o.ClientCredentials, o.ClientMetadataURL
		if o.ClientSecretEnv != "" {
			c.ClientSecret = os.Getenv(o.ClientSecretEnv)
			if c.ClientSecret == "" {
				logger.Warn("upstream: OAuth client secret variable is not set", "upstream", name, "variable", o.ClientSecretEnv)
			}
		}
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
