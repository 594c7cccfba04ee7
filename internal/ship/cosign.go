package ship

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
)

// cosign's older ("legacy") signature layout, still what `cosign sign` writes without the new
// bundle format (cosign v1, v2): a manifest tagged sha256-<manifest hex>.sig in the image's
// repository, each layer a "simple signing" payload that names the signed manifest's digest,
// the signature and its certificate in the layer's annotations.
const (
	// MediaTypeSimpleSigning is the media type of a cosign signature layer: the payload
	// {"critical":{"identity":{"docker-reference":…},"image":{"docker-manifest-digest":…},
	// "type":"cosign container image signature"},"optional":…}.
	MediaTypeSimpleSigning = "application/vnd.dev.cosign.simplesigning.v1+json"
	// Layer annotations: the base64 signature over the payload, the signing certificate and
	// its chain (PEM), and Rekor's entry for it (SignedEntryTimestamp and the entry).
	AnnotationCosignSignature   = "dev.cosignproject.cosign/signature"
	AnnotationCosignCertificate = "dev.sigstore.cosign/certificate"
	AnnotationCosignChain       = "dev.sigstore.cosign/chain"
	AnnotationCosignBundle      = "dev.sigstore.cosign/bundle"
	// simpleSigningType is critical.type of a cosign image signature payload.
	simpleSigningType = "cosign container image signature"
	// maxCosignLayers bounds how many signature layers of one .sig manifest are tried.
	maxCosignLayers = 16
	// maxPayloadBytes caps a simple-signing payload.
	maxPayloadBytes = 64 << 10
)

// CosignSigTag is the tag cosign's legacy layout stores the signatures of manifest digest d
// ("sha256:…") under: "sha256-….sig".
func CosignSigTag(d string) string { return strings.Replace(d, ":", "-", 1) + ".sig" }

// simpleSigning is the part of a simple-signing payload Verify reads.
type simpleSigning struct {
	Critical struct {
		Image struct {
			DockerManifestDigest string `json:"docker-manifest-digest"`
		} `json:"image"`
		Type string `json:"type"`
	} `json:"critical"`
}

// rekorBundle is cosign's dev.sigstore.cosign/bundle annotation: a Rekor entry with its
// signed entry timestamp (an inclusion promise).
type rekorBundle struct {
	SignedEntryTimestamp []byte `json:"SignedEntryTimestamp"`
	Payload              struct {
		Body           string `json:"body"` // base64 canonicalized entry
		IntegratedTime int64  `json:"integratedTime"`
		LogIndex       int64  `json:"logIndex"`
		LogID          string `json:"logID"` // hex
	} `json:"Payload"`
}

// legacySignatures returns cosign's tag signatures of the manifests (each a candidate for
// Verify: Bundle, a Sigstore bundle v0.1 rebuilt from the layer's annotations, and Payload,
// the simple-signing payload it signs). None found is nil, nil; only malformed layers (bad
// annotations) is an ErrSignature naming the first.
func (c *Client) legacySignatures(ctx context.Context, repo *remote.Repository, manifests []string) ([]Signed, error) {
	var out []Signed
	var bad error
	for _, d := range manifests {
		tag := CosignSigTag(d)
		desc, rc, err := repo.FetchReference(ctx, tag)
		if errors.Is(err, errdef.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cosign signature tag %s: %w", tag, err)
		}
		raw, err := readDescribed(rc, desc, maxManifestBytes)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("cosign signature tag %s: %w", tag, err)
		}
		var m wasmManifest
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("cosign signature tag %s: %w", tag, err)
		}
		n := 0
		for _, l := range m.Layers {
			if l.MediaType != MediaTypeSimpleSigning || n == maxCosignLayers {
				continue
			}
			n++
			payload, err := fetchDescribed(ctx, repo, l, maxPayloadBytes)
			if err != nil {
				return nil, fmt.Errorf("cosign signature tag %s: payload: %w", tag, err)
			}
			b, err := legacyBundle(l, payload)
			if err != nil {
				// A malformed signature is a failed one; another layer may still verify.
				if bad == nil {
					bad = fmt.Errorf("%w: cosign signature tag %s: layer %s: %w", ErrSignature, tag, l.Digest, err)
				}
				continue
			}
			out = append(out, Signed{Bundle: b, Payload: payload})
		}
	}
	if len(out) == 0 && bad != nil {
		return nil, bad
	}
	return out, nil
}

