// Package guest is the Go SDK for writing mcpwasm guests: register tools in init, build with
//
//	go generate   # if the guest uses AddTool: writes schemas_gen.go (see below)
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o tool.wasm .
//
// and the resulting module implements the ABI in ../ABI.md (exports mcpwasm_*, imports
// mcpwasm_v1.*). Like the MCP Go SDK, it offers two levels: AddTool infers the input (and
// output) JSON Schema from Go types as github.com/google/jsonschema-go does and turns a
// returned error into a tool error; AddRawTool takes a hand-written schema and raw JSON
// arguments, which it hands over without copying or re-scanning them.
//
// Schemas are inferred at build time: a guest that registers AddTool tools without explicit
// schemas carries the directive
//
//	//go:generate go run github.com/mcpwasm/mcpwasm/abi/guest/schemagen
//
// whose output, schemas_gen.go, gives AddTool the schemas (UseSchemas), so the wasm module
// does not link jsonschema-go. A wasip1 build with -tags mcpwasm_infer infers at run time
// instead, as earlier versions did; native builds (unit tests) always do.
//
// Results are encoded without reflection into one buffer reused by every call; a call of a
// raw tool allocates nothing in the SDK. A typed tool whose In and Out are structs of
// string, number and bool fields is decoded and encoded by hand as well (same values, same
// error texts as encoding/json); other types go to encoding/json. The manifest, resource,
// prompt and completion answers are encoded by hand too, so a guest links encoding/json's
// and fmt's code only for what it uses itself — and, unless it is built with
// -tags mcpwasm_nojson, for AddTool's types that are not flat (see AddTool).
//
// Registration functions must be called from init (a c-shared module never runs main) and
// are not safe for concurrent use; the host never runs two calls in one instance at once.
//
// Built for any other GOOS, the package still compiles so handlers can be unit-tested
// natively: the host imports then behave as if no host were present (Log writes to stderr,
// Request returns StatusUnavailable).
package guest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/mcpwasm/mcpwasm/abi"
)

// ToolHandler handles one call of a tool registered with AddRawTool. args is the JSON object
// the host validated against the tool's input schema. It points into the input region the
// host wrote (no copy) and is valid only until the handler returns; a handler that keeps
// it, or a part of it, must copy it. Returning args itself as the result's
// StructuredContent is allowed and costs one copy. A returned error becomes a tool error
// (abi.ErrorResult) whose text is err.Error().
type ToolHandler func(ctx context.Context, args json.RawMessage) (*abi.Result, error)

// ToolHandlerFor handles one call of a tool registered with AddTool. The arguments arrive
// decoded into In. A string Out becomes one text block; any other Out becomes the result's
// structuredContent plus a text block holding the same JSON (for clients that predate
// structured output). A returned error becomes a tool error whose text is err.Error().
type ToolHandlerFor[In, Out any] func(ctx context.Context, in In) (Out, error)

// tool is one registered tool.
type tool struct {
	name string
	ctx  context.Context // carries name for ToolName; built once at registration
	h    ToolHandler
}

var reg = struct {
	manifest abi.Manifest
	handlers map[string]*tool
	presets  map[string]Schemas // from UseSchemas
	inferred map[string]Schemas // schemas AddTool inferred at run time (mcpwasm_infer builds)
}{handlers: map[string]*tool{}, presets: map[string]Schemas{}, inferred: map[string]Schemas{}}

// SetInfo sets the guest's name (^[a-zA-Z0-9_-]{1,64}$), version and description as the
// manifest reports them (ABI.md §4).
func SetInfo(name, version, description string) {
	reg.manifest.Name, reg.manifest.Version, reg.manifest.Description = name, version, description
}

// SetRequests sets the capabilities the whole guest asks for (ABI.md §4). Requests are
// advisory: the operator's grants decide.
func SetRequests(r abi.Requests) { reg.manifest.Requests = r }

