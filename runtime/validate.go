package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// (most tools, including the permissive {"type":"object"}) are recognized without decoding
// (flat.go); everything else, and every failure, goes through jsonschema-go.
func (t *tool) validate(args []byte) error {
	if t.flat != nil && t.flat.accepts(args) {
		return nil
	}
	return validateArgs(t.input, args)
}

// validateArgs checks args against s. Where json.Unmarshal succeeds it yields what the
// Decoder below would, without the Decoder's buffers; anything else takes the Decoder path,
// whose error messages are the contract.
func validateArgs(s *jsonschema.Resolved, args []byte) error {
	var v any
	if json.Unmarshal(args, &v) == nil {
		return checkArgs(s, v)
	}
	v = nil
	d := json.NewDecoder(bytes.NewReader(args))
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if d.More() {
		return errors.New("arguments are not a single JSON value")
	}
	return checkArgs(s, v)
}

func checkArgs(s *jsonschema.Resolved, v any) error {
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(v))
	}
	if err := s.Validate(v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "validating root: "))
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}
