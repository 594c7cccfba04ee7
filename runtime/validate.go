package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// (most tools, including the permissive {"type":"object"}) are recognized without decoding
// (flat.go); everything else, and every failure, goes through jsonschema-go.
func (t *tool) validate(args []byte) error {
	if t.flat != nil && t.flat.Accepts(args) {
		return nil
	}
	return validateArgs(t.input, args)
}

// validateArgs checks args against s. The arguments are decoded for validation only — the
// guest receives args byte for byte — and numbers are decoded exactly (decodeExact), so a
// valid JSON number such as 9007199254740993 or 1e400 is judged by its value, never
// refused or rounded.
func validateArgs(s *jsonschema.Resolved, args []byte) error {
	v, err := decodeExact(args)
	if err != nil {
		return err
	}
	return checkArgs(s, v)
}

// decodeExact decodes one JSON value for schema validation: objects, arrays, strings,
// booleans and null as json.Unmarshal into any does, numbers by schemaNumber. Its errors are
// those of json.Decoder ("arguments are not valid JSON: …").
func decodeExact(data []byte) (any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if d.More() {
		return nil, errors.New("arguments are not a single JSON value")
	}
	return exactNumbers(v), nil
}

// exactNumbers replaces each json.Number in v (in place) by schemaNumber's value.
func exactNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return schemaNumber(x)
	case map[string]any:
		for k, e := range x {
			x[k] = exactNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = exactNumbers(e)
		}
	}
	return v
}

// schemaNumber is the Go value jsonschema-go judges a JSON number by. jsonschema-go reads
// int64, uint64 and float64 (a json.Number would count as a string for "type"), so an
// integer that fits 64 bits stays exact; a larger one becomes the nearest float64, which is
// still integral; a number beyond float64's range (1e400) becomes ±MaxFloat64, keeping its
// sign, integrality and order against any schema bound; and a fraction that float64 would
// round to an integer (1.0000000000000000001) becomes the adjacent non-integral float64, so
// "type":"integer" still refuses it.
func schemaNumber(n json.Number) any {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return f // not reached for a JSON number
	}
	if math.IsInf(f, 0) {
		f = math.Copysign(math.MaxFloat64, f)
	}
	if _, frac := math.Modf(f); frac == 0 && len(s) <= 64 && smallExponent(s) {
		// Decide integrality exactly for short literals with a small exponent (bounded
		// cost); others keep float64's answer.
		if r, ok := new(big.Rat).SetString(s); ok && !r.IsInt() {
			return math.Nextafter(f, math.Copysign(math.Inf(1), f))
		}
	}
	return f
}

// smallExponent reports whether number literal s has a fraction or an exponent, and any
// exponent is at most 400 in magnitude.
func smallExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return strings.Contains(s, ".")
	}
	e, err := strconv.Atoi(s[i+1:])
	return err == nil && e >= -400 && e <= 400
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
	case float64, int64, uint64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// ValidateOutputJSON is ValidateOutput on a structured result still in JSON, decoded with
// exact numbers (decodeExact) so that a valid result is never refused for a number float64
// cannot hold. Invalid JSON is an error wrapping ErrABI.
func (g *Guest) ValidateOutputJSON(tool string, structured json.RawMessage) error {
	if t, ok := g.lists().tools[tool]; ok && t.output == nil {
		return nil
	}
	v, err := decodeExact(structured)
	if err != nil {
		return fmt.Errorf("guest %q tool %q: %w: structured content: %v", g.name, tool, ErrABI, err)
	}
	return g.ValidateOutput(tool, v)
}
