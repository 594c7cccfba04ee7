package main

import (
	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/ship"
)

// verifySignature checks sig (its bundle nil: none was published) against policy p.
func verifySignature(p *config.Signature, sig ship.Signed) error {
	return ship.Verify(ship.Policy{Key: p.Key, Identity: p.Identity, Issuer: p.Issuer, TrustedRoot: p.TrustedRoot}, sig)
}
