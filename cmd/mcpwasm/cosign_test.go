package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/mcpwasm/mcpwasm/internal/ship"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// cosignV3Sign attaches to manifest d of repository tools/echo a cosign v3 image signature by
// key: a Sigstore bundle holding a DSSE in-toto statement (predicate
// https://sigstore.dev/cosign/sign/v1, subject d) as an OCI referrer.
func (e *shipEnv) cosignV3Sign(key *ecdsa.PrivateKey, d string) {
	t := e.t
	t.Helper()
	stmt, _ := json.Marshal(map[string]any{"_type": "https://in-toto.io/Statement/v1", "predicateType": ship.PredicateCosignSign, "predicate": map[string]any{},
		"subject": []any{map[string]any{"name": e.host + "/tools/echo", "digest": map[string]string{"sha256": strings.TrimPrefix(d, "sha256:")}}}})
	const pt = "application/vnd.in-toto+json"
	sum := sha256.Sum256([]byte(fmt.Sprintf("DSSEv1 %d %s %d %s", len(pt), pt, len(stmt), stmt)))
	sig, err := ecdsa.SignASN1(rand.Reader, key, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.NewBundle(&protobundle.Bundle{
		MediaType:            ship.MediaTypeBundle,
		VerificationMaterial: &protobundle.VerificationMaterial{Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{}}},
		Content:              &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{Payload: stmt, PayloadType: pt, Signatures: []*protodsse.Signature{{Sig: sig}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	repo, err := remote.NewRepository(e.host + "/tools/echo")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	ctx := context.Background()
	subject, err := repo.Resolve(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	layer := content.NewDescriptorFromBytes(ship.MediaTypeBundle, raw)
	if err := repo.Push(ctx, layer, strings.NewReader(string(raw))); err != nil {
		t.Fatal(err)
	}
	if _, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ship.MediaTypeBundle, oras.PackManifestOptions{
		Subject: &subject, Layers: []ocispec.Descriptor{layer},
		ManifestAnnotations: map[string]string{"dev.sigstore.bundle.predicateType": ship.PredicateCosignSign}}); err != nil {
		t.Fatal(err)
	}
}

// TestShipCosignV3SignedServesOffline: a guest signed with cosign v3 by manifest digest is
// pulled under a key policy, and served afterwards without a registry request: the kept
// signature re-verifies against the locked manifest digest.
func TestShipCosignV3SignedServesOffline(t *testing.T) {
	e := newShipEnv(t)
	d := e.push(wat.Echo)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(key.Public())
	if err := os.WriteFile(filepath.Join(e.dir, "release.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	e.cosignV3Sign(key, d)
	cfg := `{"guests": [{"name": "echo", "path": "oci://` + e.host + `/tools/echo:v1", "signature": {"key": "release.pub"}}]}`
	if err := os.WriteFile(e.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := e.run("pull", "--config", e.config); code != ExitOK {
		t.Fatalf("pull: exit %d: %s", code, errOut)
	}
	before := e.requests.Load()
	tools, s := e.serveTools()
	if tools["echo"] != "Returns its arguments" {
		t.Errorf("tools = %v", tools)
	}
	s.closeAndWait(waitLimit(t))
	if n := e.requests.Load() - before; n != 0 {
		t.Errorf("serve of a cosign-signed, locked guest made %d registry requests, want 0", n)
	}
}
