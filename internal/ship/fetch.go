package ship

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// Caps on what a registry or URL may send besides a module: a manifest (the module's, a
// signature referrer's) and a Sigstore bundle. Each read is also capped by its descriptor's
// size: a server sending more than the descriptor says is refused, never buffered.
const (
	maxManifestBytes = 4 << 20
	maxBundleBytes   = 1 << 20
)

// Media types of the CNCF "Wasm OCI artifact" layout.
const (
	MediaTypeConfig = "application/vnd.wasm.config.v0+json"
	MediaTypeLayer  = "application/wasm"
)

// Options configure a Client. The zero value fetches over https only, with the system's
// roots, the default Docker config's credentials, and a 64 MiB cap.
type Options struct {
	// MaxBytes caps a module's size in bytes (runtime.Limits.ModuleBytes); 0 means 64 MiB.
	MaxBytes int64
	// PlainHTTP names the hosts (host or host:port, as in the source) that may be reached
	// over plain http: URLs and registries. Any other http:// URL or redirect is refused.
	PlainHTTP []string
	// TLS, if set, is the TLS configuration of every connection (tests: a private root).
	TLS *tls.Config
	// DockerConfig is the Docker config file with registry credentials; "" means
	// $DOCKER_CONFIG/config.json, else ~/.docker/config.json. A missing file means none.
	DockerConfig string
	// Progress, if set, receives a progress line per download (a terminal's stderr).
	Progress io.Writer
}

// Verifier applies one guest's signature policy: it returns nil if s (the module, the
// Sigstore bundle published with it, and the manifests it was read from) verifies under it
// (Verify). A nil Verifier means the guest has no policy.
type Verifier func(s Signed) error

// Client fetches and publishes modules. It is safe for concurrent use.
type Client struct {
	o     Options
	store *Store
	http  *http.Client
}

// NewClient returns a client storing into store.
func NewClient(store *Store, opts *Options) *Client {
	c := &Client{store: store}
	if opts != nil {
		c.o = *opts
		c.o.PlainHTTP = slices.Clone(opts.PlainHTTP)
	}
	if c.o.MaxBytes <= 0 {
		c.o.MaxBytes = 64 << 20
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if c.o.TLS != nil {
		tr.TLSClientConfig = c.o.TLS.Clone()
	}
	c.http = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	return c
}

// checkRedirect refuses a redirect to plain http (unless the host is allowed) and long chains.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if req.URL.Scheme != "https" && !c.plainAllowed(req.URL.Host) {
		return fmt.Errorf("refused redirect to %s: plain http is not allowed for %q", req.URL.Redacted(), req.URL.Host)
	}
	return nil
}

func (c *Client) plainAllowed(host string) bool { return slices.Contains(c.o.PlainHTTP, host) }

// Fetched is a module in the store: where it came from and what it is.
type Fetched struct {
	Source Source
	// Resolved is what the source pointed to when fetched: the OCI manifest digest
	// ("sha256:…") for an OCI source, otherwise "sha256:" and the module's digest.
	Resolved string
	// SHA256 is the module's hex SHA-256; Path its file in the store.
	SHA256 string
	Path   string
	// Size in bytes.
	Size int64
}

