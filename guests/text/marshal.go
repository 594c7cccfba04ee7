package main

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// The two results that are not flat structs encode themselves, byte for byte as
// encoding/json encoded them by reflection (fields in order, no HTML escaping, map keys
// sorted), so the module needs no encoding/json code: guests/build.sh builds it with
// -tags mcpwasm_nojson. TestMarshalJSON compares them with encoding/json.

// MarshalJSON encodes o as {"matched":…,"matches":[…],"truncated":…}.
func (o RegexOut) MarshalJSON() ([]byte, error) {
	b := append([]byte(`{"matched":`), strconv.FormatBool(o.Matched)...)
	b = append(b, `,"matches":`...)
	if o.Matches == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range o.Matches {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"match":`...)
			b = guest.AppendJSONString(b, m.Match)
			b = append(b, `,"index":`...)
			b = strconv.AppendInt(b, int64(m.Index), 10)
			b = append(b, `,"groups":`...)
			if m.Groups == nil {
				b = append(b, "null"...)
			} else {
				b = append(b, '[')
				for j, g := range m.Groups {
					if j > 0 {
						b = append(b, ',')
					}
					if g == nil {
						b = append(b, "null"...)
					} else {
						b = guest.AppendJSONString(b, *g)
					}
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, o.Truncated)
	return append(b, '}'), nil
}

// MarshalJSON encodes o as {"value":…}, the value being what guest.DecodeJSONValue makes.
func (o JSONQueryOut) MarshalJSON() ([]byte, error) {
	b, err := appendValue([]byte(`{"value":`), o.Value)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendValue appends a decoded JSON value: nil, bool, string, json.Number, []any or
// map[string]any (keys sorted, as encoding/json writes maps).
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case string:
		return guest.AppendJSONString(b, v), nil
	case json.Number:
		return append(b, v...), nil
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(guest.AppendJSONString(b, k), ':')
			var err error
			if b, err = appendValue(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, errors.New("json_query: cannot encode a value of another type")
}
