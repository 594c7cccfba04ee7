package extism

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// Import modules of Extism plugins.
const (
	// EnvModule is the kernel and the host calls every Extism host defines.
	EnvModule = "extism:host/env"
	// UserModule is where a host application's own functions live; hyper-mcp defines the
	// MCP callbacks there (UserFuncs).
	UserModule = "extism:host/user"
)

// HostFunc is one Go host function: its name, wasm signature and body.
type HostFunc struct {
	Name            string
	Params, Results []api.ValueType
	Fn              api.GoModuleFunc
}

// HostModule is one host module and its functions.
type HostModule struct {
	Name  string
	Funcs []HostFunc
}

const (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

func fn(name string, params, results []api.ValueType, f api.GoModuleFunc) HostFunc {
	return HostFunc{Name: name, Params: params, Results: results, Fn: f}
}

// HostModules returns the two host modules Extism plugins import: the kernel and host calls
// (EnvModule) and hyper-mcp's MCP callbacks (UserModule). Their functions find the running
// plugin's Instance and Call with kind.CallOf, from the module that called them (the plugin,
// or its kernel module, which the pool binds to the plugin's Call); none keeps a pointer to
// guest memory.
func HostModules() []HostModule {
	return []HostModule{{Name: EnvModule, Funcs: envFuncs}, {Name: UserModule, Funcs: userFuncs}}
}

// Instantiate instantiates HostModules in rt (once per runtime).
func Instantiate(ctx context.Context, rt wazero.Runtime) error {
	for _, m := range HostModules() {
		b := rt.NewHostModuleBuilder(m.Name)
		for _, f := range m.Funcs {
			b.NewFunctionBuilder().WithGoModuleFunction(f.Fn, f.Params, f.Results).Export(f.Name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("extism: instantiating %s: %w", m.Name, err)
		}
	}
	return nil
}

// fail ends the call from a host function (kind.Abort: the call's error is err as it is,
// and the instance is discarded, as after a trap).
func fail(name string, err error) { kind.Abort(&hostError{fn: name, err: err}) }

// current returns the instance whose entry is running in the module mod that called host
// function name, ending the call if there is none. It finds it the seam's one way
// (kind.CallOf: the Call the pool bound to mod, the plugin or its kernel module; its Started
// is this kind's), never through ctx: a context carries no instance, so a host function
// reached from another module with a context that passed through some plugin's entry cannot
// reach that plugin.
func current(ctx context.Context, mod api.Module, name string) *Instance {
	inst := instanceOf(kind.CallOf(ctx, mod))
	if inst == nil || inst.call == nil {
		fail(name, fmt.Errorf("%w: called outside a plugin entry", ErrABI))
	}
	return inst
}

// handle returns the block at off, ending the call if it is none (the reference host's
// "invalid handle offset for …").
func (inst *Instance) handle(name, what string, off uint64) []byte {
	b, ok := inst.Kernel.Bytes(off)
	if !ok {
		fail(name, fmt.Errorf("%w: invalid handle offset for %s: %d", ErrABI, what, off))
	}
	return b
}

// arg is handle for an argument the host decodes or copies: one over limit (the seam's caps,
// kind.CheckArg) ends the call before any of it is read.
func (inst *Instance) arg(name, what string, off, limit uint64) []byte {
	b := inst.handle(name, what, off)
	if err := kind.CheckArg(what, uint64(len(b)), limit); err != nil {
		fail(name, err)
	}
	return b
}

// newBlock copies data into a new kernel block, ending the call if the budget refuses it.
func (inst *Instance) newBlock(name string, data []byte) uint64 {
	off, ok := inst.Kernel.New(data)
	if !ok {
		fail(name, fmt.Errorf("%w: %d bytes do not fit in the plugin's kernel memory", ErrMemoryLimit, len(data)))
	}
	return off
}

// kernelFunc wraps a kernel function: it needs the instance, not the call.
func kernelFunc(name string, params, results []api.ValueType, f func(k *Kernel, stack []uint64)) HostFunc {
	return fn(name, params, results, func(ctx context.Context, mod api.Module, stack []uint64) {
		f(&current(ctx, mod, name).Kernel, stack)
	})
}

var envFuncs = []HostFunc{
	kernelFunc("alloc", []api.ValueType{i64}, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.Alloc(s[0]) }),
	kernelFunc("free", []api.ValueType{i64}, nil, func(k *Kernel, s []uint64) { k.Free(s[0]) }),
	kernelFunc("length", []api.ValueType{i64}, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.Length(s[0]) }),
	kernelFunc("length_unsafe", []api.ValueType{i64}, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.Length(s[0]) }),
	kernelFunc("load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(k *Kernel, s []uint64) { s[0] = uint64(k.LoadU8(s[0])) }),
	kernelFunc("load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.LoadU64(s[0]) }),
	kernelFunc("store_u8", []api.ValueType{i64, i32}, nil, func(k *Kernel, s []uint64) { k.StoreU8(s[0], uint8(s[1])) }),
	kernelFunc("store_u64", []api.ValueType{i64, i64}, nil, func(k *Kernel, s []uint64) { k.StoreU64(s[0], s[1]) }),
	kernelFunc("input_length", nil, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.InputLength() }),
	kernelFunc("input_offset", nil, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.InputOffset() }),
	kernelFunc("input_load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(k *Kernel, s []uint64) { s[0] = uint64(k.InputLoadU8(s[0])) }),
	kernelFunc("input_load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.InputLoadU64(s[0]) }),
	fn("output_set", []api.ValueType{i64, i64}, nil, func(ctx context.Context, mod api.Module, s []uint64) {
		inst := current(ctx, mod, "output_set")
		if max := inst.call.outputBytes(); s[1] > max {
			fail("output_set", fmt.Errorf("%w: output of %d bytes is over the limit of %d bytes", ErrOutputLimit, s[1], max))
		}
		inst.Kernel.SetOutput(s[0], s[1])
	}),
	kernelFunc("output_offset", nil, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.OutputOffset() }),
	kernelFunc("output_length", nil, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.OutputLength() }),
	kernelFunc("error_set", []api.ValueType{i64}, nil, func(k *Kernel, s []uint64) { k.SetError(s[0]) }),
	kernelFunc("error_get", nil, []api.ValueType{i64}, func(k *Kernel, s []uint64) { s[0] = k.ErrorOffset() }),

	fn("config_get", []api.ValueType{i64}, []api.ValueType{i64}, hostConfigGet),
	fn("var_get", []api.ValueType{i64}, []api.ValueType{i64}, hostVarGet),
	fn("var_set", []api.ValueType{i64, i64}, nil, hostVarSet),
	fn("http_request", []api.ValueType{i64, i64}, []api.ValueType{i64}, hostHTTPRequest),
	fn("http_status_code", nil, []api.ValueType{i32}, func(ctx context.Context, mod api.Module, s []uint64) {
		s[0] = uint64(uint32(current(ctx, mod, "http_status_code").httpStatus))
	}),
	fn("http_headers", nil, []api.ValueType{i64}, hostHTTPHeaders),
	fn("get_log_level", nil, []api.ValueType{i32}, func(ctx context.Context, mod api.Module, s []uint64) {
		s[0] = uint64(uint32(current(ctx, mod, "get_log_level").call.LogLevel))
	}),
	logFunc("log_trace", 0, abi.LevelDebug),
	logFunc("log_debug", 1, abi.LevelDebug),
	logFunc("log_info", 2, abi.LevelInfo),
	logFunc("log_warn", 3, abi.LevelWarning),
	logFunc("log_error", 4, abi.LevelError),
}

