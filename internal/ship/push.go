package ship

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
)

// MediaTypeBundle is the media type (and artifact type) of a Sigstore bundle attached to a
// module's OCI manifest as a referrer (OCI distribution-spec v1.1 "Listing Referrers").
const MediaTypeBundle = "application/vnd.dev.sigstore.bundle.v0.3+json"

// annotationPredicateType is the annotation cosign v3 puts on a bundle referrer: the in-toto
// predicate type of the statement inside (PredicateCosignSign for a signature).
const annotationPredicateType = "dev.sigstore.bundle.predicateType"

// wasmConfig is the config blob of the Wasm OCI artifact layout.
type wasmConfig struct {
	Architecture string   `json:"architecture"`
	OS           string   `json:"os"`
	LayerDigests []string `json:"layerDigests"`
}

// Push publishes wasm to the OCI source dst (a tag or a digest reference) in the Wasm OCI
// artifact layout, with annotations on the manifest (org.opencontainers.image.title,
// .version, .description …), and returns the manifest's digest ("sha256:…"). The module is
// capped like a fetch (Options.MaxBytes).
func (c *Client) Push(ctx context.Context, dst Source, wasm []byte, annotations map[string]string) (string, error) {
	if dst.Kind != KindOCI {
		return "", fmt.Errorf("%s: %w: push needs an oci:// reference", dst, ErrSource)
	}
	if int64(len(wasm)) > c.o.MaxBytes {
		return "", fmt.Errorf("%s: %w: %d bytes, the cap is %d", dst, ErrTooLarge, len(wasm), c.o.MaxBytes)
	}
	repo, err := c.repository(dst)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dst, err)
	}
	layer := content.NewDescriptorFromBytes(MediaTypeLayer, wasm)
	cfg, _ := json.Marshal(wasmConfig{Architecture: "wasm", OS: "wasip1", LayerDigests: []string{layer.Digest.String()}})
	config := content.NewDescriptorFromBytes(MediaTypeConfig, cfg)
	for _, b := range []struct {
		d ocispec.Descriptor
		b []byte
	}{{config, cfg}, {layer, wasm}} {
		if err := pushBlob(ctx, repo, b.d, b.b); err != nil {
			return "", fmt.Errorf("%s: %w", dst, err)
		}
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "", oras.PackManifestOptions{
		ConfigDescriptor: &config, Layers: []ocispec.Descriptor{layer}, ManifestAnnotations: annotations})
	if err != nil {
		return "", fmt.Errorf("%s: manifest: %w", dst, err)
	}
	if !dst.IsDigest() {
		if err := repo.Tag(ctx, desc, dst.Ref.Reference); err != nil {
			return "", fmt.Errorf("%s: tag: %w", dst, err)
		}
	} else if dst.Ref.Reference != desc.Digest.String() {
		return "", fmt.Errorf("%s: %w: the pushed manifest is %s", dst, ErrDigest, desc.Digest)
	}
	return desc.Digest.String(), nil
}

// PushBundle attaches a Sigstore bundle (JSON) to the manifest src resolves to, as a
// referrer with artifact type MediaTypeBundle. It returns the referrer's digest.
func (c *Client) PushBundle(ctx context.Context, src Source, bundle []byte) (string, error) {
	repo, err := c.repository(src)
	if err != nil {
		return "", fmt.Errorf("%s: %w", src, err)
	}
	subject, err := repo.Resolve(ctx, src.Ref.Reference)
	if err != nil {
		return "", fmt.Errorf("%s: %w", src, err)
	}
	layer := content.NewDescriptorFromBytes(MediaTypeBundle, bundle)
	if err := pushBlob(ctx, repo, layer, bundle); err != nil {
		return "", fmt.Errorf("%s: %w", src, err)
	}
	// The config says the type too (an empty JSON object of media type MediaTypeBundle): a
	// registry that builds its referrers list from config media types, as older ones do,
	// then reports the same artifact type as one that reads artifactType (image-spec v1.1
	// "Guidelines for Artifact Usage").
	empty := []byte("{}")
	config := content.NewDescriptorFromBytes(MediaTypeBundle, empty)
	if err := pushBlob(ctx, repo, config, empty); err != nil {
		return "", fmt.Errorf("%s: %w", src, err)
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, MediaTypeBundle, oras.PackManifestOptions{
		Subject: &subject, Layers: []ocispec.Descriptor{layer}, ConfigDescriptor: &config})
	if err != nil {
		return "", fmt.Errorf("%s: signature: %w", src, err)
	}
	return desc.Digest.String(), nil
}

