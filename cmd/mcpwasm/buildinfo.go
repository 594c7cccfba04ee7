package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
)

// pseudoVersion matches the tail every Go pseudo-version ends with: a UTC timestamp and a
// 12-digit commit hash (v0.0.0-20261130170655-294800708a2e, v1.2.4-0.2026…-…,
// v1.3.0-pre.0.2026…-…), with the +dirty a modified checkout adds.
var pseudoVersion = regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// releaseVersion reports whether v, a main module's version from the build info, names a
// release: not empty, not "(devel)" (a build outside version control, or -buildvcs=false),
// not a pseudo-version (what a build inside a git checkout is stamped with by Go's default
// -buildvcs=auto), and not +dirty (a checkout at a tag, with edits). Only a release can be
// found on a module proxy; everything else is a development build.
func releaseVersion(v string) bool {
	return v != "" && v != "(devel)" && !pseudoVersion.MatchString(v) && !strings.HasSuffix(v, "+dirty")
}

// buildVersion is the main module's version as the build info records it ("" without one).
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return ""
}

// version is what this binary calls itself to peers (serverInfo, clientInfo, telemetry): its
// release, or "dev" for any development build, whatever commit it was stamped with.
func version() string {
	if v := buildVersion(); releaseVersion(v) {
		return v
	}
	return "dev"
}

// versionLine is `mcpwasm version`: a development build names the commit it was built from
// when Go stamped one (dev v0.0.0-…), so a bug report still says which.
func versionLine() string {
	deps := map[string]string{}
	goVersion := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		for _, d := range bi.Deps {
			deps[d.Path] = d.Version
		}
	}
	v := version()
	if bv := buildVersion(); v == "dev" && bv != "" && bv != "(devel)" {
		v += " " + bv
	}
	return fmt.Sprintf("mcpwasm %s (ABI v%d; %s; wazero %s; go-sdk %s)", v, abi.Version, goVersion,
		deps["github.com/tetratelabs/wazero"], deps["github.com/modelcontextprotocol/go-sdk"])
}

// findSDK finds the source of mcpwasm a development build was built from (see sdkCheckout);
// a variable so tests can take the finding away.
var findSDK = sdkCheckout

// sdkCheckout returns the root of a copy of sdkModule's source for a development build to
// scaffold against, or "": first the directory this binary was compiled from (the path the
// compiler recorded for this file: a checkout for `go build`/`go install ./cmd/mcpwasm`, the
// module cache for `go install …@commit`; a -trimpath build records none), then the current
// directory and its parents (mcpwasm run inside its own checkout).
func sdkCheckout() string {
	_, file, _, _ := runtime.Caller(0)
	wd, _ := os.Getwd()
	return sdkCheckoutFrom(file, wd)
}

// sdkCheckoutFrom is sdkCheckout given this file's compiled path and the working directory.
func sdkCheckoutFrom(file, wd string) string {
	var candidates []string
	if filepath.IsAbs(file) {
		candidates = append(candidates, filepath.Dir(filepath.Dir(filepath.Dir(file))))
	}
	if wd != "" {
		for d := wd; ; d = filepath.Dir(d) {
			candidates = append(candidates, d)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range candidates {
		if isSDKCheckout(d) {
			return d
		}
	}
	return ""
}

// isSDKCheckout reports whether dir holds sdkModule's source: a go.mod naming it and the
// guest SDK beside it.
func isSDKCheckout(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !strings.Contains(string(b), "module "+sdkModule+"\n") {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "abi", "guest", "guest.go"))
	return err == nil
}
