package main

import (
	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/ship"
)

// verifySignature checks bundle (nil: none was published) against policy p for wasm.
func verifySignature(p *config.Signature, wasm, bundle []byte) error {
	return ship.VerifyBundle(ship.Policy{Key: p.Key, Identity: p.Identity, Issuer: p.Issuer, TrustedRoot: p.TrustedRoot}, wasm, bundle)
}