// Fetch brings src's module into the store (a path is read and checked, not copied) and
// returns it. wantSHA256, if set, is the hex digest the module must have (a lock or a
// config pin). A module already in the store is not downloaded again; an OCI tag is still
// resolved, so Resolved is current. verify, if set, is the policy of the guest being
// fetched: the module's signature bundle is fetched and checked under it whether or not the
// bytes were already in the store (a verdict belongs to the bytes and the policy, and the
// store may hold the bytes for another guest with no policy); a bundle that verifies is kept
// beside the module (Store.Bundle). Errors name the source.
func (c *Client) Fetch(ctx context.Context, src Source, wantSHA256 string, verify Verifier) (*Fetched, error) {
	var f *Fetched
	var err error
	switch src.Kind {
	case KindOCI:
		f, err = c.fetchOCI(ctx, src, wantSHA256, verify)
	case KindURL:
		f, err = c.fetchURL(ctx, src, wantSHA256, verify)
	default:
		err = fmt.Errorf("%w: a path is not fetched", ErrSource)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	return f, nil
}

func (c *Client) fetchURL(ctx context.Context, src Source, want string, verify Verifier) (*Fetched, error) {
	if src.URL.Scheme != "https" && !c.plainAllowed(src.URL.Host) {
		return nil, fmt.Errorf("plain http is not allowed for %q (allow the host in plain_http or with --plain-http)", src.URL.Host)
	}
	if want != "" && c.store.Has(want) {
		if verify != nil {
			if err := c.verifyStored(want, verify, func() ([]byte, error) { return c.urlBundle(ctx, src) }); err != nil {
				return nil, err
			}
		}
		return c.fetched(src, "sha256:"+want, want), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.URL.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET: %s", resp.Status)
	}
	if resp.ContentLength > c.o.MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, the module-size cap is %d", ErrTooLarge, resp.ContentLength, c.o.MaxBytes)
	}
	body := c.progress(resp.Body, src.Raw, resp.ContentLength)
	var sig []byte
	check := func(b []byte) error {
		if verify == nil {
			return nil
		}
		var err error
		if sig, err = c.urlBundle(ctx, src); err != nil {
			return err
		}
		return verify(Signed{Module: b, Bundle: sig, Looked: src.URL.Redacted() + ".sigstore.json"})
	}
	d, err := c.store.write(body, want, c.o.MaxBytes, check)
	if err != nil {
		return nil, err
	}
	c.keepBundle(d, sig)
	return c.fetched(src, "sha256:"+d, d), nil
}

// urlBundle fetches the Sigstore bundle published beside a URL source: the same URL with
// ".sigstore.json" appended. A 404 means unsigned (nil, nil).
func (c *Client) urlBundle(ctx context.Context, src Source) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.URL.String()+".sigstore.json", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("signature bundle: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("signature bundle: GET: %s", resp.Status)
	}
	return readCapped(resp.Body, maxBundleBytes, "signature bundle")
}

func (c *Client) fetched(src Source, resolved, d string) *Fetched {
	f := &Fetched{Source: src, Resolved: resolved, SHA256: d, Path: c.store.Path(d)}
	if fi, err := statSize(f.Path); err == nil {
		f.Size = fi
	}
	return f
}