// A log message copied out of the kernel is cut to kind.MaxReportMessage (as for every kind).
const maxMessage = kind.MaxReportMessage

func clipString(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// logFunc is log_<level>: below the call's level the message is freed and dropped (as the
// reference host does); otherwise it is delivered and freed. The host owns the handle.
func logFunc(name string, extismLevel int32, level abi.Level) HostFunc {
	return fn(name, []api.ValueType{i64}, nil, func(ctx context.Context, mod api.Module, s []uint64) {
		inst := current(ctx, mod, name)
		if extismLevel < inst.call.LogLevel {
			inst.Kernel.Free(s[0])
			return
		}
		msg := inst.handle(name, "log message", s[0])
		inst.call.log(level, clipString(msg, maxMessage))
		inst.Kernel.Free(s[0])
	})
}

// hostConfigGet is config_get: the operator's value for the key, or 0. The host owns the key
// handle (it is freed).
func hostConfigGet(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "config_get")
	key := string(inst.handle("config_get", "config key", s[0]))
	inst.Kernel.Free(s[0])
	v, ok := inst.call.Config[key]
	if !ok {
		s[0] = 0
		return
	}
	s[0] = inst.newBlock("config_get", []byte(v))
}

// hostVarGet is var_get: the instance's value for the key, or 0; the key handle is freed.
func hostVarGet(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "var_get")
	key := string(inst.handle("var_get", "var key", s[0]))
	inst.Kernel.Free(s[0])
	v, ok := inst.Vars.Get(key)
	if !ok {
		s[0] = 0
		return
	}
	s[0] = inst.newBlock("var_get", v)
}

