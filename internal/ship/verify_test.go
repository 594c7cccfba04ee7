package ship_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"

	"github.com/mcpwasm/mcpwasm/internal/ship"
	"github.com/mcpwasm/mcpwasm/internal/ship/shiptest"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// signBundle returns a Sigstore bundle (v0.3 JSON) holding an ECDSA P-256 message signature
// of wasm by key, with either a public-key hint or the signing certificate as material.
func signBundle(t *testing.T, key *ecdsa.PrivateKey, cert *x509.Certificate, wasm []byte) []byte {
	t.Helper()
	d := sha256.Sum256(wasm)
	sig, err := ecdsa.SignASN1(rand.Reader, key, d[:])
	if err != nil {
		t.Fatal(err)
	}
	vm := &protobundle.VerificationMaterial{Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{Hint: "test"}}}
	if cert != nil {
		vm = &protobundle.VerificationMaterial{Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: cert.Raw}}}
	}
	b, err := bundle.NewBundle(&protobundle.Bundle{
		MediaType:            "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: vm,
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: d[:]}, Signature: sig}},
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

// keyPolicy makes a P-256 key and a key policy file for its public half.
func keyPolicy(t *testing.T) (*ecdsa.PrivateKey, ship.Policy) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cosign.pub")
	return shiptest.Key(t, p), ship.Policy{Key: p}
}

// keylessPolicy makes a private Fulcio-like CA (sigstore-go's test CA) and a trusted root file
// for it, and returns a leaf certificate and key for identity dev@example.com from issuer
// https://issuer.example, and the policy that accepts exactly that.
func keylessPolicy(t *testing.T) (*ecdsa.PrivateKey, *x509.Certificate, ship.Policy) {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	cert, priv, err := vs.GenerateLeafCert("dev@example.com", "https://issuer.example")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return priv.(*ecdsa.PrivateKey), cert, ship.Policy{Identity: "dev@example.com", Issuer: "https://issuer.example", TrustedRoot: p}
}

