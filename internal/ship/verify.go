package ship

import (
	"bytes"
	"crypto"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
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

// ErrUnsigned is returned by Verify when a policy applies but no signature was published (no
// Sigstore bundle, and for an OCI source no cosign signature tag either).
var ErrUnsigned = errors.New("unsigned: no signature was published with the module")

// ErrSignature is wrapped by every verification failure.
var ErrSignature = errors.New("signature verification failed")

// PredicateCosignSign is the in-toto predicate type of cosign v3's image signature (`cosign
// sign` with the new bundle format, cosign v3's default): a DSSE envelope whose in-toto
// statement names the signed manifest's digest as its subject, with an empty predicate.
const PredicateCosignSign = "https://sigstore.dev/cosign/sign/v1"

// Signed is what a Verifier checks: a module, the Sigstore bundle published with it, and for
// an OCI source the manifests it was taken from.
type Signed struct {
	// Module is the module's bytes.
	Module []byte
	// Bundle is the Sigstore bundle found (nil: none was published).
	Bundle []byte
	// Manifests are the digests ("sha256:…") of the manifests the module was read from, as
	// fetched and checked: the image (or artifact) manifest whose layer is the module, then
	// the index that named it, if any. Empty for a URL source.
	Manifests []string
	// Looked names where a signature was looked for, for the message when none was found.
	Looked string
	// Payload, if set, is the cosign simple-signing payload Bundle's message signature is
	// over (cosign's legacy sha256-….sig layout): it must name one of Manifests.
	Payload []byte
}

// VerifyBundle checks that bundleJSON (a Sigstore bundle, v0.1–v0.3) is a valid message
// signature of wasm (over the module's bytes) under p. A nil bundle is ErrUnsigned.
func VerifyBundle(p Policy, wasm, bundleJSON []byte) error {
	return Verify(p, Signed{Module: wasm, Bundle: bundleJSON})
}

// Verify checks s under p. s.Bundle is either a message signature over the module's bytes
// (mcpwasm sign, cosign sign-blob), or — for an OCI source — cosign v3's image signature: a
// DSSE envelope holding an in-toto statement of predicate type PredicateCosignSign whose
// subject is the digest of one of s.Manifests (the module is bound to that manifest by its
// layer digest, checked when the layer is stored); or, with s.Payload set, a message
// signature over cosign's legacy simple-signing payload, which must name one of s.Manifests.
// A nil bundle is ErrUnsigned; a signature naming another digest is ErrDigest (and
// ErrSignature).
//
// Keyless: with transparency logs in the trusted root, the bundle must carry a log entry
// (an inclusion proof, or for a legacy signature Rekor's signed entry timestamp) and the
// certificate must have been valid when it was logged; with none,
// the certificate must be valid now (a private CA without Rekor).
func Verify(p Policy, s Signed) error {
	if s.Bundle == nil {
		if s.Looked != "" {
			return fmt.Errorf("%w (looked for %s)", ErrUnsigned, s.Looked)
		}
		return ErrUnsigned
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(s.Bundle); err != nil {
		return fmt.Errorf("%w: bundle: %w", ErrSignature, err)
	}
	artifact := verify.WithArtifact(bytes.NewReader(s.Module))
	if s.Payload != nil {
		// cosign's legacy layout: the signature is over a payload naming the manifest.
		var ss simpleSigning
		if err := json.Unmarshal(s.Payload, &ss); err != nil {
			return fmt.Errorf("%w: cosign payload: %w", ErrSignature, err)
		}
		if ss.Critical.Type != simpleSigningType {
			return fmt.Errorf("%w: cosign payload: critical.type is %q, not %q", ErrSignature, ss.Critical.Type, simpleSigningType)
		}
		if !slices.Contains(s.Manifests, ss.Critical.Image.DockerManifestDigest) {
			return fmt.Errorf("%w: %w: the cosign signature is of %s, the manifest fetched is %s", ErrSignature, ErrDigest, ss.Critical.Image.DockerManifestDigest, fetchedManifests(s.Manifests))
		}
		artifact = verify.WithArtifact(bytes.NewReader(s.Payload))
	} else if env, err := b.Envelope(); err == nil {
		// cosign v3: the statement's subject is a manifest digest, not the module's.
		st, err := env.Statement()
		if err != nil {
			return fmt.Errorf("%w: DSSE envelope: %w", ErrSignature, err)
		}
		if st.GetPredicateType() != PredicateCosignSign {
			return fmt.Errorf("%w: the bundle is an attestation of predicate type %q, not a cosign signature (%s)", ErrSignature, st.GetPredicateType(), PredicateCosignSign)
		}
		var subjects []string
		for _, sub := range st.GetSubject() {
			if h := sub.GetDigest()["sha256"]; h != "" {
				subjects = append(subjects, "sha256:"+h)
			}
		}
		i := slices.IndexFunc(s.Manifests, func(m string) bool { return slices.Contains(subjects, m) })
		if i < 0 {
			if len(s.Manifests) == 0 {
				return fmt.Errorf("%w: a cosign image signature (of %s) signs an OCI manifest, and this module was not fetched from one", ErrSignature, strings.Join(subjects, ", "))
			}
			return fmt.Errorf("%w: %w: the cosign signature is of %s, the manifest fetched is %s", ErrSignature, ErrDigest, strings.Join(subjects, ", "), fetchedManifests(s.Manifests))
		}
		h, err := hex.DecodeString(strings.TrimPrefix(s.Manifests[i], "sha256:"))
		if err != nil {
			return fmt.Errorf("%w: manifest digest %s: %w", ErrSignature, s.Manifests[i], err)
		}
		artifact = verify.WithArtifactDigest("sha256", h)
	}
	var v *verify.Verifier
	var policy verify.PolicyBuilder
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
		policy = verify.NewPolicy(artifact, verify.WithKey())
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
		policy = verify.NewPolicy(artifact, verify.WithCertificateIdentity(id))
	}
	if _, err := v.Verify(&b, policy); err != nil {
		return fmt.Errorf("%w: %w", ErrSignature, err)
	}
	return nil
}

// fetchedManifests names the manifests a module was read from, for a digest mismatch.
func fetchedManifests(ms []string) string {
	if len(ms) == 0 {
		return "none (not an OCI source)"
	}
	if len(ms) > 1 {
		return ms[0] + " (of index " + ms[1] + ")"
	}
	return ms[0]
}
