package ship_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/mcpwasm/mcpwasm/internal/ship"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// rawRepo is an oras-go repository on the test registry, for pushing layouts mcpwasm itself
// never pushes.
func rawRepo(t *testing.T, reg *testRegistry, name string) *remote.Repository {
	t.Helper()
	repo, err := remote.NewRepository(reg.host + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	repo.Client = &auth.Client{Client: &http.Client{Transport: &http.Transport{TLSClientConfig: reg.tls}}}
	return repo
}

func pushBytes(t *testing.T, repo *remote.Repository, mediaType string, b []byte) ocispec.Descriptor {
	t.Helper()
	d := content.NewDescriptorFromBytes(mediaType, b)
	if err := repo.Push(context.Background(), d, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	return d
}

// pushManifest pushes a manifest of mediaType and tags it.
func pushManifest(t *testing.T, repo *remote.Repository, tag, mediaType string, m any) ocispec.Descriptor {
	t.Helper()
	b, _ := json.Marshal(m)
	d := content.NewDescriptorFromBytes(mediaType, b)
	if err := repo.PushReference(context.Background(), d, bytes.NewReader(b), tag); err != nil {
		t.Fatal(err)
	}
	return d
}

// tarLayer is a gzip tar holding files (name → content).
func tarLayer(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := 0; i < len(files); i += 2 {
		tw.WriteHeader(&tar.Header{Name: files[i], Mode: 0o644, Size: int64(len(files[i+1])), Typeflag: tar.TypeReg})
		tw.Write([]byte(files[i+1]))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// pushImage pushes a FROM-scratch image whose layers hold files, as docker pushes it
// (Docker manifest media types) or as an OCI image in an index (buildx), and returns the
// image manifest's descriptor.
func pushImage(t *testing.T, repo *remote.Repository, tag string, docker bool, layers ...[]byte) ocispec.Descriptor {
	t.Helper()
	cfgType, layerType, manifestType := ocispec.MediaTypeImageConfig, ocispec.MediaTypeImageLayerGzip, ocispec.MediaTypeImageManifest
	if docker {
		cfgType, layerType, manifestType = "application/vnd.docker.container.image.v1+json",
			"application/vnd.docker.image.rootfs.diff.tar.gzip", "application/vnd.docker.distribution.manifest.v2+json"
	}
	cfg := pushBytes(t, repo, cfgType, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers"}}`))
	var ls []ocispec.Descriptor
	for _, l := range layers {
		ls = append(ls, pushBytes(t, repo, layerType, l))
	}
	m := map[string]any{"schemaVersion": 2, "mediaType": manifestType, "config": cfg, "layers": ls}
	if docker {
		return pushManifest(t, repo, tag, manifestType, m)
	}
	img := pushManifest(t, repo, tag+"-image", manifestType, m)
	img.Platform = &ocispec.Platform{OS: "linux", Architecture: "amd64"}
	// An arm64 image listed first, whose /plugin.wasm is another module: linux/amd64 is chosen.
	armCfg := pushBytes(t, repo, cfgType, []byte(`{"architecture":"arm64","os":"linux","rootfs":{"type":"layers"}}`))
	armLayer := pushBytes(t, repo, layerType, tarLayer(t, "plugin.wasm", string(wat.Fixture)))
	arm := pushManifest(t, repo, tag+"-arm", manifestType, map[string]any{"schemaVersion": 2, "mediaType": manifestType,
		"config": armCfg, "layers": []ocispec.Descriptor{armLayer}})
	arm.Platform = &ocispec.Platform{OS: "linux", Architecture: "arm64"}
	pushManifest(t, repo, tag, ocispec.MediaTypeImageIndex,
		map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageIndex, "manifests": []ocispec.Descriptor{arm, img}})
	return img // what the index resolves to
}

// hyper-mcp's two OCI layouts fetch as the module they hold, signed or not.
func TestFetchHyperMCPLayouts(t *testing.T) {
	ctx := context.Background()
	reg := newRegistry(t, "", "")
	repo := rawRepo(t, reg, "hyper-mcp-rs/echo-plugin")

	// ORAS: oras push --artifact-type application/vnd.hyper-mcp.plugin.v2 plugin.wasm:application/wasm
	layer := pushBytes(t, repo, "application/wasm", wat.Echo)
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: "plugin.wasm"}
	orasDesc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ship.ArtifactTypeHyperMCP,
		oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, orasDesc, "v2"); err != nil {
		t.Fatal(err)
	}
	// Docker, FROM scratch, COPY plugin.wasm /plugin.wasm; a second layer overrides it.
	dockerDesc := pushImage(t, repo, "docker", true,
		tarLayer(t, "plugin.wasm", string(wat.Fixture), "etc/x", "y"), tarLayer(t, "./plugin.wasm", string(wat.Echo)))
	// buildx: an OCI index with a linux/amd64 image.
	indexDesc := pushImage(t, repo, "index", false, tarLayer(t, "/plugin.wasm", string(wat.Echo)))
	// Images without the module, or with something else at /plugin.wasm.
	pushImage(t, repo, "nowasm", true, tarLayer(t, "app/plugin.wasm", string(wat.Echo)))
	pushImage(t, repo, "notwasm", true, tarLayer(t, "plugin.wasm", "#!/bin/sh"))

	key, kp := keyPolicy(t)
	pusher := ship.NewClient(nil, &ship.Options{TLS: reg.tls, DockerConfig: emptyDockerConfig(t)})
	src := func(tag string) ship.Source { return mustSource(t, "oci://"+reg.host+"/hyper-mcp-rs/echo-plugin:"+tag) }
	if _, err := pusher.PushBundle(ctx, src("v2"), signBundle(t, key, nil, wat.Echo)); err != nil {
		t.Fatal(err)
	}
	if _, err := pusher.PushBundle(ctx, src("docker"), signBundle(t, key, nil, wat.Echo)); err != nil {
		t.Fatal(err)
	}
	verify := func(s ship.Signed) error { return ship.Verify(kp, s) }

	for _, tc := range []struct {
		tag      string
		resolved string
		verify   ship.Verifier
		wantErr  string
		wantIs   error
	}{
		{tag: "v2", resolved: orasDesc.Digest.String()},
		{tag: "v2", resolved: orasDesc.Digest.String(), verify: verify},
		{tag: "docker", resolved: dockerDesc.Digest.String()},
		{tag: "docker", resolved: dockerDesc.Digest.String(), verify: verify},
		{tag: "index", resolved: indexDesc.Digest.String()},
		{tag: "index", verify: verify, wantIs: ship.ErrUnsigned},
		{tag: "nowasm", wantErr: "is an image without /plugin.wasm"},
		{tag: "notwasm", wantErr: "/plugin.wasm is not a WebAssembly module"},
	} {
		store, _ := newStore(t)
		c := ship.NewClient(store, &ship.Options{TLS: reg.tls, DockerConfig: emptyDockerConfig(t)})
		f, err := c.Fetch(ctx, src(tc.tag), "", tc.verify)
		switch {
		case tc.wantErr != "" || tc.wantIs != nil:
			if err == nil || (tc.wantIs != nil && !errors.Is(err, tc.wantIs)) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: %v, want %q %v", tc.tag, err, tc.wantErr, tc.wantIs)
			}
		case err != nil:
			t.Errorf("%s (verify %v): %v", tc.tag, tc.verify != nil, err)
		case f.SHA256 != hexOf(wat.Echo) || tc.resolved != "" && f.Resolved != tc.resolved:
			t.Errorf("%s: fetched %s resolved %s; want the echo module from %s", tc.tag, f.SHA256, f.Resolved, tc.resolved)
		}
	}
	// The lock's digest is the module's, for an image as for an artifact.
	store, _ := newStore(t)
	c := ship.NewClient(store, &ship.Options{TLS: reg.tls, DockerConfig: emptyDockerConfig(t)})
	if _, err := c.Fetch(ctx, src("docker"), hexOf(wat.Fixture), nil); !errors.Is(err, ship.ErrDigest) ||
		!strings.Contains(err.Error(), "holds /plugin.wasm sha256:"+hexOf(wat.Echo)) {
		t.Errorf("docker image under a lock of another module: %v", err)
	}
}
