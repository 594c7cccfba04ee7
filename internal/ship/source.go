// Package ship brings guest modules from where they are published to where they run: sources
// (a local path, an https URL, an OCI reference), a content-addressed store on disk, the
// lock file that pins what was fetched, and publishing a module to an OCI registry.
//
// An OCI guest follows the CNCF TAG Runtime "Wasm OCI artifact" layout: an OCI image
// manifest (image-spec v1.1) whose config has media type application/vnd.wasm.config.v0+json
// and whose one layer is the module, media type application/wasm. The registry protocol is
// oras-go's (OCI distribution-spec v1.1); credentials come from the Docker config file.
//
// Nothing here runs a guest: the manifest digests in the lock are computed from an
// abi.Manifest the caller got by loading the module.
package ship

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"oras.land/oras-go/v2/registry"
)

// Kind says where a guest module comes from.
type Kind int

const (
	KindPath Kind = iota // a file on this machine
	KindURL              // an https:// (or allowed http://) URL
	KindOCI              // oci://registry/repository:tag or oci://registry/repository@sha256:…
)

// Source is a parsed guest source. Raw is the text it was parsed from (the key in the lock).
type Source struct {
	Kind Kind
	Raw  string
	// URL is set for KindURL.
	URL *url.URL
	// Ref is set for KindOCI: Registry (host[:port]), Repository, Reference (tag or digest).
	Ref registry.Reference
}

// ErrSource is wrapped by every error about a malformed source.
var ErrSource = errors.New("bad guest source")

// ParseSource parses a guest source: "oci://REGISTRY/REPO:TAG", "oci://REGISTRY/REPO@sha256:HEX"
// (a missing tag means "latest"), "https://…" or "http://…" (whether plain http may be
// fetched is decided at fetch time, per host), or anything else as a file path.
func ParseSource(s string) (Source, error) {
	switch {
	case strings.HasPrefix(s, "oci://"):
		ref, err := registry.ParseReference(strings.TrimPrefix(s, "oci://"))
		if err != nil {
			return Source{}, fmt.Errorf("%w %q: %w", ErrSource, s, err)
		}
		if ref.Reference == "" {
			ref.Reference = "latest"
		}
		return Source{Kind: KindOCI, Raw: s, Ref: ref}, nil
	case strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://"):
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return Source{}, fmt.Errorf("%w %q: not a URL", ErrSource, s)
		}
		return Source{Kind: KindURL, Raw: s, URL: u}, nil
	case strings.Contains(s, "://"):
		return Source{}, fmt.Errorf("%w %q: only https://, http:// (allowed hosts) and oci:// are fetched", ErrSource, s)
	case s == "":
		return Source{}, fmt.Errorf("%w: empty", ErrSource)
	}
	return Source{Kind: KindPath, Raw: s}, nil
}

// Remote reports whether the source is fetched over the network.
func (s Source) Remote() bool { return s.Kind != KindPath }

// IsDigest reports whether an OCI source names a manifest digest rather than a tag.
func (s Source) IsDigest() bool {
	_, err := s.Ref.Digest()
	return s.Kind == KindOCI && err == nil
}

// AtDigest returns the OCI source pinned to manifest digest d ("sha256:…"), keeping Raw.
func (s Source) AtDigest(d string) Source {
	s.Ref.Reference = d
	return s
}

// String is the source as written.
func (s Source) String() string { return s.Raw }
