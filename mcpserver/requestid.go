package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// sdkIDKeyType names the context key under which go-sdk (v1.8) keeps the JSON-RPC id of the
// request a handler serves. The SDK does not expose it to handlers
// (modelcontextprotocol/go-sdk#1264 proposes to); hyper-mcp v2 plugins get it in their
// "context", so it is read from the handler's context by the key's type. When the SDK
// changes the key, handlerRequestID finds nothing and plugins see id 0, as before;
// cmd's TestExtismV2ContextCarriesRequest fails first.
const (
	sdkIDKeyPkg  = "github.com/modelcontextprotocol/go-sdk/mcp"
	sdkIDKeyName = "idContextKey"
)

var sdkIDKey atomic.Pointer[any] // a value of the key's type, once found

var contextType = reflect.TypeFor[context.Context]()

// handlerRequestID returns the JSON-RPC id of the MCP request ctx serves, as JSON (a number or a
// string), or nil when there is none.
func handlerRequestID(ctx context.Context) json.RawMessage {
	key := sdkIDKey.Load()
	if key == nil {
		t := findKeyType(ctx)
		if t == nil {
			return nil
		}
		k := reflect.New(t).Elem().Interface()
		sdkIDKey.Store(&k)
		key = &k
	}
	id, ok := ctx.Value(*key).(jsonrpc.ID)
	if !ok || !id.IsValid() {
		return nil
	}
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return nil
	}
	return b
}

// findKeyType walks ctx's chain of parents (reading only the types of the keys, never a
// value) for the SDK's id key, and returns its type, or nil.
func findKeyType(ctx context.Context) reflect.Type {
	v := reflect.ValueOf(ctx)
	for depth := 0; depth < 256; depth++ {
		for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		if !v.IsValid() || v.Kind() != reflect.Struct {
			return nil
		}
		if k := v.FieldByName("key"); k.IsValid() && k.Kind() == reflect.Interface && !k.IsNil() {
			if t := k.Elem().Type(); t.Name() == sdkIDKeyName && t.PkgPath() == sdkIDKeyPkg {
				return t
			}
		}
		v = parentContext(v)
	}
	return nil
}

// parentContext is the first field of struct v holding a context.Context, looking into
// embedded structs (the standard library's contexts keep their parent so), or invalid.
func parentContext(v reflect.Value) reflect.Value {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Type() == contextType {
			return f
		}
		if f.Kind() == reflect.Struct && v.Type().Field(i).Anonymous {
			if p := parentContext(f); p.IsValid() {
				return p
			}
		}
	}
	return reflect.Value{}
}

// withRequest sets the MCP request's id (from ctx) and _meta in h, for kinds whose entry
// points receive them (hyper-mcp v2's "context"), and returns h.
func withRequest(ctx context.Context, h *runtime.CallHooks, meta mcp.Meta) *runtime.CallHooks {
	h.RequestID = handlerRequestID(ctx)
	if meta != nil {
		h.Meta = sync.OnceValue(func() json.RawMessage { return encodeMeta(meta) })
	}
	return h
}

// encodeMeta is meta as JSON, encoded only when a guest's entry receives it (runtime.CallHooks
// .Meta: an Extism v2 plugin, after the call has its instance) and without HTML escaping:
// json.Marshal writes each '<', '>' and '&' as six bytes, so a client's _meta full of '<' cost
// six times its size for every call, even calls of guests that never read it and calls still
// waiting for an instance. go-sdk has decoded the request's params by the time a handler runs,
// so the bytes received are not at hand; this is their equal size.
func encodeMeta(meta mcp.Meta) json.RawMessage {
	b, err := marshalNoHTMLEscape(meta)
	if err != nil {
		return nil
	}
	return b
}

// marshalNoHTMLEscape is json.Marshal without its HTML escaping ('<', '>' and '&' as six
// bytes each): for a client's values re-encoded on a request's path.
func marshalNoHTMLEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
