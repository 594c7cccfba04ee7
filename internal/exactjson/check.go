package exactjson

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/mcpwasm/mcpwasm/internal/jsonwire"
)

// Check decides whether data is a CallToolResult the host forwards, before anything decodes
// it: the one place that refuses a result, with a one-line reason naming the member by its
// path and saying what was wanted. In order:
//
//   - data is JSON (RFC 8259) and an object: `the result is a number, want an object`;
//   - no object at any depth gives a key twice: `structuredContent.n: duplicate key "n"`;
//   - isError is true, false or null; _meta an object or null; content an array or null;
//     resultType a string or null;
//   - each content block is an object whose type is one of text, image, audio,
//     resource_link, resource (`content[0]: unknown type "video"`), checked before any other
//     of its fields;
//   - each field the block's type defines has its schema type (`content[0].text: a number,
//     want a string`), the fields the schema requires are there (`content[0] (image):
//     mimeType is missing`), data and blob are base64 (`content[1] (image): data is not
//     base64: …`), annotations hold roles "user"/"assistant", a priority from 0 to 1 and a
//     lastModified string, a resource link's size is an integer.
//
// Members it does not name (at the top level, in a block, in an embedded resource) are not
// checked: the SDK's decoding drops them. structuredContent and every _meta are arbitrary JSON,
// checked only for duplicate keys. The MCP schema is that of 2025-06-18 and 2025-11-25
// (CallToolResult, ContentBlock).
func Check(data []byte) error {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("the result is not JSON: %s at byte %d", se.Error(), se.Offset)
		}
		return errors.New("the result is not JSON")
	}
	data = jsonwire.TrimWS(data)
	if k := jsonwire.Kind(data); k != '{' {
		return fmt.Errorf("the result is %s, want an object", kindName(data))
	}
	if path, key, dup := jsonwire.DuplicateKey(data); dup {
		return fmt.Errorf("%s: duplicate key %q", path, key)
	}
	var err error
	jsonwire.ForEachMember(data, func(key []byte, vs, ve int) {
		if err != nil {
			return
		}
		v := data[vs:ve]
		switch {
		case jsonwire.KeyIs(key, "content"):
			err = checkContent(v)
		case jsonwire.KeyIs(key, "isError"):
			if k := jsonwire.Kind(v); k != 'b' && k != 'n' {
				err = fmt.Errorf("isError: %s, want true or false", kindName(v))
			}
		case jsonwire.KeyIs(key, "_meta"):
			err = wantObject("_meta", v)
		case jsonwire.KeyIs(key, "resultType"): // 2026-07-28; the SDK reads it
			if k := jsonwire.Kind(v); k != '"' && k != 'n' {
				err = fmt.Errorf("resultType: %s, want a string", kindName(v))
			}
		}
	})
	return err
}

// kindName says what a raw JSON value is, for an error: "a string", "a number", "an object",
// "an array", "null", "a boolean".
func kindName(v []byte) string {
	switch jsonwire.Kind(v) {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 'n':
		return "null"
	case 'b':
		return "a boolean"
	}
	return "a number"
}

// wantObject checks that v is an object or null (or absent: empty).
func wantObject(path string, v []byte) error {
	if k := jsonwire.Kind(v); k != 0 && k != '{' && k != 'n' {
		return fmt.Errorf("%s: %s, want an object", path, kindName(v))
	}
	return nil
}

// blockFields are the fields of each content block type (MCP ContentBlock) beyond type,
// _meta and annotations, with what each must be: "string", "required" (a string, present),
// "nonempty" (a string, present and not ""), "base64" (a required base64 string), "integer",
// "icons", "resource".
var blockFields = map[string][]blockField{
	"text":          {{"text", "required"}},
	"image":         {{"data", "base64"}, {"mimeType", "nonempty"}},
	"audio":         {{"data", "base64"}, {"mimeType", "nonempty"}},
	"resource_link": {{"uri", "nonempty"}, {"name", "nonempty"}, {"title", "string"}, {"description", "string"}, {"mimeType", "string"}, {"size", "integer"}, {"icons", "icons"}},
	"resource":      {{"resource", "resource"}},
}

