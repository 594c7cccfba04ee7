package schema

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

// Validate checks args against s. The arguments are decoded for validation only — the
// guest receives args byte for byte — and numbers are decoded exactly (DecodeExact), so a
// valid JSON number such as 9007199254740993 or 1e400 is judged by its value, never
// refused or rounded.
func Validate(s *jsonschema.Resolved, args []byte) error {
	v, err := DecodeExact(args)
	if err != nil {
		return err
	}
	return Check(s, v)
}

// DecodeExact decodes one JSON value for schema validation: objects, arrays, strings,
// booleans and null as json.Unmarshal into any does, numbers by schemaNumber. Its errors are
// those of json.Decoder ("arguments are not valid JSON: …").
func DecodeExact(data []byte) (any, error) {
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

// Check validates the decoded value v (DecodeExact) against s: v must be an object; the
// error is jsonschema-go's without its "validating root: " prefix.
func Check(s *jsonschema.Resolved, v any) error {
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