// hostVarSet is var_set: value 0 deletes the key; a store over its bound ends the call. Both
// handles are freed.
func hostVarSet(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "var_set")
	if inst.Vars.Max == 0 {
		fail("var_set", errors.New("vars are disabled by this host"))
	}
	key := string(inst.handle("var_set", "var key", s[0]))
	if s[1] == 0 {
		_ = inst.Vars.Set(key, nil)
		inst.Kernel.Free(s[0])
		return
	}
	val := inst.handle("var_set", "var value", s[1])
	if err := inst.Vars.Set(key, val); err != nil {
		fail("var_set", err)
	}
	inst.Kernel.Free(s[1])
	inst.Kernel.Free(s[0])
}

// HTTPRequest is the JSON an Extism plugin passes to http_request (extism-manifest's
// HttpRequest): the method defaults to GET; a header is one value.
type HTTPRequest struct {
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// hostHTTPRequest is http_request: the request goes through the sandbox's net path (grants,
// address filter, pinned dial, redirects re-checked, size and time caps) as a request of kind
// http; there is no HTTP client here. A refusal or failure ends the call with the sandbox's
// reason (it names the net grant), as a host function error does in the reference host. The
// host owns both handles (they are freed); the answer is the body's block, 0 if empty.
func hostHTTPRequest(ctx context.Context, mod api.Module, s []uint64) {
	const name = "http_request"
	inst := current(ctx, mod, name)
	clear(inst.httpHeaders)
	inst.httpStatus = 0
	raw := inst.arg(name, "http request", s[0], kind.MaxRequestBody)
	var req HTTPRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		fail(name, fmt.Errorf("%w: the request is not an Extism HttpRequest: %v", ErrABI, err))
	}
	inst.Kernel.Free(s[0])
	out := abi.HTTPRequest{URL: req.URL, Method: strings.ToUpper(req.Method)}
	if len(req.Headers) > 0 {
		out.Headers = make(map[string][]string, len(req.Headers))
		for k, v := range req.Headers {
			out.Headers[k] = []string{v}
		}
	}
	if s[1] != 0 {
		body := inst.arg(name, "http request body", s[1], kind.MaxRequestBody)
		if utf8.Valid(body) {
			out.Body = string(body)
		} else {
			out.BodyBase64 = base64.StdEncoding.EncodeToString(body)
		}
		inst.Kernel.Free(s[1])
	}
	body, _ := json.Marshal(out)
	st, answer := inst.call.request(ctx, abi.KindHTTP, body)
	if st != abi.StatusOK {
		fail(name, statusError(st, answer))
	}
	var resp abi.HTTPResponse
	if err := json.Unmarshal(answer, &resp); err != nil {
		fail(name, fmt.Errorf("decoding the sandbox's answer: %w", err))
	}
	data := []byte(resp.Body)
	if resp.BodyBase64 != "" {
		var err error
		if data, err = base64.StdEncoding.DecodeString(resp.BodyBase64); err != nil {
			fail(name, fmt.Errorf("decoding the sandbox's answer: %w", err))
		}
	}
	inst.httpStatus = int32(resp.Status)
	if inst.httpHeaders == nil {
		inst.httpHeaders = map[string]string{}
	}
	for k, vs := range resp.Headers {
		inst.httpHeaders[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	if len(data) == 0 {
		s[0] = 0
		return
	}
	s[0] = inst.newBlock(name, data)
}

// hostHTTPHeaders is http_headers: the last response's headers as a JSON object of lowercase
// names to values (several values joined with ","), "{}" before any response.
func hostHTTPHeaders(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "http_headers")
	h := inst.httpHeaders
	if h == nil {
		h = map[string]string{}
	}
	b, _ := json.Marshal(h)
	s[0] = inst.newBlock("http_headers", b)
}

// statusError turns a refused or failed sandbox request into the error that ends the call.
func statusError(st abi.Status, body []byte) error {
	var eb abi.ErrorBody
	_ = json.Unmarshal(body, &eb)
	msg := eb.Error
	if msg == "" {
		msg = st.String()
	}
	if st == abi.StatusDenied {
		return fmt.Errorf("%w: %s", ErrRefused, msg)
	}
	return fmt.Errorf("%s (%s)", msg, st)
}

// UserFuncs are the hyper-mcp callbacks (module extism:host/user) this kind hosts, with the
// capability each needs: "" for none.
var UserFuncs = map[string]string{
	"create_elicitation":               "elicitation",
	"create_message":                   "sampling",
	"list_roots":                       "roots",
	"notify_logging_message":           "",
	"notify_progress":                  "",
	"notify_tool_list_changed":         "",
	"notify_prompt_list_changed":       "",
	"notify_resource_list_changed":     "",
	"notify_resource_updated":          "",
	"notify_url_elicitation_completed": "",
	"get_keyring_secret":               "",
	"get_access_token":                 "",
}

var userFuncs = []HostFunc{
	fn("create_elicitation", []api.ValueType{i64}, []api.ValueType{i64}, hostCreateElicitation),
	fn("create_message", []api.ValueType{i64}, []api.ValueType{i64}, hostCreateMessage),
	fn("list_roots", nil, []api.ValueType{i64}, hostListRoots),
	fn("notify_logging_message", []api.ValueType{i64}, nil, hostNotifyLogging),
	fn("notify_progress", []api.ValueType{i64}, nil, hostNotifyProgress),
	listChanged("notify_tool_list_changed", "tools"),
	listChanged("notify_prompt_list_changed", "prompts"),
	listChanged("notify_resource_list_changed", "resources"),
	fn("notify_resource_updated", []api.ValueType{i64}, nil, hostNotifyResourceUpdated),
	fn("notify_url_elicitation_completed", []api.ValueType{i64}, nil, func(ctx context.Context, mod api.Module, s []uint64) {
		inst := current(ctx, mod, "notify_url_elicitation_completed")
		inst.call.note("notify_url_elicitation_completed is not forwarded: mcpwasm has no path for it")
	}),
	fn("get_keyring_secret", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, mod api.Module, s []uint64) {
		inst := current(ctx, mod, "get_keyring_secret")
		// hyper-mcp answers an empty secret when the entry is not in allowed_secrets; a
		// plugin handles that already. mcpwasm never reads the OS keyring for a guest.
		inst.call.note("get_keyring_secret refused: mcpwasm does not read the OS keyring for plugins; " +
			"give the value in the guest's config map (config_get)")
		s[0] = 0
	}),
	fn("get_access_token", []api.ValueType{i64}, []api.ValueType{i64}, func(ctx context.Context, mod api.Module, s []uint64) {
		inst := current(ctx, mod, "get_access_token")
		msg := "get_access_token refused: mcpwasm does not run OAuth flows for plugins; " +
			"give a token in the guest's config map (config_get)"
		inst.call.note(msg)
		b, _ := json.Marshal(map[string]string{"Error": msg}) // hyper-mcp's AccessTokenResult::Error
		s[0] = inst.newBlock("get_access_token", b)
	}),
}

