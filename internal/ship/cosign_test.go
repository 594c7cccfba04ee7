package ship_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/mcpwasm/mcpwasm/internal/ship"
	"github.com/mcpwasm/mcpwasm/internal/ship/shiptest"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// TestFetchCosignV3Signatures: a hyper-mcp plugin signed by manifest digest with cosign v3's
// bundle format (a DSSE in-toto statement whose subject is the manifest, attached as an OCI
// referrer) is accepted under the key or keyless policy; a signature of another digest, a
// tampered statement, an attestation that is not a signature, another signer and no
// signature are refused, naming what failed, and nothing is stored.
func TestFetchCosignV3Signatures(t *testing.T) {
	ctx := context.Background()
	reg := newRegistry(t, "", "")
	repo := rawRepo(t, reg, "hyper-mcp-rs/echo-plugin")
	key, kp := keyPolicy(t)
	other, _ := keyPolicy(t)
	lkey, cert, lp := keylessPolicy(t)

	// Each tag is its own artifact (the annotation makes the manifests differ), so each has
	// its own referrers.
	plugin := func(tag string) ocispec.Descriptor {
		layer := pushBytes(t, repo, "application/wasm", wat.Echo)
		layer.Annotations = map[string]string{ocispec.AnnotationTitle: "plugin.wasm"}
		d, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ship.ArtifactTypeHyperMCP,
			oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}, ManifestAnnotations: map[string]string{"tag": tag}})
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.Tag(ctx, d, tag); err != nil {
			t.Fatal(err)
		}
		return d
	}
	name := reg.host + "/hyper-mcp-rs/echo-plugin"
	stmt := func(d ocispec.Descriptor) []byte {
		return shiptest.CosignStatement(t, name, d.Digest.String(), ship.PredicateCosignSign)
	}

	keySigned := plugin("key")
	shiptest.AttachCosignBundle(t, repo, keySigned, ship.PredicateCosignSign, shiptest.DSSEBundle(t, key, nil, stmt(keySigned), nil))
	keylessSigned := plugin("keyless")
	shiptest.AttachCosignBundle(t, repo, keylessSigned, ship.PredicateCosignSign, shiptest.DSSEBundle(t, lkey, cert, stmt(keylessSigned), nil))
	// cosign v3 attaches attestations as bundles too: the signature is the one taken.
	withSBOM := plugin("with-sbom")
	shiptest.AttachCosignBundle(t, repo, withSBOM, "https://cyclonedx.org/bom",
		shiptest.DSSEBundle(t, key, nil, shiptest.CosignStatement(t, name, withSBOM.Digest.String(), "https://cyclonedx.org/bom"), nil))
	shiptest.AttachCosignBundle(t, repo, withSBOM, ship.PredicateCosignSign, shiptest.DSSEBundle(t, key, nil, stmt(withSBOM), nil))
	sbomOnly := plugin("sbom-only")
	shiptest.AttachCosignBundle(t, repo, sbomOnly, "https://cyclonedx.org/bom",
		shiptest.DSSEBundle(t, key, nil, shiptest.CosignStatement(t, name, sbomOnly.Digest.String(), "https://cyclonedx.org/bom"), nil))
	// Two signers; the policy's is the second.
	twoSigners := plugin("two-signers")
	shiptest.AttachCosignBundle(t, repo, twoSigners, ship.PredicateCosignSign, shiptest.DSSEBundle(t, other, nil, stmt(twoSigners), nil))
	shiptest.AttachCosignBundle(t, repo, twoSigners, ship.PredicateCosignSign, shiptest.DSSEBundle(t, key, nil, stmt(twoSigners), nil))
	// A valid signature of another manifest, attached to this one.
	otherDigest := plugin("other-digest")
	shiptest.AttachCosignBundle(t, repo, otherDigest, ship.PredicateCosignSign, shiptest.DSSEBundle(t, key, nil, stmt(keySigned), nil))
	// A signature of another manifest whose statement was rewritten to name this one.
	tampered := plugin("tampered")
	shiptest.AttachCosignBundle(t, repo, tampered, ship.PredicateCosignSign, shiptest.DSSEBundle(t, key, nil, stmt(keySigned), stmt(tampered)))
	otherKey := plugin("other-key")
	shiptest.AttachCosignBundle(t, repo, otherKey, ship.PredicateCosignSign, shiptest.DSSEBundle(t, other, nil, stmt(otherKey), nil))
	unsigned := plugin("unsigned")

	// hyper-mcp's release signs the multi-arch index by digest: the image it resolves to is
	// covered by the index's signature.
	index := pushImage(t, repo, "index", false, tarLayer(t, "plugin.wasm", string(wat.Echo)))
	indexDesc, err := repo.Resolve(ctx, "index")
	if err != nil {
		t.Fatal(err)
	}
	shiptest.AttachCosignBundle(t, repo, indexDesc, ship.PredicateCosignSign, shiptest.DSSEBundle(t, key, nil, stmt(indexDesc), nil))

	for _, tc := range []struct {
		tag     string
		p       ship.Policy
		want    ocispec.Descriptor // the manifest Resolved names, when accepted
		wantIs  []error
		wantMsg string
	}{
		{tag: "key", p: kp, want: keySigned},
		{tag: "keyless", p: lp, want: keylessSigned},
		{tag: "with-sbom", p: kp, want: withSBOM},
		{tag: "index", p: kp, want: index},
		{tag: "keyless", p: kp, wantIs: []error{ship.ErrSignature}},
		{tag: "key", p: lp, wantIs: []error{ship.ErrSignature}},
		{tag: "other-key", p: kp, wantIs: []error{ship.ErrSignature}},
		{tag: "sbom-only", p: kp, wantIs: []error{ship.ErrUnsigned}},
		{tag: "two-signers", p: kp, want: twoSigners},
		{tag: "other-digest", p: kp, wantIs: []error{ship.ErrSignature, ship.ErrDigest},
			wantMsg: "the cosign signature is of " + keySigned.Digest.String() + ", the manifest fetched is " + otherDigest.Digest.String()},
		{tag: "tampered", p: kp, wantIs: []error{ship.ErrSignature}},
		{tag: "unsigned", p: kp, wantIs: []error{ship.ErrUnsigned},
			wantMsg: "looked for OCI referrers of type " + ship.MediaTypeBundle + " of " + unsigned.Digest.String()},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			store, dir := newStore(t)
			c := ship.NewClient(store, &ship.Options{TLS: reg.tls, DockerConfig: emptyDockerConfig(t)})
			src := mustSource(t, "oci://"+name+":"+tc.tag)
			p := tc.p
			f, err := c.Fetch(ctx, src, "", func(s ship.Signed) error { return ship.Verify(p, s) })
			expectSignedFetch(t, f, err, tc.want, tc.wantIs, tc.wantMsg, dir)
		})
	}
}

