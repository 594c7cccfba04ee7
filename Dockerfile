# mcpwasm container image: one static binary (the bundled guests are embedded in it) on an
# empty base. Build and run (README "Run in production: container and Kubernetes"):
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
RUN mkdir -p /out/cache

FROM scratch
# CA certificates for guests granted https (net) and for https upstreams.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/mcpwasm /mcpwasm
COPY --from=build --chown=65532:65532 /out/cache /cache
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
# All interfaces (a bare ":8080" would mean 127.0.0.1), one request per session; a bearer token
# in MCPWASM_HTTP_TOKEN is required (see above).
CMD ["serve", "--http", "0.0.0.0:8080", "--stateless"]