// repository returns an oras-go repository for src with Docker-config credentials.
func (c *Client) repository(src Source) (*remote.Repository, error) {
	repo, err := remote.NewRepository(src.Ref.Registry + "/" + src.Ref.Repository)
	if err != nil {
		return nil, err
	}
	repo.PlainHTTP = c.plainAllowed(src.Ref.Registry)
	repo.MaxMetadataBytes = maxManifestBytes
	var store credentials.Store
	if c.o.DockerConfig != "" {
		store, err = credentials.NewStore(c.o.DockerConfig, credentials.StoreOptions{})
	} else {
		store, err = credentials.NewStoreFromDocker(credentials.StoreOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("registry credentials: %w", err)
	}
	repo.Client = &auth.Client{Client: c.http, Cache: auth.NewCache(), Credential: credentials.Credential(store)}
	return repo, nil
}

// registryError explains a registry failure a user can fix: missing or refused credentials.
func (c *Client) registryError(src Source, err error) error {
	var er *errcode.ErrorResponse
	switch {
	case errors.Is(err, auth.ErrBasicCredentialNotFound):
		return fmt.Errorf("registry %s requires credentials and the Docker config has none for it (docker login %s): %w", src.Ref.Registry, src.Ref.Registry, err)
	case errors.As(err, &er) && er.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("registry %s refused the credentials in the Docker config: %w", src.Ref.Registry, err)
	}
	return err
}

// wasmManifest is the part of an OCI image manifest (or a Docker image manifest, or an
// index of them) the layout check reads.
type wasmManifest struct {
	MediaType    string               `json:"mediaType"`
	ArtifactType string               `json:"artifactType"`
	Config       ocispec.Descriptor   `json:"config"`
	Layers       []ocispec.Descriptor `json:"layers"`
	Manifests    []ocispec.Descriptor `json:"manifests"` // an index
}

func (c *Client) fetchOCI(ctx context.Context, src Source, want string, verify Verifier) (*Fetched, error) {
	repo, err := c.repository(src)
	if err != nil {
		return nil, err
	}
	desc, rc, err := repo.FetchReference(ctx, src.Ref.Reference)
	if err != nil {
		return nil, c.registryError(src, err)
	}
	if desc.Size > maxManifestBytes {
		rc.Close()
		return nil, fmt.Errorf("manifest %s: %d bytes, more than %d", desc.Digest, desc.Size, maxManifestBytes)
	}
	if !slices.Contains(manifestTypes, desc.MediaType) {
		rc.Close()
		return nil, fmt.Errorf("%s is a %q, not an OCI image manifest (application/wasm artifact)", desc.Digest, desc.MediaType)
	}
	raw, err := readDescribed(rc, desc, maxManifestBytes)
	rc.Close()
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var m wasmManifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var index string // the index the tag named, if any: a signature of it covers its images
	if desc.MediaType == ocispec.MediaTypeImageIndex || desc.MediaType == mediaTypeDockerList {
		index = desc.Digest.String()
		// An image built for one platform may still be pushed as an index (docker buildx):
		// its linux/amd64 image, as hyper-mcp resolves it.
		if desc, m, err = imageOfIndex(ctx, repo, desc, m); err != nil {
			return nil, err
		}
	}
	wasmLayer := len(m.Layers) == 1 && m.Layers[0].MediaType == MediaTypeLayer
	switch {
	case m.Config.MediaType == MediaTypeConfig && wasmLayer:
	case (m.ArtifactType == ArtifactTypeHyperMCP || m.Config.MediaType == ArtifactTypeHyperMCP) && wasmLayer:
		// hyper-mcp's ORAS layout: the one layer is the module, as in ours.
	case isImage(m):
		return c.fetchImage(ctx, src, repo, desc, index, m, want, verify)
	default:
		return nil, fmt.Errorf("%s is not a Wasm OCI artifact (config %s, one layer %s), a hyper-mcp plugin (artifact type %s, one layer %s) or an image holding /plugin.wasm",
			desc.Digest, MediaTypeConfig, MediaTypeLayer, ArtifactTypeHyperMCP, MediaTypeLayer)
	}
	layer := m.Layers[0]
	if layer.Size > c.o.MaxBytes {
		return nil, fmt.Errorf("%w: the layer is %d bytes, the module-size cap is %d", ErrTooLarge, layer.Size, c.o.MaxBytes)
	}
	if layer.Digest.Algorithm() != digest.SHA256 {
		return nil, fmt.Errorf("layer digest %s: only sha256 is supported", layer.Digest)
	}
	d := layer.Digest.Encoded()
	if want != "" && d != want {
		return nil, fmt.Errorf("%w: the lock wants sha256:%s, %s has layer sha256:%s", ErrDigest, want, desc.Digest, d)
	}
	if c.store.Has(d) {
		if verify != nil {
			if err := c.verifyStoredOCI(ctx, repo, d, verify, desc, index); err != nil {
				return nil, err
			}

		}
		return c.fetched(src, desc.Digest.String(), d), nil
	}
	body, err := repo.Fetch(ctx, layer)
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	defer body.Close()
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
	if _, err := c.store.write(c.progress(&sizedReader{r: body, n: layer.Size}, src.Raw, layer.Size), d, c.o.MaxBytes, check); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	c.keepBundle(d, sig)
	return c.fetched(src, desc.Digest.String(), d), nil
}

// verifyStoredOCI checks the stored module d, read from desc (named by index), under verify
// with the signatures published for it, and keeps a referrer bundle that verifies.
func (c *Client) verifyStoredOCI(ctx context.Context, repo *remote.Repository, d string, verify Verifier, desc ocispec.Descriptor, index string) error {
	b, err := c.store.Read(d, c.o.MaxBytes)
	if err != nil {
		return err
	}
	cands, looked, err := c.ociSignatures(ctx, repo, desc, index)
	if err != nil {
		return err
	}
	sig, err := verifyOCI(verify, b, desc, index, cands, looked)
	if err != nil {
		return err
	}
	c.keepBundle(d, sig)
	return nil
}

// verifyStored checks the stored module d of a URL source under verify with the bundle
// bundle() fetches, and keeps the bundle if it verifies.
func (c *Client) verifyStored(d string, verify Verifier, bundle func() ([]byte, error)) error {
	b, err := c.store.Read(d, c.o.MaxBytes)
	if err != nil {
		return err
	}
	sig, err := bundle()
	if err != nil {
		return err
	}
	if err := verify(Signed{Module: b, Bundle: sig, Looked: "the Sigstore bundle beside the URL (.sigstore.json)"}); err != nil {
		return err
	}
	c.keepBundle(d, sig)
	return nil
}

// manifests lists the digests a signature of an OCI module may name: the manifest holding it,
// then the index that named that manifest (if any).
func manifests(desc ocispec.Descriptor, index string) []string {
	if index == "" {
		return []string{desc.Digest.String()}
	}
	return []string{desc.Digest.String(), index}
}

// referrersLooked names where ociBundles looked, for the unsigned message.
func referrersLooked(desc ocispec.Descriptor, index string) string {
	return "OCI referrers of type " + MediaTypeBundle + " of " + strings.Join(manifests(desc, index), " and ")
}

// keepBundle stores a bundle that verified for module d, so serve can check it offline.
// Failing to keep it only costs a fetch later.
func (c *Client) keepBundle(d string, sig []byte) {
	if sig != nil {
		_ = c.store.PutBundle(d, sig)
	}
}

func readCapped(r io.Reader, max int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes", what, max)
	}
	return b, nil
}

