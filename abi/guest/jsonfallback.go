//go:build !wasip1 || !mcpwasm_nojson

package guest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
)

// This file holds what the SDK hands to encoding/json and fmt: typed tools whose In or Out
// is not a struct of string, number and bool fields, and the text of a handler's panic
// value. A wasip1 build with -tags mcpwasm_nojson replaces it (jsonfree.go) so that a guest
// whose typed tools are all flat links neither package's code.

// jsonDecoder returns the decoder of a typed tool's non-flat input: json.Unmarshal.
func jsonDecoder[In any](tool, which string) func([]byte, *In) error {
	return func(args []byte, in *In) error { return json.Unmarshal(args, in) }
}

// jsonEncoder returns the encoder of a typed tool's non-flat result: encoding/json without
// HTML escaping, into one buffer reused by every call.
func jsonEncoder[Out any](tool, which string) func(Out) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	return func(out Out) ([]byte, error) {
		buf.Reset()
		if err := enc.Encode(out); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
}

// formatPanic formats a handler's panic value as fmt's %v does.
func formatPanic(p any) string { return fmt.Sprintf("%v", p) }

// marshal is json.Marshal without HTML escaping: results are read by models and people, to
// whom `\u003e` is noise. It is also the reference the tests hold the SDK's encoders to.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// The manifest and the answers of mcpwasm_read, mcpwasm_prompt and mcpwasm_complete: this
// build links encoding/json anyway, so it writes them (jsonfree.go has the hand-written
// equivalents, which manifest_test.go and scan_test.go hold to these).

func encodeManifest(m *abi.Manifest) ([]byte, error) { return json.Marshal(m) }

func encodeResourceResult(r *abi.ResourceResult) []byte { b, _ := marshal(r); return b }

func encodePromptResult(r *abi.PromptResult) []byte { b, _ := marshal(r); return b }

func encodeErrorBody(msg string, code int) []byte {
	b, _ := marshal(abi.ErrorBody{Error: msg, Code: code})
	return b
}

func encodeCompletion(c *abi.Completion) []byte {
	b, _ := marshal(abi.CompleteResult{Completion: *c})
	return b
}

func decodePromptArgs(args []byte, m *map[string]string) error { return json.Unmarshal(args, m) }

func decodeCompleteRequest(in []byte, req *abi.CompleteRequest) error { return json.Unmarshal(in, req) }
