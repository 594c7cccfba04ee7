package main

import (
	"crypto/ecdsa"
	"os"
	"path/filepath"
	"testing"

	"oras.land/oras-go/v2/registry/remote"

	"github.com/mcpwasm/mcpwasm/internal/ship/shiptest"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// cosignV3Sign attaches to manifest d of repository tools/echo a cosign v3 image signature by
// key: a Sigstore bundle holding a DSSE in-toto statement (predicate
// https://sigstore.dev/cosign/sign/v1, subject d) as an OCI referrer.
func (e *shipEnv) cosignV3Sign(key *ecdsa.PrivateKey, d string) {
	e.t.Helper()
	repo, err := remote.NewRepository(e.host + "/tools/echo")
	if err != nil {
		e.t.Fatal(err)
	}
	repo.PlainHTTP = true
	shiptest.CosignSign(e.t, repo, e.host+"/tools/echo", d, key)
}

// TestShipCosignV3SignedServesOffline: a guest signed with cosign v3 by manifest digest is
// pulled under a key policy, and served afterwards without a registry request: the kept
// signature re-verifies against the locked manifest digest.
func TestShipCosignV3SignedServesOffline(t *testing.T) {
	e := newShipEnv(t)
	d := e.push(wat.Echo)
	key := shiptest.Key(t, filepath.Join(e.dir, "release.pub"))
	e.cosignV3Sign(key, d)
	cfg := `{"guests": [{"name": "echo", "path": "oci://` + e.host + `/tools/echo:v1", "signature": {"key": "release.pub"}}]}`
	if err := os.WriteFile(e.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := e.run("pull", "--config", e.config); code != ExitOK {
		t.Fatalf("pull: exit %d: %s", code, errOut)
	}
	e.serveOffline("serve of a cosign-signed, locked guest")
}
