# mcpwasm container image: one static binary (the bundled guests are embedded in it) on an
# empty base. Build and run (docs/operations.md, "Container image"):
#
#   docker build -t mcpwasm .
#   docker run --rm -p 8080:8080 -e MCPWASM_HTTP_TOKEN="$(openssl rand -hex 32)" \
#     --read-only --tmpfs /cache:uid=65532,gid=65532 mcpwasm
#
# The token is required: on 0.0.0.0 without one, serve refuses to start (exit 5); clients send
# "Authorization: Bearer <token>". Behind an authenticating proxy, append
# --allow-public-without-token to the command instead.
#
# deploy/kubernetes and deploy/helm/mcpwasm run it; cmd/mcpwasm's TestDeployManifests checks
# that this file, the manifests and the binary agree (Go version, flags, port, paths).
#
# Two ways to get the binary, one final image. By default the `build` stage compiles it. With
# `--build-arg MCPWASM_BINARY=prebuilt` the `prebuilt` stage takes a binary built outside
# (CGO_ENABLED=0, as below) from the build context instead, and no base image is pulled: CI
# builds the image that way, offline (.ci/container.sh). The context then holds mcpwasm,
# ca-certificates.crt, guests/calc.wasm and guests/text.wasm. Both need BuildKit (the default
# builder since Docker 23; DOCKER_BUILDKIT=1 before that), which builds only the stages the
# image uses.

# Which stage the binary, the CA certificates and the cache directory come from.
ARG MCPWASM_BINARY=build

# The Go version is go.mod's.
FROM golang:1.26.8 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no cgo), reproducible (-trimpath, no VCS stamp: .git is not sent to the builder).
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/mcpwasm ./cmd/mcpwasm
# The compile cache directory, owned by the runtime user; Kubernetes mounts an emptyDir over it
# (the root filesystem is read-only there).
RUN mkdir -p /out/cache && cp /etc/ssl/certs/ca-certificates.crt /out/

# The same files, built outside: `go build` with the flags above; ca-certificates.crt from the
# host (Debian's ca-certificates).
FROM scratch AS prebuilt
COPY mcpwasm ca-certificates.crt /out/
WORKDIR /out/cache

FROM ${MCPWASM_BINARY} AS binary

FROM scratch
# CA certificates for guests granted https (net) and for https upstreams.
COPY --from=binary /out/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=binary /out/mcpwasm /mcpwasm
COPY --from=binary --chown=65532:65532 /out/cache /cache
# The bundled guests as files too, so a config file (deploy/kubernetes/configmap.yaml) can
# grant and limit them.
COPY guests/calc.wasm guests/text.wasm /guests/
# os.UserCacheDir: the compile cache is $XDG_CACHE_HOME/mcpwasm/compile, the manifest cache
# beside it.
ENV XDG_CACHE_HOME=/cache
# Not root: a numeric UID, so Kubernetes can check runAsNonRoot without a passwd file.
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/mcpwasm"]
LABEL org.opencontainers.image.title="mcpwasm" \
      org.opencontainers.image.description="MCP tools running as WebAssembly guests under operator-granted capabilities" \
      org.opencontainers.image.licenses="Apache-2.0"
# All interfaces (a bare ":8080" would mean 127.0.0.1), one request per session; a bearer token
# in MCPWASM_HTTP_TOKEN is required (see above).
CMD ["serve", "--http", "0.0.0.0:8080", "--stateless"]
