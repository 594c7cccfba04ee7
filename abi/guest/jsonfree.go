//go:build wasip1 && mcpwasm_nojson

package guest

import (
	"encoding/json"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/mcpwasm/mcpwasm/abi"
)

// This file replaces jsonfallback.go in a wasip1 build with -tags mcpwasm_nojson: a guest
// whose typed tools all take structs of string, number and bool fields and return such a
// struct, a string, or a type with its own MarshalJSON then links neither encoding/json's nor
// fmt's code, about a megabyte of a small guest. AddTool panics, naming the tool, if a type
// needs encoding/json.

func jsonDecoder[In any](tool, which string) func([]byte, *In) error {
	panic(nojson(tool, which, reflect.TypeFor[In]()))
}

// jsonEncoder returns, for an Out with a MarshalJSON method (value receiver), what
// encoding/json does with it: call it and compact the result (no HTML escaping), or fail
// with encoding/json's MarshalerError text. Any other Out panics.
func jsonEncoder[Out any](tool, which string) func(Out) ([]byte, error) {
	enc := marshalerEncoder(tool, which, reflect.TypeFor[Out]())
	return func(out Out) ([]byte, error) { return enc(out) }
}

// marshalerEncoder is jsonEncoder's work, compiled once rather than once per tool type.
func marshalerEncoder(tool, which string, t reflect.Type) func(any) ([]byte, error) {
	if !t.Implements(jsonMarshaler) {
		panic(nojson(tool, which, t))
	}
	var buf []byte
	return func(out any) ([]byte, error) {
		b, err := out.(json.Marshaler).MarshalJSON()
		if err == nil {
			buf, err = appendCompact(buf[:0], b, false)
		}
		if err != nil {
			return nil, &wrapped{"json: error calling MarshalJSON for type " + t.String() + ": " + err.Error(), err}
		}
		return buf, nil
	}
}

func nojson(tool, which string, t reflect.Type) string {
	return "guest: tool " + strconv.Quote(tool) + ": " + which + " type " + t.String() +
		" is not a struct of string, number and bool fields (nor, for a result, a type with a MarshalJSON method)," +
		" which is all a build with -tags mcpwasm_nojson can decode and encode; build without the tag"
}

// formatPanic formats a handler's panic value as fmt's %v does for strings, errors,
// Stringers, booleans and numbers; any other value is shown by its type alone.
func formatPanic(p any) string {
	switch v := p.(type) {
	case error:
		return v.Error()
	case interface{ String() string }:
		return v.String()
	}
	r := reflect.ValueOf(p)
	switch r.Kind() {
	case reflect.String:
		return r.String()
	case reflect.Bool:
		return strconv.FormatBool(r.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(r.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(r.Uint(), 10)
	case reflect.Float32:
		return strconv.FormatFloat(r.Float(), 'g', -1, 32)
	case reflect.Float64:
		return strconv.FormatFloat(r.Float(), 'g', -1, 64)
	case reflect.Invalid:
		return "<nil>"
	}
	return "(" + r.Type().String() + " value)"
}

// The manifest and the answers of mcpwasm_read, mcpwasm_prompt and mcpwasm_complete, written
// and read by hand as encoding/json would (manifest.go, decode.go).

func encodeManifest(m *abi.Manifest) ([]byte, error) { return appendManifest(nil, m) }

func encodeResourceResult(r *abi.ResourceResult) []byte { return appendResourceResult(nil, r) }

func encodePromptResult(r *abi.PromptResult) []byte { return appendPromptResult(nil, r) }

func encodeErrorBody(msg string, code int) []byte { return appendErrorBody(nil, msg, code) }

func encodeCompletion(c *abi.Completion) []byte { return appendCompleteResult(nil, c) }

func decodePromptArgs(args []byte, m *map[string]string) error {
	return decodeInto(args, stringMapNode(), unsafe.Pointer(m))
}

func decodeCompleteRequest(in []byte, req *abi.CompleteRequest) error {
	return decodeInto(in, completeRequestNode(), unsafe.Pointer(req))
}
