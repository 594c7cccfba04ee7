package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpwasm/mcpwasm/internal/schemaerr"
)

// Ship holds the configuration of fetching guests from URLs and registries (internal/ship).
type Ship struct {
	// PlainHTTP names hosts (host or host:port) that may be reached over plain http.
	PlainHTTP []string `json:"plain_http,omitempty"`
	// Signatures is the Sigstore policy per registry or URL host.
	Signatures map[string]*Signature `json:"signatures,omitempty"`
}

// Signature is a Sigstore verification policy: Key (a PEM public key file), or keyless with
// Identity, Issuer and TrustedRoot (a Sigstore trusted root JSON file).
type Signature struct {
	Key         string `json:"key,omitempty"`
	Identity    string `json:"identity,omitempty"`
	Issuer      string `json:"issuer,omitempty"`
	TrustedRoot string `json:"trusted_root,omitempty"`
}

// Check reports a policy that is neither key-based nor complete keyless.
func (s *Signature) Check() error {
	keyless := s.Identity != "" || s.Issuer != "" || s.TrustedRoot != ""
	switch {
	case s.Key != "" && keyless:
		return errors.New("give \"key\" or \"identity\"+\"issuer\"+\"trusted_root\", not both")
	case s.Key == "" && (s.Identity == "" || s.Issuer == "" || s.TrustedRoot == ""):
		return errors.New("keyless needs \"identity\", \"issuer\" and \"trusted_root\"")
	}
	return nil
}

// SignaturePolicy returns the policy for guest g fetched from host: g's own, else the
// registry's, else nil. File names in it are resolved against the config's directory.
func (c *Config) SignaturePolicy(g Guest, host string) *Signature {
	p := g.Signature
	if p == nil {
		p = c.Signatures[host]
	}
	if p == nil {
		return nil
	}
	r := *p
	if r.Key != "" {
		r.Key = c.resolve(r.Key)
	}
	if r.TrustedRoot != "" {
		r.TrustedRoot = c.resolve(r.TrustedRoot)
	}
	return &r
}

// checkShip validates the shipping keys after decoding (among config.go's checks across
// fields).
func (c *Config) checkShip(p *problems) {
	for _, host := range slices.Sorted(maps.Keys(c.Signatures)) {
		path := schemaerr.Child("signatures", host)
		if p.broken(path) {
			continue
		}
		if err := c.Signatures[host].Check(); err != nil {
			p.at(path, "%w", err)
		}
	}
	for i, g := range c.Guests {
		path := fmt.Sprintf("guests[%d].signature", i)
		if g.Signature == nil || p.broken(path) {
			continue
		}
		if err := g.Signature.Check(); err != nil {
			p.at(path, "%w", err)
		}
	}
}
