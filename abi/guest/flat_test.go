package guest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

type flatLabel string

type flatAll struct {
	S     string    `json:"s"`
	B     bool      `json:"b,omitempty"`
	I     int       `json:"i"`
	I8    int8      `json:"i8"`
	I16   int16     `json:"i16"`
	I32   int32     `json:"i32"`
	I64   int64     `json:"i64"`
	U     uint      `json:"u"`
	U8    uint8     `json:"u8"`
	U16   uint16    `json:"u16"`
	U32   uint32    `json:"u32"`
	U64   uint64    `json:"u64"`
	F32   float32   `json:"f32"`
	F64   float64   `json:"f64"`
	Named flatLabel `json:"named"`
	NoTag string
	Dash  string `json:"-"`
	skip  string // unexported: encoding/json ignores it
}

// upper decodes text with UnmarshalText: encoding/json calls it, so the fast path must not.
type upper string

func (u *upper) UnmarshalText(b []byte) error { *u = upper(strings.ToUpper(string(b))); return nil }

var flatCases = []string{
	`{}`, ` { } `, `{"s":"x"}`, `{"s":"héllo 🙂","b":true,"i":-42,"f64":1.5e3,"named":"n","NoTag":"t"}`,
	"{\n\t\"s\" : \"a\" ,\r\n \"i\" : 0 }", `{"s":"a","s":"b"}`, `{"i":1,"i":2}`,
	`{"i8":127,"i16":-32768,"i32":2147483647,"i64":-9223372036854775808}`,
	`{"u":18446744073709551615,"u8":255,"u16":65535,"u32":4294967295,"u64":0}`,
	`{"f32":3.4028235e38,"f64":-0,"i":-0}`, `{"f32":1e39}`, `{"f64":1e400}`, `{"i8":128}`, `{"u8":-1}`,
	`{"i":1.0}`, `{"i":1e2}`, `{"i":01}`, `{"i":-}`, `{"i":1.}`, `{"i":.5}`, `{"f64":1e}`, `{"f64":+1}`,
	`{"S":"case"}`, `{"unknown":1}`, `{"Dash":"x"}`, `{"skip":"x"}`, `{"-":"x"}`,
	`{"s":"a\"b"}`, `{"s":"a\nb"}`, "{\"s\":\"a\x01b\"}", "{\"s\":\"\xff\"}", `{"s":"\u00e9"}`,
	`{"s":null}`, `{"b":null}`, `{"s":1}`, `{"b":"true"}`, `{"b":tru}`, `{"b":false}`, `{"s":["x"]}`, `{"s":{"x":1}}`,
	`{"s":"x",}`, `{"s":"x"`, `{"s":"x"}x`, `{"s":"x"} `, `{"s" "x"}`, `{,}`, `[]`, `null`, ``, `"s"`, `{"s":"x"}{}`,
	`{"i":9223372036854775807}`, `{"i":9223372036854775808}`, `{"NoTag":"y","notag":"z"}`,
}

// checkFlat decodes data with the fast path and with encoding/json; whenever the fast path
// accepts, encoding/json must accept and give the same value.
func checkFlat[T any](t *testing.T, data []byte) bool {
	t.Helper()
	d := newFlatDecoder(reflect.TypeFor[T]())
	if d == nil {
		t.Fatalf("no flat decoder for %v", reflect.TypeFor[T]())
	}
	var fast, ref T
	ok := d.decode(data, unsafe.Pointer(&fast))
	err := json.Unmarshal(data, &ref)
	if ok && err != nil {
		t.Fatalf("fast path accepted %q, encoding/json says %v", data, err)
	}
	if ok && !reflect.DeepEqual(fast, ref) {
		t.Fatalf("decoding %q: fast path %+v, encoding/json %+v", data, fast, ref)
	}
	return ok
}

func TestFlatDecoder(t *testing.T) {
	accepted := 0
	for _, c := range flatCases {
		if checkFlat[flatAll](t, []byte(c)) {
			accepted++
		}
		checkFlat[calcIn](t, []byte(c))
	}
	// The common cases must take the fast path, or it is useless.
	for _, c := range []string{`{}`, `{"s":"héllo 🙂","b":true,"i":-42,"f64":1.5e3,"named":"n","NoTag":"t"}`,
		`{"u":18446744073709551615,"u8":255,"u16":65535,"u32":4294967295,"u64":0}`, `{"s":"a","s":"b"}`} {
		if !checkFlat[flatAll](t, []byte(c)) {
			t.Errorf("fast path refused %s", c)
		}
	}
	if !checkFlat[calcIn](t, []byte(`{"expression":"2*(3+4)^2"}`)) {
		t.Errorf("fast path refused calc's arguments")
	}
	t.Logf("%d of %d cases took the fast path", accepted, len(flatCases))
}

func TestFlatDecoderEligible(t *testing.T) {
	type embedded struct{ calcIn }
	type quoted struct {
		N int `json:"n,string"`
	}
	type texty struct {
		U upper `json:"u"`
	}
	type number struct {
		N json.Number `json:"n"`
	}
	type folded struct {
		A string `json:"name"`
		B string `json:"Name"`
	}
	type nested struct {
		L []string `json:"l"`
	}
	type unicodeKey struct {
		S string `json:"é"`
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[embedded](), reflect.TypeFor[quoted](), reflect.TypeFor[texty](), reflect.TypeFor[number](),
		reflect.TypeFor[folded](), reflect.TypeFor[nested](), reflect.TypeFor[unicodeKey](),
		reflect.TypeFor[map[string]string](), reflect.TypeFor[string](), reflect.TypeFor[*calcIn](),
	} {
		if newFlatDecoder(typ) != nil {
			t.Errorf("newFlatDecoder(%v) is not nil; encoding/json must decode it", typ)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[flatAll](), reflect.TypeFor[calcIn](), reflect.TypeFor[struct{}]()} {
		if newFlatDecoder(typ) == nil {
			t.Errorf("newFlatDecoder(%v) is nil", typ)
		}
	}
}

// FuzzFlatDecoder: whenever the fast path accepts an input, encoding/json accepts it and
// decodes the same value.
func FuzzFlatDecoder(f *testing.F) {
	for _, c := range flatCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFlat[flatAll](t, data)
		checkFlat[calcIn](t, data)
	})
}