type blockField struct{ name, want string }

// checkContent checks the content array.
func checkContent(v []byte) error {
	switch jsonwire.Kind(v) {
	case 'n':
		return nil
	case '[':
	default:
		return fmt.Errorf("content: %s, want an array", kindName(v))
	}
	var err error
	i := 0
	jsonwire.ForEachElement(v, func(es, ee int) {
		if err == nil {
			err = checkBlock(i, v[es:ee])
		}
		i++
	})
	return err
}

// members returns the members of the object b by decoded key (b has no duplicate keys).
func members(b []byte) map[string][]byte {
	m := make(map[string][]byte, 4)
	jsonwire.ForEachMember(b, func(key []byte, vs, ve int) {
		k, _ := jsonwire.DecodeString(key)
		m[k] = b[vs:ve]
	})
	return m
}

// checkBlock checks content[i].
func checkBlock(i int, b []byte) error {
	at := "content[" + strconv.Itoa(i) + "]"
	if jsonwire.Kind(b) != '{' {
		return fmt.Errorf("%s: %s, want an object", at, kindName(b))
	}
	m := members(b)
	t, ok := m["type"]
	if !ok || jsonwire.Kind(t) == 'n' {
		return fmt.Errorf("%s: type is missing", at)
	}
	typ, ok := jsonwire.DecodeString(t)
	if !ok {
		return fmt.Errorf("%s.type: %s, want a string", at, kindName(t))
	}
	fields, known := blockFields[typ]
	if !known {
		return fmt.Errorf("%s: unknown type %q", at, typ)
	}
	named := at + " (" + typ + ")"
	for _, f := range fields {
		if err := checkField(at, named, "", m, f); err != nil {
			return err
		}
	}
	if err := wantObject(at+"._meta", m["_meta"]); err != nil {
		return err
	}
	return checkAnnotations(at+".annotations", m["annotations"])
}

// checkField checks the field f of the object m at path at; a missing or empty field or bad
// base64 is told as `named: prefix+name …` (the block's path and type).
func checkField(at, named, prefix string, m map[string][]byte, f blockField) error {
	v, ok := m[f.name]
	path := at + "." + f.name
	if !ok || jsonwire.Kind(v) == 'n' {
		switch f.want {
		case "required", "nonempty", "base64", "resource":
			return fmt.Errorf("%s: %s%s is missing", named, prefix, f.name)
		}
		return nil
	}
	switch f.want {
	case "string", "required", "nonempty", "base64":
		s, ok := jsonwire.DecodeString(v)
		if !ok {
			return fmt.Errorf("%s: %s, want a string", path, kindName(v))
		}
		if f.want == "nonempty" && s == "" {
			return fmt.Errorf("%s: %s%s is empty", named, prefix, f.name)
		}
		if f.want == "base64" {
			if _, err := base64.StdEncoding.DecodeString(s); err != nil {
				return fmt.Errorf("%s: %s%s is not base64: %w", named, prefix, f.name, err)
			}
		}
	case "integer":
		if jsonwire.Kind(v) != '0' {
			return fmt.Errorf("%s: %s, want an integer", path, kindName(v))
		}
		if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
			return fmt.Errorf("%s: %s, want an integer", path, numberName(v))
		}
	case "icons":
		return checkIcons(path, v)
	case "resource":
		return checkResource(named, path, v)
	}
	return nil
}

// numberName is a number literal for an error, if short, else "a number".
func numberName(v []byte) string {
	if len(v) <= 24 {
		return string(v)
	}
	return "a number"
}