// A cosign image signature signs a manifest: it does not vouch for a module fetched by URL;
// and a signed attestation of the manifest (an SBOM) is not a signature of it.
func TestVerifyCosignBundleNeedsManifest(t *testing.T) {
	key, kp := keyPolicy(t)
	d := "sha256:" + hexOf(wat.Echo)
	b := shiptest.DSSEBundle(t, key, nil, shiptest.CosignStatement(t, "x", d, ship.PredicateCosignSign), nil)
	err := ship.Verify(kp, ship.Signed{Module: wat.Echo, Bundle: b})
	if !errors.Is(err, ship.ErrSignature) || !strings.Contains(err.Error(), "signs an OCI manifest, and this module was not fetched from one") {
		t.Fatalf("Verify = %v", err)
	}
	if err := ship.Verify(kp, ship.Signed{Module: wat.Echo, Bundle: b, Manifests: []string{d}}); err != nil {
		t.Fatalf("Verify of the manifest = %v", err)
	}
	sbom := shiptest.DSSEBundle(t, key, nil, shiptest.CosignStatement(t, "x", d, "https://cyclonedx.org/bom"), nil)
	err = ship.Verify(kp, ship.Signed{Module: wat.Echo, Bundle: sbom, Manifests: []string{d}})
	if !errors.Is(err, ship.ErrSignature) || !strings.Contains(err.Error(), `the bundle is an attestation of predicate type "https://cyclonedx.org/bom", not a cosign signature`) {
		t.Fatalf("Verify of an SBOM = %v", err)
	}
}

