// Package shiptest is the set-up the tests of internal/ship and of the CLI's ship commands
// share: an OCI registry in process on loopback, a signing key with its public half in a
// file, and cosign v3 signatures (a Sigstore bundle holding a DSSE in-toto statement,
// attached to the signed manifest as an OCI referrer). It is test code: nothing but tests
// imports it. It does not import internal/ship, so the wire formats it writes are spelled
// here, independently of the code under test.
package shiptest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

// MediaTypeBundle is the media type of a Sigstore bundle in JSON (v0.3), the artifact type
// of the referrer cosign v3 attaches.
const MediaTypeBundle = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Registry is an OCI registry (go-containerregistry's, referrers API enabled) on a loopback
// httptest server, closed when the test ends.
type Registry struct {
	Host     string            // 127.0.0.1:PORT
	TLS      *tls.Config       // trusts the server's certificate; nil for plain HTTP
	Cert     *x509.Certificate // the server's certificate; nil for plain HTTP
	Requests atomic.Int64      // HTTP requests received so far
}

// RegistryOptions are NewRegistry's choices; the zero value is TLS without credentials.
type RegistryOptions struct {
	Plain      bool   // plain HTTP instead of TLS
	User, Pass string // with User set, every request needs HTTP Basic credentials User:Pass
	// Wrap, if set, wraps the registry's handler: a test's registry that misbehaves.
	Wrap func(http.Handler) http.Handler
}

// NewRegistry starts a Registry for t.
func NewRegistry(t testing.TB, o RegistryOptions) *Registry {
	t.Helper()
	r := &Registry{}
	var reg http.Handler = registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	if o.Wrap != nil {
		reg = o.Wrap(reg)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.Requests.Add(1)
		if u, p, ok := req.BasicAuth(); o.User != "" && (!ok || u != o.User || p != o.Pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(w, req)
	})
	var srv *httptest.Server
	if o.Plain {
		srv = httptest.NewServer(h)
	} else {
		srv = httptest.NewTLSServer(h)
		pool := x509.NewCertPool()
		pool.AddCert(srv.Certificate())
		r.TLS, r.Cert = &tls.Config{RootCAs: pool}, srv.Certificate()
	}
	t.Cleanup(srv.Close)
	r.Host = srv.Listener.Addr().String()
	return r
}

// Key makes an ECDSA P-256 signing key and writes its public half, PEM "PUBLIC KEY" (what
// `cosign generate-key-pair` writes as cosign.pub), to the file path.
func Key(t testing.TB, path string) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return key
}

// CosignStatement is the in-toto statement cosign v3 signs for `cosign sign NAME@DIGEST`:
// subject name with the manifest's digest ("sha256:…"), predicateType (cosign's
// https://sigstore.dev/cosign/sign/v1 for a signature), an empty predicate.
func CosignStatement(t testing.TB, name, manifestDigest, predicateType string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": name, "digest": map[string]string{"sha256": strings.TrimPrefix(manifestDigest, "sha256:")}}},
		"predicateType": predicateType,
		"predicate":     map[string]any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DSSEBundle returns a Sigstore bundle (v0.3 JSON) holding a DSSE envelope of payload (an
// in-toto statement) signed with key over DSSE's pre-authentication encoding, as cosign v3
// signs; cert, if set, is the signing certificate (keyless), else a public-key hint. If
// shown is not nil, it replaces the payload after signing (a tampered envelope).
func DSSEBundle(t testing.TB, key *ecdsa.PrivateKey, cert *x509.Certificate, payload, shown []byte) []byte {
	t.Helper()
	const payloadType = "application/vnd.in-toto+json"
	pae := fmt.Sprintf("DSSEv1 %d %s %d %s", len(payloadType), payloadType, len(payload), payload)
	d := sha256.Sum256([]byte(pae))
	sig, err := ecdsa.SignASN1(rand.Reader, key, d[:])
	if err != nil {
		t.Fatal(err)
	}
	if shown != nil {
		payload = shown
	}
	vm := &protobundle.VerificationMaterial{Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{Hint: "test"}}}
	if cert != nil {
		vm = &protobundle.VerificationMaterial{Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: cert.Raw}}}
	}
	b, err := bundle.NewBundle(&protobundle.Bundle{
		MediaType:            MediaTypeBundle,
		VerificationMaterial: vm,
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload: payload, PayloadType: payloadType, Signatures: []*protodsse.Signature{{Sig: sig}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// AttachCosignBundle attaches bundle b to subject in repo as cosign v3 does: a referrer
// manifest of artifact type MediaTypeBundle, an empty config, one bundle layer, and the
// predicate-type annotation.
func AttachCosignBundle(t testing.TB, repo *remote.Repository, subject ocispec.Descriptor, predicateType string, b []byte) {
	t.Helper()
	ctx := context.Background()
	layer := content.NewDescriptorFromBytes(MediaTypeBundle, b)
	if err := repo.Push(ctx, layer, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	_, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, MediaTypeBundle, oras.PackManifestOptions{
		Subject: &subject, Layers: []ocispec.Descriptor{layer},
		ManifestAnnotations: map[string]string{"dev.sigstore.bundle.content": "dsse-envelope", "dev.sigstore.bundle.predicateType": predicateType},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// CosignSign signs manifest digest d of repository name (HOST/REPO, as it is pulled) with
// key as `cosign sign --key` v3 does, and attaches the signature to it in repo.
func CosignSign(t testing.TB, repo *remote.Repository, name, d string, key *ecdsa.PrivateKey) {
	t.Helper()
	subject, err := repo.Resolve(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	const predicate = "https://sigstore.dev/cosign/sign/v1"
	AttachCosignBundle(t, repo, subject, predicate, DSSEBundle(t, key, nil, CosignStatement(t, name, d, predicate), nil))
}
