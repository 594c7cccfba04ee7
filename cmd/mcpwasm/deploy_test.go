package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/internal/config"
	"sigs.k8s.io/yaml"
)

// The container image and the Kubernetes objects (docs/operations.md,
// "Container image" and "Kubernetes") are checked against the repository and the binary here; .ci/container.sh builds
// and runs the image for real (docker, nginx), and kubectl apply is left to the user.

// dockerfile is the parsed ../../Dockerfile.
type dockerfile struct {
	stages     [][]dockerInstr // one per FROM, each starting with it
	goVersion  string          // of the build stage's golang image
	user       string          // the final stage's USER
	expose     []string
	entrypoint []string
	cmd        []string
	env        map[string]string
	files      []string // absolute paths the final stage COPYs from the build context
	args       []string // the global ARGs (before the first FROM)
}

type dockerInstr struct {
	op, args string
}

func parseDockerfile(t *testing.T, name string) *dockerfile {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	d := &dockerfile{env: map[string]string{}}
	var logical string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || line == "" && logical == "" {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			logical += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		logical += line
		op, args, _ := strings.Cut(logical, " ")
		logical = ""
		in := dockerInstr{strings.ToUpper(op), strings.TrimSpace(args)}
		if in.op == "FROM" {
			d.stages = append(d.stages, nil)
		}
		if len(d.stages) == 0 && in.op == "ARG" {
			d.args = append(d.args, in.args) // MCPWASM_BINARY: which stage the binary comes from
			continue
		}
		if len(d.stages) == 0 {
			t.Fatalf("%s: %s before the first FROM", name, in.op)
		}
		d.stages[len(d.stages)-1] = append(d.stages[len(d.stages)-1], in)
	}
	jsonArray := func(in dockerInstr) []string {
		var a []string
		if err := json.Unmarshal([]byte(in.args), &a); err != nil {
			t.Fatalf("%s %s: want the exec (JSON array) form: %v", in.op, in.args, err)
		}
		return a
	}
	if m := regexp.MustCompile(`^golang:(\S+) AS build$`).FindStringSubmatch(d.stages[0][0].args); m != nil {
		d.goVersion = m[1]
	}
	for _, in := range d.stages[len(d.stages)-1] {
		switch in.op {
		case "USER":
			d.user = in.args
		case "EXPOSE":
			d.expose = strings.Fields(in.args)
		case "ENTRYPOINT":
			d.entrypoint = jsonArray(in)
		case "CMD":
			d.cmd = jsonArray(in)
		case "ENV":
			k, v, _ := strings.Cut(in.args, "=")
			d.env[k] = v
		case "COPY":
			f := strings.Fields(in.args)
			if strings.HasPrefix(f[0], "--from") {
				continue
			}
			dst := f[len(f)-1]
			for _, src := range f[:len(f)-1] {
				if strings.HasPrefix(src, "--") {
					continue
				}
				if strings.HasSuffix(dst, "/") {
					d.files = append(d.files, dst+path.Base(src))
				} else {
					d.files = append(d.files, dst)
				}
				if _, err := os.Stat(filepath.Join("../..", src)); err != nil {
					t.Errorf("Dockerfile: COPY %s: %v", src, err)
				}
			}
		}
	}
	return d
}