// readDescribed reads the content desc describes from r: at most desc.Size bytes (refused
// above max), through a limited reader, so a server sending more is refused without buffering
// it, and checked against desc's digest.
func readDescribed(r io.Reader, desc ocispec.Descriptor, max int64) ([]byte, error) {
	if desc.Size < 0 || desc.Size > max {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", desc.Digest, desc.Size, max)
	}
	b, err := io.ReadAll(&sizedReader{r: r, n: desc.Size})
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != desc.Size {
		return nil, fmt.Errorf("%s: %w: %d bytes, the descriptor says %d", desc.Digest, ErrDigest, len(b), desc.Size)
	}
	if err := desc.Digest.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", desc.Digest, err)
	}
	if got := desc.Digest.Algorithm().FromBytes(b); got != desc.Digest {
		return nil, fmt.Errorf("%w: want %s, got %s", ErrDigest, desc.Digest, got)
	}
	return b, nil
}

// sizedReader passes n bytes of r through and fails if r has more: a server must not send
// more than its descriptor says.
type sizedReader struct {
	r io.Reader
	n int64
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.n <= 0 {
		var one [1]byte
		k, err := io.ReadFull(s.r, one[:])
		if k > 0 {
			return 0, fmt.Errorf("the server sent more bytes than the descriptor's size: %w", ErrTooLarge)
		}
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		return 0, err
	}
	if int64(len(p)) > s.n {
		p = p[:s.n]
	}
	k, err := s.r.Read(p)
	s.n -= int64(k)
	if err == io.EOF && s.n > 0 {
		return k, io.EOF
	}
	if err == io.EOF {
		err = nil // let the next read look for excess bytes
	}
	return k, err
}

// trimDigest strips "sha256:".
func trimDigest(s string) string { return strings.TrimPrefix(s, "sha256:") }