// checkAnnotations checks a block's annotations (MCP Annotations).
func checkAnnotations(at string, v []byte) error {
	if v == nil {
		return nil
	}
	if err := wantObject(at, v); err != nil || jsonwire.Kind(v) == 'n' {
		return err
	}
	m := members(v)
	if a, ok := m["audience"]; ok && jsonwire.Kind(a) != 'n' {
		if jsonwire.Kind(a) != '[' {
			return fmt.Errorf("%s.audience: %s, want an array", at, kindName(a))
		}
		var err error
		i := 0
		jsonwire.ForEachElement(a, func(es, ee int) {
			if err == nil {
				r, ok := jsonwire.DecodeString(a[es:ee])
				if !ok || (r != "user" && r != "assistant") {
					err = fmt.Errorf("%s.audience[%d]: want \"user\" or \"assistant\"", at, i)
				}
			}
			i++
		})
		if err != nil {
			return err
		}
	}
	if p, ok := m["priority"]; ok && jsonwire.Kind(p) != 'n' {
		if jsonwire.Kind(p) != '0' {
			return fmt.Errorf("%s.priority: %s, want a number from 0 to 1", at, kindName(p))
		}
		f, err := strconv.ParseFloat(string(p), 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Errorf("%s.priority: %s, want a number from 0 to 1", at, numberName(p))
		}
	}
	if l, ok := m["lastModified"]; ok && jsonwire.Kind(l) != 'n' && jsonwire.Kind(l) != '"' {
		return fmt.Errorf("%s.lastModified: %s, want a string", at, kindName(l))
	}
	return nil
}

// checkIcons checks a resource link's icons (MCP Icon: src, mimeType, sizes, theme).
func checkIcons(at string, v []byte) error {
	if jsonwire.Kind(v) != '[' {
		return fmt.Errorf("%s: %s, want an array", at, kindName(v))
	}
	var err error
	i := 0
	jsonwire.ForEachElement(v, func(es, ee int) {
		if err != nil {
			return
		}
		p := at + "[" + strconv.Itoa(i) + "]"
		i++
		e := v[es:ee]
		if jsonwire.Kind(e) != '{' {
			err = fmt.Errorf("%s: %s, want an object", p, kindName(e))
			return
		}
		m := members(e)
		for _, f := range []blockField{{"src", "required"}, {"mimeType", "string"}, {"theme", "string"}} {
			if err = checkField(p, p, "", m, f); err != nil {
				return
			}
		}
		if s, ok := m["sizes"]; ok && jsonwire.Kind(s) != 'n' {
			if jsonwire.Kind(s) != '[' {
				err = fmt.Errorf("%s.sizes: %s, want an array", p, kindName(s))
				return
			}
			j := 0
			jsonwire.ForEachElement(s, func(ss, se int) {
				if err == nil && jsonwire.Kind(s[ss:se]) != '"' {
					err = fmt.Errorf("%s.sizes[%d]: %s, want a string", p, j, kindName(s[ss:se]))
				}
				j++
			})
		}
	})
	return err
}

// checkResource checks an embedded resource's resource (MCP TextResourceContents or
// BlobResourceContents).
func checkResource(named, at string, v []byte) error {
	if jsonwire.Kind(v) != '{' {
		return fmt.Errorf("%s: %s, want an object", at, kindName(v))
	}
	m := members(v)
	for _, f := range []blockField{{"uri", "nonempty"}, {"mimeType", "string"}, {"text", "string"}} {
		if err := checkField(at, named, "resource.", m, f); err != nil {
			return err
		}
	}
	if b, ok := m["blob"]; ok && jsonwire.Kind(b) != 'n' {
		if err := checkField(at, named, "resource.", m, blockField{"blob", "base64"}); err != nil {
			return err
		}
	} else if t, ok := m["text"]; !ok || jsonwire.Kind(t) == 'n' {
		return fmt.Errorf("%s: resource has neither text nor blob", named)
	}
	return wantObject(at+"._meta", m["_meta"])
}