// clientCall sends one client request kind through the sandbox. ok is false with the reason
// when it was refused or failed; an input-required answer stops the plugin (the client's
// answer comes in a later round), as for mcpwasm guests.
func clientCall(ctx context.Context, inst *Instance, kind string, body []byte) (out []byte, reason string, ok bool) {
	st, answer := inst.call.request(ctx, kind, body)
	if sandbox.IsInputRequired(st, answer) {
		panic(peer.ErrInputRequired)
	}
	if st == abi.StatusOK {
		return answer, "", true
	}
	var eb abi.ErrorBody
	_ = json.Unmarshal(answer, &eb)
	if eb.Error == "" {
		eb.Error = kind + ": " + st.String()
	}
	return nil, eb.Error, false
}

// hostCreateMessage is create_message: CreateMessageRequestParams in, CreateMessageResult
// out. A refusal or failure answers as hyper-mcp does: an assistant message holding the
// reason, model "", stopReason "error".
func hostCreateMessage(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "create_message")
	body := inst.arg("create_message", "create_message params", s[0], kind.MaxRequestBody)
	out, reason, ok := clientCall(ctx, inst, abi.KindSampling, bytes.Clone(body))
	if !ok {
		out, _ = json.Marshal(map[string]any{
			"role": "assistant", "content": map[string]string{"type": "text", "text": reason},
			"model": "", "stopReason": "error",
		})
	}
	s[0] = inst.newBlock("create_message", out)
}