// AddRawTool registers t with handler h. t.InputSchema must be a JSON Schema object whose
// type is "object". It panics if t.Name is already registered, since that is a programming
// error found at the first describe.
func AddRawTool(t abi.Tool, h ToolHandler) {
	if _, dup := reg.handlers[t.Name]; dup {
		panic("guest: tool " + strconv.Quote(t.Name) + " registered twice")
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	reg.manifest.Tools = append(reg.manifest.Tools, t)
	reg.handlers[t.Name] = &tool{name: t.Name, ctx: context.WithValue(context.Background(), toolKey{}, t.Name), h: h}
}

// Schemas are the JSON Schemas of one tool registered with AddTool, as JSON text: Input is
// its inputSchema, Output its outputSchema ("" when there is none, as for a string Out).
type Schemas struct{ Input, Output string }

// UseSchemas supplies the schemas of tools registered with AddTool, by tool name, inferred
// from their Go types at build time. It is what the file written by
// github.com/mcpwasm/mcpwasm/abi/guest/schemagen calls, from a package-level variable
// declaration (var _ = guest.UseSchemas(…)) so that it runs before the package's init
// functions register the tools. It returns true. A later call adds to (and for a name it
// repeats, replaces) the schemas of earlier ones.
func UseSchemas(m map[string]Schemas) bool {
	for name, s := range m {
		reg.presets[name] = s
	}
	return true
}

// AddTool registers t with a typed handler. If t.InputSchema is empty it is inferred from In
// (which must be a struct or map type); if t.OutputSchema is empty and Out is not string, it
// is inferred from Out. Inference follows jsonschema.For: exported fields, json tags, fields
// without omitempty are required, `jsonschema:"…"` tags give descriptions. It panics if a
// schema cannot be inferred.
//
// Where inference runs: built natively (unit tests) and in wasip1 builds with
// -tags mcpwasm_infer, at run time with github.com/google/jsonschema-go. A plain wasip1
// build does not link jsonschema-go (it is most of a small guest's size); it takes the
// schemas given to UseSchemas under t.Name, which schemagen generates from the same
// inference, and panics naming the tool when there are none.
//
// Arguments are decoded, and a non-string Out encoded, as encoding/json does (results
// without HTML escaping): a decoding error becomes the tool error "invalid arguments: " plus
// encoding/json's text, e.g. "invalid arguments: json: cannot unmarshal number into Go
// struct field In.text of type string". A struct of string, bool, integer and float fields
// (no embedding, no marshaler methods, no ",string" or ",omitzero" options, keys of ASCII
// letters, digits, '_' and '-') is handled by the SDK itself; any other In or Out by
// encoding/json. A wasip1 build with -tags mcpwasm_nojson links no encoding/json code for
// that: there an Out with a MarshalJSON method (value receiver) is encoded as encoding/json
// does it (the method's output, compacted; AppendJSONString helps write one), and AddTool
// panics, naming the tool, for any other type that needs encoding/json.
func AddTool[In, Out any](t abi.Tool, h ToolHandlerFor[In, Out]) {
	inT, outT := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	var inferIn, inferOut func() json.RawMessage
	if inferLinked {
		inferIn, inferOut = mustSchema[In], mustSchema[Out]
	}
	tt := newTypedTool(&t, inT, outT, inferIn, inferOut)
	// One decoded input per tool, reused by every call: it is zeroed before each decode, and
	// h gets a copy of it. The generic code is only what needs In and Out; the rest is
	// typedTool's, compiled once rather than once per tool type.
	in := new(In)
	var decodeOther func([]byte, *In) error
	if tt.flat == nil {
		decodeOther = jsonDecoder[In](t.Name, "input")
	}
	var encodeOther func(Out) ([]byte, error)
	if !tt.textOut && tt.flatOut == nil {
		encodeOther = jsonEncoder[Out](t.Name, "output")
	}
	AddRawTool(t, func(ctx context.Context, args json.RawMessage) (*abi.Result, error) {
		var zero In
		*in = zero
		var err error
		if tt.flat != nil {
			err = tt.flat.decode(args, unsafe.Pointer(in))
		} else {
			err = decodeOther(args, in)
		}
		if err != nil {
			return nil, &wrapped{"invalid arguments: " + err.Error(), err}
		}
		out, err := h(ctx, *in)
		if err != nil {
			return nil, err
		}
		if tt.textOut || tt.flatOut != nil {
			return tt.result(unsafe.Pointer(&out), nil, nil)
		}
		b, err := encodeOther(out)
		return tt.result(nil, b, err)
	})
}

// typedTool is the part of an AddTool tool that does not depend on its Go types: how its
// input is decoded and its result encoded, and the result and buffer every call reuses (call
// encodes a result before the next call can run).
type typedTool struct {
	flat    *flatDecoder // nil: encoding/json decodes the input
	flatOut *flatEncoder // nil: encoding/json encodes the result (unless textOut)
	textOut bool         // Out's kind is string: one text block
	res     *abi.Result
	outJSON []byte // flatOut's buffer
}

// newTypedTool fills in t's schemas (inferred with inferIn and inferOut when inference is
// linked, else from UseSchemas) and records the inferred ones for schemagen.
func newTypedTool(t *abi.Tool, inT, outT reflect.Type, inferIn, inferOut func() json.RawMessage) *typedTool {
	tt := &typedTool{textOut: outT.Kind() == reflect.String, res: &abi.Result{Content: []abi.Content{{Type: "text"}}}}
	var inferred Schemas
	if len(t.InputSchema) == 0 {
		t.InputSchema = schemaFor(t.Name, "input", reg.presets[t.Name].Input, inT, inferIn)
		inferred.Input = string(t.InputSchema)
	}
	if len(t.OutputSchema) == 0 && !tt.textOut {
		t.OutputSchema = schemaFor(t.Name, "output", reg.presets[t.Name].Output, outT, inferOut)
		inferred.Output = string(t.OutputSchema)
	}
	if inferLinked && inferred != (Schemas{}) {
		reg.inferred[t.Name] = inferred
	}
	tt.flat = newFlatDecoder(inT)
	if !tt.textOut {
		tt.flatOut = newFlatEncoder(outT)
	}
	return tt
}

// result makes the call's result from the handler's value at out (a string, or a struct
// flatOut encodes) or, for other types, from b and err, what encoding/json made of it.
func (tt *typedTool) result(out unsafe.Pointer, b []byte, err error) (*abi.Result, error) {
	res := tt.res
	res.Content = res.Content[:1]
	res.Content[0] = abi.Content{Type: "text"}
	res.StructuredContent, res.IsError = nil, false
	switch {
	case tt.textOut:
		// Out's kind is string, so its memory is a string header.
		res.Content[0].Text = *(*string)(out)
		return res, nil
	case tt.flatOut != nil:
		var ok bool
		if tt.outJSON, ok = tt.flatOut.encode(tt.outJSON[:0], out); !ok {
			return nil, errors.New("encoding result: " + tt.flatOut.unsupported(out))
		}
		b = tt.outJSON
	case err != nil:
		return nil, &wrapped{"encoding result: " + err.Error(), err}
	}
	// The text block aliases b: both are encoded before b's buffer is reused.
	res.Content[0].Text = unsafe.String(unsafe.SliceData(b), len(b))
	res.StructuredContent = b
	encoded = b // valid JSON: encodeResult need not check it
	return res, nil
}

// wrapped is an error with a prefix, as fmt.Errorf("prefix: %w", err) makes it (the guest
// SDK does not link fmt).
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// schemaFor returns the schema of type t for tool's input or output (which): inferred when
// inference is linked, else preset, else it panics.
func schemaFor(tool, which, preset string, t reflect.Type, infer func() json.RawMessage) json.RawMessage {
	if inferLinked {
		return infer()
	}
	if preset != "" {
		return json.RawMessage(preset)
	}
	panic("guest: tool " + strconv.Quote(tool) + ": no " + which + " schema for " + t.String() +
		": this build does not infer schemas; generate them with go run github.com/mcpwasm/mcpwasm/abi/guest/schemagen " +
		"(go generate), set abi.Tool." + map[string]string{"input": "InputSchema", "output": "OutputSchema"}[which] +
		", or build with -tags mcpwasm_infer")
}

type toolKey struct{}

// ToolName returns the name of the tool being called, as carried by a handler's ctx.
func ToolName(ctx context.Context) string {
	s, _ := ctx.Value(toolKey{}).(string)
	return s
}

// describe returns the manifest JSON (the body of mcpwasm_describe), as json.Marshal
// writes it.
func describe() []byte {
	m := reg.manifest
	if m.Tools == nil {
		m.Tools = []abi.Tool{}
	}
	b, err := encodeManifest(&m)
	if err != nil {
		// Only a schema holding invalid raw JSON can get here; report it through the manifest
		// so the host's load error names the cause.
		b = append(appendStringHTML([]byte(`{"error":`), err.Error()), '}')
	}
	return b
}

// Per-call state of call. The host never runs two calls in one instance at once.
var (
	// resBuf is the result buffer, reused by every call; the region returned by one call is
	// overwritten only when the next call runs (ABI.md §3).
	resBuf []byte
	// callArgs is the arguments region of the running call, which the host validated, and
	// encoded the JSON an AddTool handler encoded for it: a StructuredContent that is exactly
	// one of them is valid JSON and copied without a check.
	callArgs, encoded []byte
)

// call runs tool name with args and returns the result JSON (the body of mcpwasm_call). The
// result is only valid until the next call. It never panics: a handler panic becomes a tool
// error.
func call(name, args []byte) (out []byte) {
	t, ok := reg.handlers[string(name)]
	if !ok {
		return encodeResult(abi.ErrorResult("unknown tool " + strconv.Quote(string(name))))
	}
	callArgs, encoded = args, nil
	defer func() {
		callArgs, encoded = nil, nil
		if p := recover(); p != nil {
			out = encodeResult(abi.ErrorResult("tool " + strconv.Quote(t.name) + " panicked: " + formatPanic(p)))
		}
	}()
	res, err := t.h(t.ctx, args)
	if err != nil {
		return encodeResult(abi.ErrorResult(err.Error()))
	}
	if res == nil {
		res = &abi.Result{}
	}
	return encodeResult(res)
}

// encodeResult encodes r into resBuf and returns it.
func encodeResult(r *abi.Result) []byte {
	if r.Content == nil {
		r.Content = []abi.Content{}
	}
	if sc := r.StructuredContent; len(sc) > 0 && !same(sc, callArgs) && !same(sc, encoded) {
		if err := checkValid(sc); err != nil {
			// Not JSON: say why in the words encoding/json always used.
			r = abi.ErrorResult("encoding result: json: error calling MarshalJSON for type json.RawMessage: " + err.Error())
		}
	}
	resBuf = appendResult(resBuf[:0], r)
	return resBuf
}

// same reports whether a and b are the same region of memory.
func same(a, b []byte) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// RequestError is returned by Request when the host answers with a non-OK status.
type RequestError struct {
	Kind    string
	Status  abi.Status
	Message string // the host's one-line reason, e.g. `net: host "x" is not granted to guest "web"`
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Kind, e.Status, e.Message)
}