// maxSignatureReferrers bounds how many cosign signature referrers of one manifest are tried.
const maxSignatureReferrers = 8

// ociBundles returns the Sigstore bundles attached to manifest desc, else to index (if not
// ""): referrers of artifact type MediaTypeBundle or carrying cosign's predicate-type
// annotation (a registry that reports a referrer's config media type as its artifact type
// lists cosign v3's, whose config is empty, as application/vnd.oci.empty.v1+json). Those
// annotated as a cosign signature (PredicateCosignSign) are returned, up to
// maxSignatureReferrers, so any of several signers may verify; cosign v3 also attaches its
// attestations as bundles, and they are not fetched. With none so annotated, the first bundle
// referrer (mcpwasm push --sign, cosign attach). It returns nil if there is none.
func (c *Client) ociBundles(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, index string) ([][]byte, error) {
	subjects := []ocispec.Descriptor{desc}
	if index != "" {
		subjects = append(subjects, ocispec.Descriptor{Digest: digest.Digest(index), MediaType: ocispec.MediaTypeImageIndex})
	}
	var sigs []ocispec.Descriptor
	var first *ocispec.Descriptor
	for _, subject := range subjects {
		err := repo.Referrers(ctx, subject, "", func(rs []ocispec.Descriptor) error {
			for i := range rs {
				switch {
				case rs[i].Annotations[annotationPredicateType] == PredicateCosignSign:
					if len(sigs) < maxSignatureReferrers {
						sigs = append(sigs, rs[i])
					}
				case first == nil && rs[i].Annotations[annotationPredicateType] == "" && rs[i].ArtifactType == MediaTypeBundle:
					first = &rs[i]
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("signature referrers of %s: %w", subject.Digest, err)
		}
		if len(sigs) > 0 || first != nil {
			break
		}
	}
	if len(sigs) == 0 && first != nil {
		sigs = append(sigs, *first)
	}
	var out [][]byte
	for _, found := range sigs {
		raw, err := fetchDescribed(ctx, repo, found, maxManifestBytes)
		if err != nil {
			return nil, fmt.Errorf("signature manifest: %w", err)
		}
		var m wasmManifest
		if err := json.Unmarshal(raw, &m); err != nil || len(m.Layers) != 1 || m.Layers[0].MediaType != MediaTypeBundle {
			return nil, fmt.Errorf("signature manifest %s: want one %s layer", found.Digest, MediaTypeBundle)
		}
		b, err := fetchDescribed(ctx, repo, m.Layers[0], maxBundleBytes)
		if err != nil {
			return nil, fmt.Errorf("signature bundle: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}

// fetchDescribed fetches what desc describes, at most max bytes (readDescribed).
func fetchDescribed(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, max int64) ([]byte, error) {
	if desc.Size < 0 || desc.Size > max {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", desc.Digest, desc.Size, max)
	}
	rc, err := repo.Fetch(ctx, desc)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readDescribed(rc, desc, max)
}

func pushBlob(ctx context.Context, repo *remote.Repository, d ocispec.Descriptor, b []byte) error {
	err := repo.Push(ctx, d, bytes.NewReader(b))
	if err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return fmt.Errorf("push %s: %w", d.MediaType, err)
	}
	return nil
}