// hostCreateElicitation is create_elicitation: CreateElicitationRequestParams (plus
// hyper-mcp's optional "timeout" in seconds, which bounds the wait and is not sent on) in,
// CreateElicitationResult out. A refusal or failure answers {"action":"decline",
// "content":{"error":reason}}, as hyper-mcp does.
func hostCreateElicitation(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "create_elicitation")
	raw := inst.arg("create_elicitation", "create_elicitation params", s[0], kind.MaxRequestBody)
	var params map[string]any
	if err := json.Unmarshal(raw, &params); err != nil {
		fail("create_elicitation", fmt.Errorf("%w: params are not a JSON object: %v", ErrABI, err))
	}
	if t, ok := params["timeout"].(float64); ok {
		delete(params, "timeout")
		if t > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(t*float64(time.Second)))
			defer cancel()
		}
	}
	patchFormats(params)
	body, _ := json.Marshal(params)
	out, reason, ok := clientCall(ctx, inst, abi.KindElicitation, body)
	if !ok {
		out, _ = json.Marshal(map[string]any{"action": "decline", "content": map[string]string{"error": reason}})
	}
	s[0] = inst.newBlock("create_elicitation", out)
}

// patchFormats rewrites the JSON Schema format "date_time" (what hyper-mcp's plugin SDK
// emits) to "date-time", as hyper-mcp does before it sends the request.
func patchFormats(v any) {
	switch v := v.(type) {
	case map[string]any:
		if f, ok := v["format"].(string); ok && f == "date_time" {
			v["format"] = "date-time"
		}
		for _, x := range v {
			patchFormats(x)
		}
	case []any:
		for _, x := range v {
			patchFormats(x)
		}
	}
}