func TestVerifyBundle(t *testing.T) {
	key, kp := keyPolicy(t)
	other, _ := keyPolicy(t)
	lkey, cert, lp := keylessPolicy(t)
	wrongID := lp
	wrongID.Identity = "someone@example.com"
	tests := []struct {
		name    string
		p       ship.Policy
		bundle  []byte
		wantErr string
	}{
		{"key: signed", kp, signBundle(t, key, nil, wat.Echo), ""},
		{"key: unsigned", kp, nil, "unsigned: no signature was published with the module"},
		{"key: other key", kp, signBundle(t, other, nil, wat.Echo), "signature verification failed"},
		{"key: other bytes", kp, signBundle(t, key, nil, poisoned), "signature verification failed"},
		{"keyless: signed", lp, signBundle(t, lkey, cert, wat.Echo), ""},
		{"keyless: unsigned", lp, nil, "unsigned"},
		{"keyless: other identity", wrongID, signBundle(t, lkey, cert, wat.Echo), "signature verification failed"},
		{"keyless: other bytes", lp, signBundle(t, lkey, cert, poisoned), "signature verification failed"},
		{"keyless: a key bundle", lp, signBundle(t, key, nil, wat.Echo), "signature verification failed"},
		{"garbage bundle", kp, []byte(`{"mediaType":"nope"}`), "signature verification failed: bundle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ship.VerifyBundle(tt.p, wat.Echo, tt.bundle)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("VerifyBundle = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("VerifyBundle = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestFetchVerifiesSignatures: the bundle comes from the OCI referrer (or the URL beside the
// module) and is checked before the module is stored; unsigned is refused, nothing stored.
func TestFetchVerifiesSignatures(t *testing.T) {
	ctx := context.Background()
	reg := newRegistry(t, "", "")
	key, kp := keyPolicy(t)
	lkey, cert, lp := keylessPolicy(t)
	pusher := ship.NewClient(nil, &ship.Options{TLS: reg.tls, DockerConfig: emptyDockerConfig(t)})
	push := func(tag string, wasm, sig []byte) ship.Source {
		src := mustSource(t, "oci://"+reg.host+"/tools/echo:"+tag)
		if _, err := pusher.Push(ctx, src, wasm, nil); err != nil {
			t.Fatal(err)
		}
		if sig != nil {
			if _, err := pusher.PushBundle(ctx, src, sig); err != nil {
				t.Fatal(err)
			}
		}
		return src
	}
	keySigned := push("key", wat.Echo, signBundle(t, key, nil, wat.Echo))
	keylessSigned := push("keyless", poisoned, signBundle(t, lkey, cert, poisoned))
	unsigned := push("unsigned", append([]byte(nil), wat.Fixture...), nil)
	other, _ := keyPolicy(t)
	sigs := map[string][]byte{"/echo.wasm.sigstore.json": signBundle(t, key, nil, wat.Echo), "/forged.wasm.sigstore.json": signBundle(t, other, nil, wat.Echo)}
	files := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, ok := sigs[r.URL.Path]; ok {
			w.Write(b)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			w.Write(wat.Echo)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(files.Close)
	for _, tt := range []struct {
		name    string
		src     ship.Source
		p       ship.Policy
		wantErr error
	}{
		{"key policy, signed", keySigned, kp, nil},
		{"key policy, unsigned", unsigned, kp, ship.ErrUnsigned},
		{"key policy, keyless-signed", keylessSigned, kp, ship.ErrSignature},
		{"keyless policy, signed", keylessSigned, lp, nil},
		{"keyless policy, unsigned", unsigned, lp, ship.ErrUnsigned},
		{"keyless policy, key-signed", keySigned, lp, ship.ErrSignature},
		{"key policy, URL with .sigstore.json", mustSource(t, files.URL+"/echo.wasm"), kp, nil},
		{"key policy, URL without", mustSource(t, files.URL+"/bare.wasm"), kp, ship.ErrUnsigned},
		{"key policy, URL with another key's", mustSource(t, files.URL+"/forged.wasm"), kp, ship.ErrSignature},
	} {
		// prestored: the same bytes are already in the store, fetched with no policy (for
		// another guest); the policy is still applied (and, for a URL, also when the fetch
		// names the digest, so the store could answer it alone).
		for _, prestored := range []bool{false, true} {
			name := tt.name
			if prestored {
				name += ", bytes already stored"
			}
			t.Run(name, func(t *testing.T) {
				store, dir := newStore(t)
				p := tt.p
				pool := x509.NewCertPool()
				pool.AddCert(reg.cert)
				pool.AddCert(files.Certificate())
				c := ship.NewClient(store, &ship.Options{TLS: &tls.Config{RootCAs: pool}, DockerConfig: emptyDockerConfig(t)})
				verify := func(s ship.Signed) error { return ship.Verify(p, s) }
				want := ""
				if prestored {
					f, err := c.Fetch(ctx, tt.src, "", nil)
					if err != nil {
						t.Fatal(err)
					}
					if tt.src.Kind == ship.KindURL {
						want = f.SHA256
					}
				}
				f, err := c.Fetch(ctx, tt.src, want, verify)
				if tt.wantErr == nil {
					if err != nil {
						t.Fatal(err)
					}
					if got := storeFiles(t, dir); len(got) != 1 || got[0] != f.SHA256 {
						t.Errorf("store = %v", got)
					}
					if store.Bundle(f.SHA256) == nil {
						t.Error("the bundle that verified is not kept in the store")
					}
					return
				}
				if !errors.Is(err, tt.wantErr) || !strings.HasPrefix(err.Error(), tt.src.Raw+": ") {
					t.Fatalf("Fetch = %v, want %v naming the source", err, tt.wantErr)
				}
				if got := storeFiles(t, dir); !prestored && len(got) != 0 {
					t.Errorf("store holds %v after a refused signature", got)
				}
			})
		}
	}
}