// simpleSigningPayload is the payload cosign's legacy layout signs for IMAGE@DIGEST.
func simpleSigningPayload(name, manifestDigest, typ string) []byte {
	return []byte(fmt.Sprintf(`{"critical":{"identity":{"docker-reference":%q},"image":{"docker-manifest-digest":%q},"type":%q},"optional":null}`,
		name, manifestDigest, typ))
}

// legacyLayer is one cosign signature layer: the payload shown (pushed as the layer) and the
// annotations of a signature by key over signed (the same payload unless tampered), with the
// certificate if keyless.
type legacyLayer struct {
	key           *ecdsa.PrivateKey
	cert          *x509.Certificate
	signed, shown []byte
}

// pushLegacySignature pushes cosign's legacy signature manifest of subject: tagged
// sha256-<hex>.sig, one simple-signing layer per signature.
func pushLegacySignature(t *testing.T, repo *remote.Repository, subject ocispec.Descriptor, layers ...legacyLayer) {
	t.Helper()
	var ls []ocispec.Descriptor
	for _, l := range layers {
		d := sha256.Sum256(l.signed)
		sig, err := ecdsa.SignASN1(rand.Reader, l.key, d[:])
		if err != nil {
			t.Fatal(err)
		}
		shown := l.shown
		if shown == nil {
			shown = l.signed
		}
		desc := pushBytes(t, repo, ship.MediaTypeSimpleSigning, shown)
		desc.Annotations = map[string]string{ship.AnnotationCosignSignature: base64.StdEncoding.EncodeToString(sig)}
		if l.cert != nil {
			desc.Annotations[ship.AnnotationCosignCertificate] = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: l.cert.Raw}))
		}
		ls = append(ls, desc)
	}
	cfg := pushBytes(t, repo, ocispec.MediaTypeImageConfig, []byte(`{"architecture":"","os":"","rootfs":{"type":"layers","diff_ids":[]},"config":{}}`))
	pushManifest(t, repo, ship.CosignSigTag(subject.Digest.String()), ocispec.MediaTypeImageManifest,
		map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "config": cfg, "layers": ls})
}