// legacyBundle rebuilds a Sigstore bundle (v0.1: a message signature over payload, with the
// certificate chain or a key hint, and Rekor's inclusion promise if cosign kept one) from a
// cosign signature layer's annotations, so one verifier (sigstore-go) checks both layouts.
func legacyBundle(l ocispec.Descriptor, payload []byte) ([]byte, error) {
	sig, err := base64.StdEncoding.DecodeString(l.Annotations[AnnotationCosignSignature])
	if err != nil || len(sig) == 0 {
		return nil, fmt.Errorf("annotation %s: not a base64 signature", AnnotationCosignSignature)
	}
	vm := &protobundle.VerificationMaterial{Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{}}}
	if certPEM := l.Annotations[AnnotationCosignCertificate]; certPEM != "" {
		var chain []*protocommon.X509Certificate
		rest := []byte(certPEM + "\n" + l.Annotations[AnnotationCosignChain])
		for {
			var blk *pem.Block
			if blk, rest = pem.Decode(rest); blk == nil {
				break
			}
			chain = append(chain, &protocommon.X509Certificate{RawBytes: blk.Bytes})
		}
		if len(chain) == 0 {
			return nil, fmt.Errorf("annotation %s: no PEM certificate", AnnotationCosignCertificate)
		}
		vm.Content = &protobundle.VerificationMaterial_X509CertificateChain{X509CertificateChain: &protocommon.X509CertificateChain{Certificates: chain}}
	}
	if rb := l.Annotations[AnnotationCosignBundle]; rb != "" {
		var r rekorBundle
		if err := json.Unmarshal([]byte(rb), &r); err != nil {
			return nil, fmt.Errorf("annotation %s: %w", AnnotationCosignBundle, err)
		}
		body, err := base64.StdEncoding.DecodeString(r.Payload.Body)
		if err != nil {
			return nil, fmt.Errorf("annotation %s: body: %w", AnnotationCosignBundle, err)
		}
		logID, err := hex.DecodeString(r.Payload.LogID)
		if err != nil {
			return nil, fmt.Errorf("annotation %s: logID: %w", AnnotationCosignBundle, err)
		}
		var kind struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := json.Unmarshal(body, &kind); err != nil {
			return nil, fmt.Errorf("annotation %s: entry: %w", AnnotationCosignBundle, err)
		}
		vm.TlogEntries = []*protorekor.TransparencyLogEntry{{
			LogIndex:          r.Payload.LogIndex,
			LogId:             &protocommon.LogId{KeyId: logID},
			KindVersion:       &protorekor.KindVersion{Kind: kind.Kind, Version: kind.APIVersion},
			IntegratedTime:    r.Payload.IntegratedTime,
			InclusionPromise:  &protorekor.InclusionPromise{SignedEntryTimestamp: r.SignedEntryTimestamp},
			CanonicalizedBody: body,
		}}
	}
	d := sha256.Sum256(payload)
	b, err := bundle.NewBundle(&protobundle.Bundle{
		MediaType:            "application/vnd.dev.sigstore.bundle+json;version=0.1",
		VerificationMaterial: vm,
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: d[:]}, Signature: sig}},
	})
	if err != nil {
		return nil, err
	}
	return b.MarshalJSON()
}

// ociSignatures returns the signature candidates of an OCI module read from desc (named by
// index, if not ""): the Sigstore bundle referrers (ociBundles) if there are any, else
// cosign's legacy tag signatures. looked names every place searched, for the unsigned message.
func (c *Client) ociSignatures(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, index string) (cands []Signed, looked string, err error) {
	ms := manifests(desc, index)
	tags := make([]string, len(ms))
	for i, m := range ms {
		tags[i] = CosignSigTag(m)
	}
	looked = referrersLooked(desc, index) + ", and cosign signature tags " + strings.Join(tags, " and ")
	bs, err := c.ociBundles(ctx, repo, desc, index)
	if err != nil {
		return nil, looked, err
	}
	if len(bs) > 0 {
		for _, b := range bs {
			cands = append(cands, Signed{Bundle: b})
		}
		return cands, looked, nil
	}
	cands, err = c.legacySignatures(ctx, repo, ms)
	return cands, looked, err
}

// verifyOCI checks module (read from desc, named by index) under verify against the
// candidates: the first that verifies wins, and its bundle is returned to keep if it is a
// referrer's (a legacy signature also needs its payload, so it is not kept). With none that
// verifies, the first candidate's error is returned; with none at all, the policy's verdict
// on an unsigned module (ErrUnsigned, naming where it looked).
func verifyOCI(verify Verifier, module []byte, desc ocispec.Descriptor, index string, cands []Signed, looked string) ([]byte, error) {
	if len(cands) == 0 {
		return nil, verify(Signed{Module: module, Manifests: manifests(desc, index), Looked: looked})
	}
	var first error
	for _, s := range cands {
		s.Module, s.Manifests, s.Looked = module, manifests(desc, index), looked
		err := verify(s)
		if err == nil {
			if s.Payload != nil {
				return nil, nil
			}
			return s.Bundle, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}