// serveFlags returns the flag names `mcpwasm serve -h` lists.
func serveFlags(t *testing.T) map[string]bool {
	t.Helper()
	out, _ := exec.Command(binPath, "serve", "-h").CombinedOutput()
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`).FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if !flags["http"] || !flags["stateless"] {
		t.Fatalf("serve -h lists no --http or --stateless:\n%s", out)
	}
	return flags
}

// checkServeArgs checks a container's arguments: the serve command, flags it has, and returns
// the flags' values by name (a boolean flag maps to "true").
func checkServeArgs(t *testing.T, where string, args []string, flags map[string]bool) map[string]string {
	t.Helper()
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("%s: arguments %q do not start with serve", where, args)
	}
	vals := map[string]string{}
	for i := 1; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		if !ok {
			t.Errorf("%s: argument %q is not a flag (guests come from the config file)", where, args[i])
			continue
		}
		if n, v, ok := strings.Cut(name, "="); ok {
			name, vals[n] = n, v
		} else if name == "stateless" || name == "json-response" || name == "lazy" || name == "watch" || name == "no-cache" || name == "allow-public-without-token" {
			vals[name] = "true"
		} else if i+1 < len(args) {
			i++
			vals[name] = args[i]
		}
		if !flags[name] {
			t.Errorf("%s: flag --%s is not a flag of mcpwasm serve", where, name)
		}
	}
	return vals
}

// ignored reports whether .dockerignore's patterns keep name (slash-separated, relative to
// the context) out of the build context: the last matching pattern decides, "!" re-includes,
// a pattern matching a directory covers everything under it, "**/" matches at any depth.
func ignored(patterns []string, name string) bool {
	out := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		match := func(pat string) bool {
			for prefix := name; prefix != "."; prefix = path.Dir(prefix) {
				if ok, _ := path.Match(pat, prefix); ok {
					return true
				}
			}
			return false
		}
		hit := match(p)
		if rest, ok := strings.CutPrefix(p, "**/"); ok && !hit {
			parts := strings.Split(name, "/")
			for i := range parts {
				if match(rest) || func() bool {
					sub := strings.Join(parts[i:], "/")
					for prefix := sub; prefix != "."; prefix = path.Dir(prefix) {
						if ok, _ := path.Match(rest, prefix); ok {
							return true
						}
					}
					return false
				}() {
					hit = true
					break
				}
			}
		}
		if hit {
			out = !neg
		}
	}
	return out
}

// yamlDocs parses a file of YAML documents into JSON-shaped values (sigs.k8s.io/yaml, as
// kubectl does), skipping empty documents.
func yamlDocs(t *testing.T, name string, b []byte) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for i, part := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(part), &m); err != nil {
			t.Fatalf("%s: document %d: %v", name, i, err)
		}
		if m != nil {
			docs = append(docs, m)
		}
	}
	return docs
}

// get walks a JSON-shaped value by keys (string) and indexes (int).
func dig(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// renderChart renders the Helm chart's templates with its values.yaml and release name,
// with Go's text/template and the few Helm functions the templates use (values.yaml says
// which), and returns the objects by kind.
func renderChart(t *testing.T, dir, release string) map[string]map[string]any {
	t.Helper()
	vb, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(vb, &values); err != nil {
		t.Fatalf("values.yaml: %v", err)
	}
	var chart struct {
		APIVersion string `json:"apiVersion"`
		Name       string `json:"name"`
		Version    string `json:"version"`
	}
	cb, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(cb, &chart); err != nil || chart.APIVersion != "v2" || chart.Name != "mcpwasm" || chart.Version == "" {
		t.Errorf("Chart.yaml: %+v %v", chart, err)
	}
	funcs := template.FuncMap{
		"quote": func(v any) string { return strconv.Quote(fmt.Sprint(v)) },
		"toYaml": func(v any) (string, error) {
			b, err := yaml.Marshal(v)
			return strings.TrimSuffix(string(b), "\n"), err
		},
		"nindent": func(n int, s string) string {
			pad := strings.Repeat(" ", n)
			return "\n" + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
		},
	}
	data := map[string]any{"Values": values, "Release": map[string]any{"Name": release}, "Chart": map[string]any{"Name": chart.Name}}
	files, err := filepath.Glob(filepath.Join(dir, "templates", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates in %s: %v", dir, err)
	}
	objs := map[string]map[string]any{}
	for _, f := range files {
		tb, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := template.New(filepath.Base(f)).Funcs(funcs).Option("missingkey=error").Parse(string(tb))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var out bytes.Buffer
		if err := tmpl.Execute(&out, data); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, doc := range yamlDocs(t, f, out.Bytes()) {
			objs[doc["kind"].(string)] = doc
		}
	}
	return objs
}

// TestDeployManifests: the Dockerfile, deploy/kubernetes and the Helm chart agree with each
// other and with the binary — Go version, flags, ports, probe paths, the cache directory, the
// config file, the security settings.
func TestDeployManifests(t *testing.T) {
	flags := serveFlags(t)

	// --- Dockerfile and .dockerignore ---
	d := parseDockerfile(t, "../../Dockerfile")
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)[1]
	if d.goVersion != string(goVersion) {
		t.Errorf("Dockerfile builds with golang:%s, go.mod says go %s", d.goVersion, goVersion)
	}
	var build string
	for _, in := range d.stages[0] {
		if in.op == "RUN" && strings.Contains(in.args, "go build") {
			build = in.args
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "./cmd/mcpwasm"} {
		if !strings.Contains(build, want) {
			t.Errorf("Dockerfile's go build %q lacks %s", build, want)
		}
	}
	if !regexp.MustCompile(`^[1-9][0-9]*(:[0-9]+)?$`).MatchString(d.user) {
		t.Errorf("Dockerfile USER %q: want a numeric non-root UID", d.user)
	}
	uid, _, _ := strings.Cut(d.user, ":")
	if len(d.expose) != 1 {
		t.Fatalf("Dockerfile EXPOSE %q: want one port", d.expose)
	}
	port := d.expose[0]
	if diff := cmp.Diff([]string{"/mcpwasm"}, d.entrypoint); diff != "" {
		t.Errorf("ENTRYPOINT (-want +got):\n%s", diff)
	}
	cmdFlags := checkServeArgs(t, "Dockerfile CMD", d.cmd, flags)
	if cmdFlags["http"] != "0.0.0.0:"+port || cmdFlags["stateless"] != "true" {
		t.Errorf("Dockerfile CMD %q: want --http 0.0.0.0:%s --stateless", d.cmd, port)
	}
	// All interfaces: the image must not serve without a token unless told to (it refuses,
	// exit ExitPublicNoToken; the Dockerfile's comment shows docker run -e MCPWASM_HTTP_TOKEN).
	if checkPublicHTTP(cmdFlags["http"], "", "MCPWASM_HTTP_TOKEN", cmdFlags["allow-public-without-token"] == "true") == nil {
		t.Errorf("Dockerfile CMD %q serves every tool on %s without a bearer token", d.cmd, cmdFlags["http"])
	}
	// One final stage for both ways of getting the binary: it copies only from the stage
	// `binary`, which is `build` by default and `prebuilt` (a binary built outside, the way
	// .ci/container.sh builds the image offline) with --build-arg MCPWASM_BINARY=prebuilt.
	froms := map[string]string{}
	for _, st := range d.stages {
		f := strings.Fields(st[0].args)
		if len(f) == 3 && strings.EqualFold(f[1], "AS") {
			froms[f[2]] = f[0]
		}
	}
	if !slices.Contains(d.args, "MCPWASM_BINARY=build") || froms["binary"] != "${MCPWASM_BINARY}" || froms["prebuilt"] != "scratch" {
		t.Errorf("Dockerfile: want ARG MCPWASM_BINARY=build, FROM ${MCPWASM_BINARY} AS binary and FROM scratch AS prebuilt; got ARGs %q, stages %v", d.args, froms)
	}
	for _, in := range d.stages[len(d.stages)-1] {
		if f := strings.Fields(in.args); in.op == "COPY" && strings.HasPrefix(f[0], "--from") && f[0] != "--from=binary" {
			t.Errorf("Dockerfile's final stage: COPY %s: want --from=binary (so both ways build the same image)", in.args)
		}
	}
	cache := d.env["XDG_CACHE_HOME"]
	if cache == "" {
		t.Errorf("Dockerfile sets no XDG_CACHE_HOME (the compile cache would go under $HOME)")
	}
	ignore, err := os.ReadFile("../../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(ignore), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	// Every file the build reads is sent to the builder: go.mod, go.sum, the COPYed files and
	// the sources and embedded files of every package of this module the binary needs.
	need := []string{"go.mod", "go.sum"}
	for _, f := range d.files {
		if strings.HasPrefix(f, "/guests/") {
			need = append(need, "guests/"+path.Base(f))
		}
	}
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{if eq .Module.Path "github.com/mcpwasm/mcpwasm"}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../..")
	for _, f := range strings.Fields(string(out)) {
		rel, _ := filepath.Rel(root, f)
		need = append(need, filepath.ToSlash(rel))
	}
	for _, f := range need {
		if ignored(patterns, f) {
			t.Errorf(".dockerignore keeps %s, which the image build needs, out of the context", f)
		}
	}
	for _, f := range []string{".git/HEAD", "testdata/interop/node_modules/x", "cmd/mcpwasm/serve_test.go", "bench/go.mod"} {
		if !ignored(patterns, f) {
			t.Errorf(".dockerignore sends %s to the builder", f)
		}
	}

	// --- deploy/kubernetes ---
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]map[string]any{}
	var resources []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range yamlDocs(t, f, b) {
			kind, _ := doc["kind"].(string)
			if kind == "Kustomization" {
				for _, r := range doc["resources"].([]any) {
					resources = append(resources, r.(string))
				}
				continue
			}
			if objs[kind] != nil {
				t.Errorf("two %s objects", kind)
			}
			objs[kind] = doc
		}
	}
	var names []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			names = append(names, b)
		}
	}
	slices.Sort(resources)
	if diff := cmp.Diff(names, resources); diff != "" {
		t.Errorf("kustomization.yaml resources (-files +listed):\n%s", diff)
	}
	for _, kind := range []string{"ConfigMap", "Deployment", "Service", "PodDisruptionBudget"} {
		if objs[kind] == nil {
			t.Fatalf("deploy/kubernetes has no %s", kind)
		}
	}
	checkKubernetes(t, objs, flags, port, uid, cache, d.files)

	// --- the Helm chart renders the same objects ---
	chart := renderChart(t, "../../deploy/helm/mcpwasm", "mcpwasm")
	if diff := cmp.Diff(objs, chart); diff != "" {
		t.Errorf("deploy/helm/mcpwasm (release mcpwasm, default values) differs from deploy/kubernetes (-kubernetes +helm):\n%s", diff)
	}
}

// checkKubernetes checks the Deployment, Service, PDB and ConfigMap against the image (port,
// UID, cache directory, files) and the binary (flags, probe paths, the config file).
func checkKubernetes(t *testing.T, objs map[string]map[string]any, flags map[string]bool, port, uid, cache string, imageFiles []string) {
	dep, svc, pdb, cm := objs["Deployment"], objs["Service"], objs["PodDisruptionBudget"], objs["ConfigMap"]
	pod := dig(dep, "spec", "template", "spec").(map[string]any)
	podLabels := dig(dep, "spec", "template", "metadata", "labels")
	for what, sel := range map[string]any{
		"Deployment selector": dig(dep, "spec", "selector", "matchLabels"),
		"Service selector":    dig(svc, "spec", "selector"),
		"PDB selector":        dig(pdb, "spec", "selector", "matchLabels"),
	} {
		if sel == nil || !cmp.Equal(sel, podLabels) {
			t.Errorf("%s %v does not select the pods (labels %v)", what, sel, podLabels)
		}
	}
	if r, _ := dig(dep, "spec", "replicas").(float64); r < 2 {
		t.Errorf("Deployment replicas %v: want several", r)
	}
	if dig(pdb, "spec", "maxUnavailable") == nil && dig(pdb, "spec", "minAvailable") == nil {
		t.Errorf("PodDisruptionBudget sets neither maxUnavailable nor minAvailable")
	}

	containers := pod["containers"].([]any)
	if len(containers) != 1 {
		t.Fatalf("%d containers, want 1", len(containers))
	}
	c := containers[0].(map[string]any)
	var args []string
	for _, a := range c["args"].([]any) {
		args = append(args, a.(string))
	}
	vals := checkServeArgs(t, "Deployment args", args, flags)
	if vals["http"] != "0.0.0.0:"+port || vals["stateless"] != "true" {
		t.Errorf("Deployment args %q: want --http 0.0.0.0:%s --stateless", args, port)
	}

	// 0.0.0.0 without a token is refused (checkPublicHTTP): the token variable comes from a
	// Secret the pod does not start without, unless --allow-public-without-token says the
	// open endpoint is meant (then the Secret may be optional).
	tokenEnv := vals["token-env"]
	if tokenEnv == "" {
		tokenEnv = "MCPWASM_HTTP_TOKEN" // the flag's default
	}
	allow := vals["allow-public-without-token"] == "true"
	var tokenRef any
	for _, e := range c["env"].([]any) {
		if dig(e, "name") == tokenEnv {
			tokenRef = dig(e, "valueFrom", "secretKeyRef")
		}
	}
	if checkPublicHTTP(vals["http"], "", tokenEnv, allow) != nil && (tokenRef == nil || dig(tokenRef, "optional") == true) {
		t.Errorf("Deployment: --http %s needs a token, but $%s is not from a required Secret (%v): the pods would refuse to start",
			vals["http"], tokenEnv, tokenRef)
	}

	// Ports: EXPOSE = containerPort "http" = Service targetPort = probes' port.
	containerPorts := map[string]string{}
	for _, p := range c["ports"].([]any) {
		containerPorts[dig(p, "name").(string)] = fmt.Sprint(dig(p, "containerPort"))
	}
	resolve := func(p any) string {
		if s, ok := p.(string); ok {
			if n, ok := containerPorts[s]; ok {
				return n
			}
			return "unknown port name " + s
		}
		return fmt.Sprint(p)
	}
	if containerPorts["http"] != port {
		t.Errorf("containerPort http = %s, the image EXPOSEs %s", containerPorts["http"], port)
	}
	svcPorts := dig(svc, "spec", "ports").([]any)
	if len(svcPorts) != 1 || resolve(dig(svcPorts[0], "targetPort")) != port {
		t.Errorf("Service ports %v: want one with targetPort %s", svcPorts, port)
	}
	probePaths := map[string]string{}
	for _, probe := range []string{"startupProbe", "readinessProbe", "livenessProbe"} {
		p := dig(c, probe, "httpGet", "path")
		if p == nil {
			t.Errorf("no %s.httpGet", probe)
			continue
		}
		probePaths[probe] = p.(string)
		if got := resolve(dig(c, probe, "httpGet", "port")); got != port {
			t.Errorf("%s port %s, want %s", probe, got, port)
		}
	}
	if probePaths["readinessProbe"] != "/readyz" || probePaths["livenessProbe"] != "/healthz" {
		t.Errorf("probes %v: want readiness /readyz, liveness /healthz", probePaths)
	}

	// Drain: the grace period outlasts --drain-delay + --drain-timeout.
	delay, err1 := time.ParseDuration(vals["drain-delay"])
	timeout, err2 := time.ParseDuration(vals["drain-timeout"])
	grace, _ := pod["terminationGracePeriodSeconds"].(float64)
	if err1 != nil || err2 != nil || delay <= 0 || time.Duration(grace)*time.Second <= delay+timeout {
		t.Errorf("terminationGracePeriodSeconds %v, --drain-delay %q, --drain-timeout %q: want a delay, and a grace above their sum",
			grace, vals["drain-delay"], vals["drain-timeout"])
	}

	// Security.
	for key, want := range map[string]any{"runAsNonRoot": true, "runAsUser": uid, "seccompProfile": map[string]any{"type": "RuntimeDefault"}} {
		got := dig(pod, "securityContext", key)
		if f, ok := got.(float64); ok {
			got = strconv.Itoa(int(f))
		}
		if !cmp.Equal(want, got) {
			t.Errorf("pod securityContext.%s = %v, want %v", key, got, want)
		}
	}
	for key, want := range map[string]any{"readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false,
		"capabilities": map[string]any{"drop": []any{"ALL"}}} {
		if got := dig(c, "securityContext", key); !cmp.Equal(want, got) {
			t.Errorf("container securityContext.%s = %v, want %v", key, got, want)
		}
	}
	for _, k := range []string{"requests", "limits"} {
		if m, _ := dig(c, "resources", k).(map[string]any); m["cpu"] == nil || m["memory"] == nil {
			t.Errorf("resources.%s = %v: want cpu and memory", k, m)
		}
	}

	// Volumes: the config file is the ConfigMap's key; the cache directory is writable.
	mounts := map[string]string{} // mount path → volume
	for _, m := range c["volumeMounts"].([]any) {
		mounts[dig(m, "mountPath").(string)] = dig(m, "name").(string)
	}
	volumes := map[string]map[string]any{}
	for _, v := range pod["volumes"].([]any) {
		volumes[dig(v, "name").(string)] = v.(map[string]any)
	}
	cfgPath := vals["config"]
	cfgVol := volumes[mounts[path.Dir(cfgPath)]]
	if dig(cfgVol, "configMap", "name") != dig(cm, "metadata", "name") {
		t.Errorf("--config %s is not in a mounted ConfigMap %v (mounts %v)", cfgPath, dig(cm, "metadata", "name"), mounts)
	}
	if dig(volumes[mounts[cache]], "emptyDir") == nil {
		t.Errorf("the cache directory %s (XDG_CACHE_HOME) is not an emptyDir mount: the root filesystem is read-only (mounts %v)", cache, mounts)
	}
	cfgText, _ := dig(cm, "data", path.Base(cfgPath)).(string)
	cfg, err := config.Parse([]byte(cfgText))
	if err != nil {
		t.Fatalf("ConfigMap %s: %v", path.Base(cfgPath), err)
	}
	if len(cfg.Guests) == 0 {
		t.Errorf("the ConfigMap's config has no guests")
	}
	for _, g := range cfg.Guests {
		if !slices.Contains(imageFiles, g.Path) {
			t.Errorf("guest %s: %s is not a file of the image (%v)", g.Name, g.Path, imageFiles)
		}
	}

	// The binary serves the probe paths with these arguments (the guests taken from the
	// repository instead of the image): /healthz at once, /readyz once the guests are ready.
	local := strings.ReplaceAll(cfgText, `"/guests/`, `"`+filepath.ToSlash(mustAbs(t, "../../guests"))+"/")
	cfgFile := filepath.Join(t.TempDir(), "mcpwasm.json")
	if err := os.WriteFile(cfgFile, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	runArgs := slices.Clone(args[1:])
	for i := range runArgs {
		switch runArgs[i] {
		case "0.0.0.0:" + port:
			runArgs[i] = "127.0.0.1:0"
		case cfgPath:
			runArgs[i] = cfgFile
		}
	}
	s := startServer(t, runArgs...)
	var addr string
	re := regexp.MustCompile(`transport=http addr=(\S+)`)
	waitOutput(t, s.stderr, "the HTTP server to listen", func(out string) bool {
		if m := re.FindStringSubmatch(out); m != nil {
			addr = m[1]
		}
		return addr != ""
	})
	for _, p := range []string{probePaths["livenessProbe"], probePaths["readinessProbe"]} {
		code, body := pollUntilOK(t, "http://"+addr+p)
		if code != http.StatusOK {
			t.Errorf("GET %s = %d %q", p, code, body)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// pollUntilOK GETs url until it answers 200 (a readiness endpoint turns ready when the
// guests have compiled) or the test's deadline nears; it returns the last answer.
func pollUntilOK(t *testing.T, url string) (int, string) {
	t.Helper()
	ctx := testContext(t)
	for {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err) // the server is listening: an error is not "not ready yet"
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || ctx.Err() != nil {
			return resp.StatusCode, string(b)
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}