// Request performs one capability request of the given kind (ABI.md §6.1) and returns the
// host's JSON response. A refused or failed request returns a *RequestError.
func Request(kind string, req []byte) ([]byte, error) {
	st, body := request(kind, req)
	if st != abi.StatusOK {
		var eb abi.ErrorBody
		if json.Unmarshal(body, &eb) != nil || eb.Error == "" {
			eb.Error = string(body)
		}
		return nil, &RequestError{Kind: kind, Status: st, Message: eb.Error}
	}
	return body, nil
}

// Log sends msg to the host's log at level (and, when the client asked for logs, to the
// client as notifications/message).
func Log(level abi.Level, msg string) { hostLog(level, msg) }

// Progress reports progress of the current call; total <= 0 means unknown. The host forwards
// it as notifications/progress when the client sent a progress token.
func Progress(progress, total float64, msg string) { hostProgress(progress, total, msg) }

// Cancelled reports whether the current call was cancelled; long-running handlers should poll
// it and return early.
func Cancelled() bool { return hostCancelled() }

// HTTP performs an HTTP request through the host's net grant (ABI.md §6.2). A host that is
// not granted, a refused address or a response over the cap returns a *RequestError.
func HTTP(req abi.HTTPRequest) (*abi.HTTPResponse, error) {
	var resp abi.HTTPResponse
	if err := requestJSON(abi.KindHTTP, req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// Exec runs a granted program through the host's exec grant (ABI.md §6.3). A program or
// argument the grant does not allow returns a *RequestError; a non-zero exit code does not.
func Exec(req abi.ExecRequest) (*abi.ExecResponse, error) {
	var resp abi.ExecResponse
	if err := requestJSON(abi.KindExec, req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

func requestJSON(kind string, req, resp any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%s: encoding request: %w", kind, err)
	}
	out, err := Request(kind, b)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, resp); err != nil {
		return fmt.Errorf("%s: decoding response: %w", kind, err)
	}
	return nil
}
