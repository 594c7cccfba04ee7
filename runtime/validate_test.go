package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// validateArgsReference is validateArgs before its fast paths: the behaviour they must keep.
func validateArgsReference(t *tool, args []byte) error {
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if d.More() {
		return errors.New("arguments are not a single JSON value")
	}
	return checkArgs(t.input, v)
}

var validateSeeds = []string{
	`{}`, ` {"a":1} `, "\n{}\t", `{"a":1e400}`, `{"a":1E5}`, `{"a":-1.5e-3}`, `{"a":"e5"}`, `{"a":"\"e1"}`,
	`{"a":true,"b":false,"c":null}`, `[1]`, `"x"`, `null`, `1`, `{} {}`, `{}x`, `{"a":`, ``, ` `,
	`{"text":5}`, `{"text":"x"}`, `{"text":"x","n":[1,2,{"e":3}]}`, "{\"a\":\"\xff\"}", `{"a":"\u00e9"}`,
	`{"a":` + strings.Repeat("9", 308) + `}`, `{"a":` + strings.Repeat("9", 309) + `}`,
	`{"a":` + strings.Repeat("9", 400) + `}`, `{"a":0.` + strings.Repeat("9", 400) + `}`,
	strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat(`}`, 10001),
}

func validateTools(tb testing.TB) []*tool {
	var ts []*tool
	for _, schema := range []string{permissiveSchema, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`} {
		r, err := resolveSchema(json.RawMessage(schema))
		if err != nil {
			tb.Fatal(err)
		}
		ts = append(ts, &tool{input: r})
	}
	return ts
}

func checkValidateSame(t *testing.T, tools []*tool, args []byte) {
	for i, tl := range tools {
		want, got := validateArgsReference(tl, args), validateArgs(tl.input, i == 0, args)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("schema %d, args %.80q: validateArgs = %v, want %v", i, args, got, want)
		}
	}
}

// TestValidateArgsFastPaths: the Unmarshal and permissive-schema fast paths answer exactly
// as the Decoder path does.
func TestValidateArgsFastPaths(t *testing.T) {
	tools := validateTools(t)
	for _, s := range validateSeeds {
		checkValidateSame(t, tools, []byte(s))
	}
}

func FuzzValidateArgs(f *testing.F) {
	for _, s := range validateSeeds {
		f.Add([]byte(s))
	}
	tools := validateTools(f)
	f.Fuzz(func(t *testing.T, args []byte) { checkValidateSame(t, tools, args) })
}
