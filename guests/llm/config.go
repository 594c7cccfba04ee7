package main

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// The environment variables that configure the endpoint. The guest sees only what the
// operator's env grant passes ("NAME" passes the server's value, "NAME=value" sets one).
const (
	EnvBaseURL = "MCPWASM_LLM_BASE_URL"
	EnvModel   = "MCPWASM_LLM_MODEL"
	EnvAPIKey  = "MCPWASM_LLM_API_KEY"
)

// Config is the endpoint configuration.
type Config struct {
	BaseURL string // without a trailing slash
	Model   string
	APIKey  string // empty: no Authorization header (local servers)
}

// lookupEnv reads the guest's environment; tests replace it.
var lookupEnv = os.LookupEnv

// NotConfiguredError names the required variables the guest's environment lacks.
type NotConfiguredError struct{ Missing []string }

func (e *NotConfiguredError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, name := range e.Missing {
		parts[i] = fmt.Sprintf("env %q is not granted or not set (grant it in the guest's \"env\" grant and set it where mcpwasm serve runs)", name)
	}
	return "the model endpoint is not configured: " + strings.Join(parts, "; ") +
		`. An "env" entry "NAME" passes the server's value (a variable the server's environment lacks stays missing); "NAME=value" sets one. ` +
		`mcpwasm call passes a server it spawns only a minimal environment: add --env NAME for each.`
}

// LoadConfig reads the configuration from the environment. Required variables that are
// missing or empty give a *NotConfiguredError naming all of them; a base URL that is not an
// http(s) URL is an error naming the variable.
func LoadConfig() (Config, error) {
	var missing []string
	get := func(name string, required bool) string {
		v, _ := lookupEnv(name)
		v = strings.TrimSpace(v)
		if v == "" && required {
			missing = append(missing, name)
		}
		return v
	}
	c := Config{BaseURL: get(EnvBaseURL, true), Model: get(EnvModel, true), APIKey: get(EnvAPIKey, false)}
	if len(missing) > 0 {
		return Config{}, &NotConfiguredError{Missing: missing}
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return Config{}, fmt.Errorf("env %q is %q: want an http or https base URL such as https://api.openai.com/v1 (the guest appends /chat/completions)", EnvBaseURL, c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c, nil
}
