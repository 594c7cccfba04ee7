package ship

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
)

// ArtifactTypeHyperMCP is the artifact type of hyper-mcp plugins pushed with ORAS (`oras push
// --artifact-type application/vnd.hyper-mcp.plugin.v2 plugin.wasm:application/wasm`): one
// application/wasm layer, the module, as in our layout.
const ArtifactTypeHyperMCP = "application/vnd.hyper-mcp.plugin.v2"

// Docker's manifest media types: older hyper-mcp plugins are images built FROM scratch that
// hold /plugin.wasm, pushed by docker.
const (
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
	mediaTypeDockerConfig   = "application/vnd.docker.container.image.v1+json"
)

// manifestTypes are the manifest media types a source may resolve to.
var manifestTypes = []string{ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageIndex, mediaTypeDockerManifest, mediaTypeDockerList}

// imageOfIndex resolves an index to its image: the only one, else the linux/amd64 one.
func imageOfIndex(ctx context.Context, repo *remote.Repository, index ocispec.Descriptor, m wasmManifest) (ocispec.Descriptor, wasmManifest, error) {
	var pick *ocispec.Descriptor
	for i, d := range m.Manifests {
		if len(m.Manifests) == 1 || d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == "amd64" {
			pick = &m.Manifests[i]
			break
		}
	}
	if pick == nil || (pick.MediaType != ocispec.MediaTypeImageManifest && pick.MediaType != mediaTypeDockerManifest) {
		return index, m, fmt.Errorf("%s is an index without a single or linux/amd64 image manifest", index.Digest)
	}
	raw, err := fetchDescribed(ctx, repo, *pick, maxManifestBytes)
	if err != nil {
		return index, m, fmt.Errorf("manifest %s of index %s: %w", pick.Digest, index.Digest, err)
	}
	var im wasmManifest
	if err := json.Unmarshal(raw, &im); err != nil {
		return index, m, fmt.Errorf("manifest %s: %w", pick.Digest, err)
	}
	return *pick, im, nil
}

// isImage reports a container image: an image config and tar layers.
func isImage(m wasmManifest) bool {
	if m.Config.MediaType != ocispec.MediaTypeImageConfig && m.Config.MediaType != mediaTypeDockerConfig || len(m.Layers) == 0 {
		return false
	}
	for _, l := range m.Layers {
		if !isTarLayer(l.MediaType) {
			return false
		}
	}
	return true
}

func isTarLayer(mt string) bool {
	return slices.Contains([]string{ocispec.MediaTypeImageLayer, ocispec.MediaTypeImageLayerGzip,
		"application/vnd.docker.image.rootfs.diff.tar.gzip", "application/vnd.docker.image.rootfs.diff.tar"}, mt)
}

// fetchImage takes the module from an image that holds /plugin.wasm (hyper-mcp's older
// layout): the topmost layer that has the file wins, as in the image's file system. Each
// layer and the module are capped by Options.MaxBytes. The module's digest is its own, not a
// layer's; the signature is checked against the module as for the other layouts.
func (c *Client) fetchImage(ctx context.Context, src Source, repo *remote.Repository, desc ocispec.Descriptor, index string, m wasmManifest, want string, verify Verifier) (*Fetched, error) {
	var wasm []byte
	for i := len(m.Layers) - 1; i >= 0 && wasm == nil; i-- {
		l := m.Layers[i]
		if l.Size > c.o.MaxBytes {
			return nil, fmt.Errorf("%w: image layer %s is %d bytes, the module-size cap is %d", ErrTooLarge, l.Digest, l.Size, c.o.MaxBytes)
		}
		blob, err := fetchDescribed(ctx, repo, l, c.o.MaxBytes)
		if err != nil {
			return nil, fmt.Errorf("image layer: %w", err)
		}
		if wasm, err = pluginFromLayer(blob, c.o.MaxBytes); err != nil {
			return nil, fmt.Errorf("image layer %s: %w", l.Digest, err)
		}
	}
	if wasm == nil {
		return nil, fmt.Errorf("%s is an image without /plugin.wasm", desc.Digest)
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return nil, fmt.Errorf("%s: /plugin.wasm is not a WebAssembly module", desc.Digest)
	}
	sum := sha256.Sum256(wasm)
	d := hex.EncodeToString(sum[:])
	if want != "" && d != want {
		return nil, fmt.Errorf("%w: the lock wants sha256:%s, %s holds /plugin.wasm sha256:%s", ErrDigest, want, desc.Digest, d)
	}
	var sig []byte
	check := func(b []byte) error {
		if verify == nil {
			return nil
		}
		var err error
		cands, looked, err := c.ociSignatures(ctx, repo, desc, index)
		if err != nil {
			return err
		}
		sig, err = verifyOCI(verify, b, desc, index, cands, looked)
		return err
	}
	if _, err := c.store.write(bytes.NewReader(wasm), d, c.o.MaxBytes, check); err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	c.keepBundle(d, sig)
	return c.fetched(src, desc.Digest.String(), d), nil
}

// pluginFromLayer returns the content of plugin.wasm at the root of a tar (or gzip tar)
// layer, nil if it has none. It reads at most max bytes of the file.
func pluginFromLayer(blob []byte, max int64) ([]byte, error) {
	var r io.Reader = bytes.NewReader(blob)
	if bytes.HasPrefix(blob, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		// A layer of a plugin image holds little but the module: bound what is inflated.
		r = io.LimitReader(zr, 4*max+1<<20)
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading tar: %w", err)
		}
		if h.Typeflag != tar.TypeReg || strings.TrimPrefix(path.Clean("/"+h.Name), "/") != "plugin.wasm" {
			continue
		}
		if h.Size > max {
			return nil, fmt.Errorf("%w: /plugin.wasm is %d bytes, the module-size cap is %d", ErrTooLarge, h.Size, max)
		}
		return readCapped(tr, max, "/plugin.wasm")
	}
}