// TestFetchCosignLegacySignatures: cosign's sha256-<digest>.sig tag signatures of a hyper-mcp
// plugin (both layouts) verify under the key or keyless policy; a payload naming another
// digest, a tampered payload, another signer and a payload of another type are refused, and
// with several signatures one by the policy's signer is enough.
func TestFetchCosignLegacySignatures(t *testing.T) {
	ctx := context.Background()
	reg := newRegistry(t, "", "")
	repo := rawRepo(t, reg, "hyper-mcp-rs/echo-plugin")
	key, kp := keyPolicy(t)
	other, _ := keyPolicy(t)
	lkey, cert, lp := keylessPolicy(t)
	name := reg.host + "/hyper-mcp-rs/echo-plugin"
	plugin := func(tag string) ocispec.Descriptor {
		layer := pushBytes(t, repo, "application/wasm", wat.Echo)
		d, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ship.ArtifactTypeHyperMCP,
			oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}, ManifestAnnotations: map[string]string{"tag": tag}})
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.Tag(ctx, d, tag); err != nil {
			t.Fatal(err)
		}
		return d
	}
	payload := func(d ocispec.Descriptor) []byte {
		return simpleSigningPayload(name, d.Digest.String(), "cosign container image signature")
	}

	keySigned := plugin("key")
	pushLegacySignature(t, repo, keySigned, legacyLayer{key: key, signed: payload(keySigned)})
	keylessSigned := plugin("keyless")
	pushLegacySignature(t, repo, keylessSigned, legacyLayer{key: lkey, cert: cert, signed: payload(keylessSigned)})
	twoSigners := plugin("two-signers")
	pushLegacySignature(t, repo, twoSigners, legacyLayer{key: other, signed: payload(twoSigners)}, legacyLayer{key: key, signed: payload(twoSigners)})
	otherDigest := plugin("other-digest")
	pushLegacySignature(t, repo, otherDigest, legacyLayer{key: key, signed: payload(keySigned)})
	tampered := plugin("tampered")
	pushLegacySignature(t, repo, tampered, legacyLayer{key: key, signed: payload(keySigned), shown: payload(tampered)})
	otherKey := plugin("other-key")
	pushLegacySignature(t, repo, otherKey, legacyLayer{key: other, signed: payload(otherKey)})
	otherType := plugin("other-type")
	pushLegacySignature(t, repo, otherType, legacyLayer{key: key, signed: simpleSigningPayload(name, otherType.Digest.String(), "something else")})
	unsigned := plugin("unsigned")
	docker := pushImage(t, repo, "docker", true, tarLayer(t, "plugin.wasm", string(wat.Echo)))
	pushLegacySignature(t, repo, docker, legacyLayer{key: key, signed: payload(docker)})

	for _, tc := range []struct {
		tag     string
		p       ship.Policy
		want    ocispec.Descriptor
		wantIs  []error
		wantMsg string
	}{
		{tag: "key", p: kp, want: keySigned},
		{tag: "keyless", p: lp, want: keylessSigned},
		{tag: "two-signers", p: kp, want: twoSigners},
		{tag: "docker", p: kp, want: docker},
		{tag: "keyless", p: kp, wantIs: []error{ship.ErrSignature}},
		{tag: "key", p: lp, wantIs: []error{ship.ErrSignature}},
		{tag: "other-key", p: kp, wantIs: []error{ship.ErrSignature}},
		{tag: "other-digest", p: kp, wantIs: []error{ship.ErrSignature, ship.ErrDigest},
			wantMsg: "the cosign signature is of " + keySigned.Digest.String() + ", the manifest fetched is " + otherDigest.Digest.String()},
		{tag: "tampered", p: kp, wantIs: []error{ship.ErrSignature}},
		{tag: "other-type", p: kp, wantIs: []error{ship.ErrSignature}, wantMsg: `critical.type is "something else"`},
		{tag: "unsigned", p: kp, wantIs: []error{ship.ErrUnsigned},
			wantMsg: "and cosign signature tags " + ship.CosignSigTag(unsigned.Digest.String())},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			store, dir := newStore(t)
			c := ship.NewClient(store, &ship.Options{TLS: reg.tls, DockerConfig: emptyDockerConfig(t)})
			p := tc.p
			f, err := c.Fetch(ctx, mustSource(t, "oci://"+name+":"+tc.tag), "", func(s ship.Signed) error { return ship.Verify(p, s) })
			expectSignedFetch(t, f, err, tc.want, tc.wantIs, tc.wantMsg, dir)
		})
	}
}

