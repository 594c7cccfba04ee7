package ship

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// Policy says how a module's Sigstore bundle must verify: with the PEM public key in file Key,
// or keyless — a certificate for exactly Identity (its subject alternative name) issued
// through exactly Issuer (the OIDC issuer extension), chaining to a CA in the Sigstore
// trusted root JSON file TrustedRoot.
type Policy struct {
	Key                           string
	Identity, Issuer, TrustedRoot string
}

// ErrUnsigned is returned by VerifyBundle when a policy applies but no bundle was published.
var ErrUnsigned = errors.New("unsigned: no Sigstore bundle was published with the module")

// ErrSignature is wrapped by every verification failure.
var ErrSignature = errors.New("signature verification failed")

// VerifyBundle checks that bundleJSON (a Sigstore bundle, v0.1–v0.3) is a valid signature of
// wasm (a message signature over the module's bytes) under p. A nil bundle is ErrUnsigned.
//
// Keyless: with transparency logs in the trusted root, the bundle must carry a log entry
// (inclusion proof) and the certificate must have been valid when it was logged; with none,
// the certificate must be valid now (a private CA without Rekor).
func VerifyBundle(p Policy, wasm, bundleJSON []byte) error {
	if bundleJSON == nil {
		return ErrUnsigned
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return fmt.Errorf("%w: bundle: %w", ErrSignature, err)
	}
	var v *verify.Verifier
	var policy verify.PolicyBuilder
	var err error
	switch {
	case p.Key != "":
		pemBytes, err := os.ReadFile(p.Key)
		if err != nil {
			return fmt.Errorf("signature policy: %w", err)
		}
		pub, err := cryptoutils.UnmarshalPEMToPublicKey(pemBytes)
		if err != nil {
			return fmt.Errorf("signature policy: key %s: %w", p.Key, err)
		}
		sv, err := signature.LoadVerifier(pub, crypto.SHA256)
		if err != nil {
			return fmt.Errorf("signature policy: key %s: %w", p.Key, err)
		}
		key := root.NewExpiringKey(sv, time.Time{}, time.Time{})
		tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) { return key, nil })
		if v, err = verify.NewVerifier(tm, verify.WithNoObserverTimestamps()); err != nil {
			return fmt.Errorf("signature policy: %w", err)
		}
		policy = verify.NewPolicy(verify.WithArtifact(bytes.NewReader(wasm)), verify.WithKey())
	default:
		tr, err := root.NewTrustedRootFromPath(p.TrustedRoot)
		if err != nil {
			return fmt.Errorf("signature policy: trusted root: %w", err)
		}
		opts := []verify.VerifierOption{verify.WithCurrentTime()}
		if len(tr.RekorLogs()) > 0 {
			opts = []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1)}
		}
		if v, err = verify.NewVerifier(tr, opts...); err != nil {
			return fmt.Errorf("signature policy: %w", err)
		}
		id, err := verify.NewShortCertificateIdentity(p.Issuer, "", p.Identity, "")
		if err != nil {
			return fmt.Errorf("signature policy: %w", err)
		}
		policy = verify.NewPolicy(verify.WithArtifact(bytes.NewReader(wasm)), verify.WithCertificateIdentity(id))
	}
	if _, err = v.Verify(&b, policy); err != nil {
		return fmt.Errorf("%w: %w", ErrSignature, err)
	}
	return nil
}