// hostListRoots is list_roots: ListRootsResult, or {"roots":[]} when refused or failed (as
// hyper-mcp answers a client without roots); the reason goes to the operator's log.
func hostListRoots(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "list_roots")
	out, reason, ok := clientCall(ctx, inst, abi.KindRoots, []byte("{}"))
	if !ok {
		inst.call.note("list_roots answered with no roots: " + reason)
		out = []byte(`{"roots":[]}`)
	}
	s[0] = inst.newBlock("list_roots", out)
}

// mcpLevels maps MCP LoggingLevel names to abi levels.
var mcpLevels = map[string]abi.Level{
	"debug": abi.LevelDebug, "info": abi.LevelInfo, "notice": abi.LevelNotice, "warning": abi.LevelWarning,
	"error": abi.LevelError, "critical": abi.LevelCritical, "alert": abi.LevelAlert, "emergency": abi.LevelEmergency,
}

// hostNotifyLogging is notify_logging_message: LoggingMessageNotificationParam
// {level, logger?, data} delivered as a log line of the call (the same path as log_*).
func hostNotifyLogging(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "notify_logging_message")
	raw := inst.arg("notify_logging_message", "logging message", s[0], kind.MaxReportJSON)
	var m struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		fail("notify_logging_message", fmt.Errorf("%w: not a LoggingMessageNotificationParam: %v", ErrABI, err))
	}
	level, ok := mcpLevels[m.Level]
	if !ok {
		fail("notify_logging_message", fmt.Errorf("%w: unknown logging level %q", ErrABI, clipString([]byte(m.Level), 32)))
	}
	var text string
	if err := json.Unmarshal(m.Data, &text); err != nil {
		text = string(m.Data)
	}
	if m.Logger != "" {
		text = m.Logger + ": " + text
	}
	inst.call.log(level, clipString([]byte(text), maxMessage))
}

// hostNotifyProgress is notify_progress: ProgressNotificationParam {progressToken, progress,
// total?, message?}. It reports progress of the running call only: the plugin's token is not
// used, so a plugin cannot report on another request's token.
func hostNotifyProgress(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "notify_progress")
	raw := inst.arg("notify_progress", "progress", s[0], kind.MaxReportJSON)
	var p struct {
		Progress *float64 `json:"progress"`
		Total    float64  `json:"total"`
		Message  string   `json:"message"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.Progress == nil {
		fail("notify_progress", fmt.Errorf("%w: not a ProgressNotificationParam (progress is required)", ErrABI))
	}
	if inst.call.Progress != nil {
		inst.call.Progress(*p.Progress, p.Total, clipString([]byte(p.Message), maxMessage))
	}
}

// hostNotifyResourceUpdated is notify_resource_updated: {uri}.
func hostNotifyResourceUpdated(ctx context.Context, mod api.Module, s []uint64) {
	inst := current(ctx, mod, "notify_resource_updated")
	raw := inst.arg("notify_resource_updated", "resource updated", s[0], kind.MaxRequestBody)
	var p struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.URI == "" {
		fail("notify_resource_updated", fmt.Errorf("%w: not a ResourceUpdatedNotificationParam (uri is required)", ErrABI))
	}
	if inst.call.ResourceUpdated != nil {
		inst.call.ResourceUpdated(p.URI)
	}
}

func listChanged(name, list string) HostFunc {
	return fn(name, nil, nil, func(ctx context.Context, mod api.Module, _ []uint64) {
		inst := current(ctx, mod, name)
		if inst.call.ListChanged != nil {
			inst.call.ListChanged(list)
		}
	})
}

// funcSig finds the signature of a hosted function, or false.
func funcSig(module, name string) (HostFunc, bool) {
	for _, m := range HostModules() {
		if m.Name != module {
			continue
		}
		for _, f := range m.Funcs {
			if f.Name == name {
				return f, true
			}
		}
	}
	return HostFunc{}, false
}

// hostedNames lists a module's hosted function names, sorted, for error messages.
func hostedNames(module string) []string {
	var out []string
	for _, m := range HostModules() {
		if m.Name == module {
			for _, f := range m.Funcs {
				out = append(out, f.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}