// TestFetchCosignLegacyKeylessRekor: a keyless legacy signature carrying Rekor's entry and
// signed entry timestamp (the dev.sigstore.cosign/bundle annotation, as cosign v2 writes it)
// verifies under a trusted root with a transparency log; without the annotation, or with its
// timestamp altered, it is refused.
func TestFetchCosignLegacyKeylessRekor(t *testing.T) {
	ctx := context.Background()
	reg := newRegistry(t, "", "")
	repo := rawRepo(t, reg, "hyper-mcp-rs/echo-plugin")
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	// The virtual log's ID is its hex key ID as bytes; the trusted root file carries raw key
	// IDs, so decode it (else the round trip through JSON names another log).
	logs := vs.RekorLogs()
	for id, l := range logs {
		if l.ID, err = hex.DecodeString(id); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), vs.CTLogs(), vs.TimestampingAuthorities(), logs)
	if err != nil {
		t.Fatal(err)
	}
	trJSON, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	p := ship.Policy{Identity: "dev@example.com", Issuer: "https://issuer.example", TrustedRoot: filepath.Join(t.TempDir(), "trusted_root.json")}
	if err := os.WriteFile(p.TrustedRoot, trJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	name := reg.host + "/hyper-mcp-rs/echo-plugin"
	layer := pushBytes(t, repo, "application/wasm", wat.Echo)
	push := func(tag string, annotate func(map[string]string)) {
		m, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ship.ArtifactTypeHyperMCP,
			oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}, ManifestAnnotations: map[string]string{"tag": tag}})
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.Tag(ctx, m, tag); err != nil {
			t.Fatal(err)
		}
		payload := simpleSigningPayload(name, m.Digest.String(), "cosign container image signature")
		e, err := vs.Sign("dev@example.com", "https://issuer.example", payload)
		if err != nil {
			t.Fatal(err)
		}
		vc, _ := e.VerificationContent()
		sc, _ := e.SignatureContent()
		entries, _ := e.TlogEntries()
		tle := entries[0].TransparencyLogEntry()
		// Rekor's signed entry timestamp over the entry, as the log returns it to cosign.
		set, err := vs.RekorSignPayload(tlog.RekorPayload{Body: base64.StdEncoding.EncodeToString(tle.GetCanonicalizedBody()),
			IntegratedTime: tle.GetIntegratedTime(), LogIndex: tle.GetLogIndex(), LogID: hex.EncodeToString(tle.GetLogId().GetKeyId())})
		if err != nil {
			t.Fatal(err)
		}
		rekor, _ := json.Marshal(map[string]any{
			"SignedEntryTimestamp": set,
			"Payload": map[string]any{"body": base64.StdEncoding.EncodeToString(tle.GetCanonicalizedBody()),
				"integratedTime": tle.GetIntegratedTime(), "logIndex": tle.GetLogIndex(), "logID": hex.EncodeToString(tle.GetLogId().GetKeyId())},
		})
		desc := pushBytes(t, repo, ship.MediaTypeSimpleSigning, payload)
		desc.Annotations = map[string]string{
			ship.AnnotationCosignSignature:   base64.StdEncoding.EncodeToString(sc.Signature()),
			ship.AnnotationCosignCertificate: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: vc.Certificate().Raw})),
			ship.AnnotationCosignBundle:      string(rekor),
		}
		annotate(desc.Annotations)
		cfg := pushBytes(t, repo, ocispec.MediaTypeImageConfig, []byte(`{}`))
		pushManifest(t, repo, ship.CosignSigTag(m.Digest.String()), ocispec.MediaTypeImageManifest,
			map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "config": cfg, "layers": []ocispec.Descriptor{desc}})
	}
	push("rekor", func(map[string]string) {})
	push("no-rekor", func(a map[string]string) { delete(a, ship.AnnotationCosignBundle) })
	push("bad-set", func(a map[string]string) {
		var rb map[string]any
		json.Unmarshal([]byte(a[ship.AnnotationCosignBundle]), &rb)
		rb["Payload"].(map[string]any)["logIndex"] = 12345
		b, _ := json.Marshal(rb)
		a[ship.AnnotationCosignBundle] = string(b)
	})
	for _, tc := range []struct {
		tag    string
		wantIs error
	}{{"rekor", nil}, {"no-rekor", ship.ErrSignature}, {"bad-set", ship.ErrSignature}} {
		store, _ := newStore(t)
		c := ship.NewClient(store, &ship.Options{TLS: reg.tls, DockerConfig: emptyDockerConfig(t)})
		_, err := c.Fetch(ctx, mustSource(t, "oci://"+name+":"+tc.tag), "", func(s ship.Signed) error { return ship.Verify(p, s) })
		if tc.wantIs == nil && err != nil || tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
			t.Errorf("%s: Fetch = %v, want %v", tc.tag, err, tc.wantIs)
		}
	}
}

// expectSignedFetch checks one Fetch under a signature policy: with wantIs nil, that it
// fetched the echo module from the manifest want; otherwise that the error is each of wantIs
// and says wantMsg, and that the store under dir holds nothing.
func expectSignedFetch(t *testing.T, f *ship.Fetched, err error, want ocispec.Descriptor, wantIs []error, wantMsg, dir string) {
	t.Helper()
	if wantIs == nil {
		if err != nil {
			t.Fatal(err)
		}
		if f.SHA256 != hexOf(wat.Echo) || f.Resolved != want.Digest.String() {
			t.Errorf("fetched %s from %s; want the echo module from %s", f.SHA256, f.Resolved, want.Digest)
		}
		return
	}
	for _, is := range wantIs {
		if !errors.Is(err, is) {
			t.Errorf("Fetch = %v, want %v", err, is)
		}
	}
	if err != nil && !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("Fetch = %v, want it to say %q", err, wantMsg)
	}
	if got := storeFiles(t, dir); len(got) != 0 {
		t.Errorf("store holds %v after a refused signature", got)
	}
}
