package guest

import (
	"encoding/json"
	"fmt"
	"math"
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
	// Out of range or not an integer: encoding/json reports it and leaves the field as it was
	// (the decoder used to store the clamped value, or 0), and decodes the fields after it.
	`{"i8":300,"s":"after"}`, `{"i16":-40000}`, `{"i32":1e10}`, `{"u8":256}`, `{"u16":1.5}`, `{"u32":-0}`,
	`{"u64":-1}`, `{"i64":9223372036854775808}`, `{"i":0.5}`, `{"f32":-1e39}`, `{"f64":-1e400,"b":false}`,
}

// checkFlat decodes data with the flat decoder and with encoding/json, each into a value
// whose fields are already set (prefill): both must give the same error text and the same
// value — also after an error, where encoding/json leaves a field it cannot set as it was
// and decodes the others.
func checkFlat[T any](t *testing.T, data []byte) {
	t.Helper()
	d := newFlatDecoder(reflect.TypeFor[T]())
	if d == nil {
		t.Fatalf("no flat decoder for %v", reflect.TypeFor[T]())
	}
	var got, want T
	prefill(reflect.ValueOf(&got).Elem())
	prefill(reflect.ValueOf(&want).Elem())
	gotErr := d.decode(data, unsafe.Pointer(&got))
	wantErr := json.Unmarshal(data, &want)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("decoding %q: error %v, encoding/json says %v", data, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoding %q: %+v, encoding/json %+v (error %v)", data, got, want, wantErr)
	}
}

// prefill sets every exported scalar field of the struct v to a value no case decodes.
func prefill(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("pre")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(7)
		case reflect.Float32, reflect.Float64:
			f.SetFloat(7.5)
		}
	}
}

func TestFlatDecoder(t *testing.T) {
	for _, c := range flatCases {
		checkFlat[flatAll](t, []byte(c))
		checkFlat[calcIn](t, []byte(c))
	}
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

// FuzzFlatDecoder: the flat decoder and encoding/json give the same value or the same error
// on every input.
func FuzzFlatDecoder(f *testing.F) {
	for _, c := range flatCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFlat[flatAll](t, data)
		checkFlat[calcIn](t, data)
	})
}

type flatOut struct {
	S    string    `json:"s"`
	SO   string    `json:"so,omitempty"`
	B    bool      `json:"b"`
	BO   bool      `json:"bo,omitempty"`
	I    int       `json:"i"`
	I8   int8      `json:"i8,omitempty"`
	I16  int16     `json:"i16"`
	I32  int32     `json:"i32"`
	I64  int64     `json:"i64,omitempty"`
	U    uint      `json:"u"`
	U8   uint8     `json:"u8"`
	U16  uint16    `json:"u16,omitempty"`
	U32  uint32    `json:"u32"`
	U64  uint64    `json:"u64"`
	F32  float32   `json:"f32"`
	F64  float64   `json:"f64"`
	F64O float64   `json:"f64o,omitempty"`
	Lab  flatLabel `json:"label"`
	Bare string
	Dash int `json:"-"`
}

// checkFlatOut encodes v with the fast path and with encoding/json (no HTML escaping): the
// bytes must be equal, and the fast path must refuse exactly what encoding/json refuses.
func checkFlatOut[T any](t *testing.T, v T) {
	t.Helper()
	e := newFlatEncoder(reflect.TypeFor[T]())
	if e == nil {
		t.Fatalf("no flat encoder for %v", reflect.TypeFor[T]())
	}
	got, ok := e.encode(nil, unsafe.Pointer(&v))
	want, err := marshal(v)
	if ok != (err == nil) {
		t.Fatalf("encoding %+v: fast path ok=%v, encoding/json err=%v", v, ok, err)
	}
	if !ok && e.unsupported(unsafe.Pointer(&v)) != err.Error() {
		t.Fatalf("encoding %+v: error %q, encoding/json says %q", v, e.unsupported(unsafe.Pointer(&v)), err)
	}
	if ok && string(got) != string(want) {
		t.Fatalf("encoding %+v:\nfast path     %s\nencoding/json %s", v, got, want)
	}
}

func TestFlatEncoder(t *testing.T) {
	checkFlatOut(t, flatOut{})
	checkFlatOut(t, calcOut{Value: 98})
	checkFlatOut(t, struct{}{})
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 98, 1e20, 1e21, 123456789e13, 1e-6, 9.99e-7, 1e-7, 5e-324,
		math.MaxFloat64, -math.MaxFloat64, math.MaxFloat32, 1.0 / 3, 0.1, 100, 1e6, 1e100, math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkFlatOut(t, flatOut{F64: f, F64O: f, F32: float32(f), S: "a<b>&\"\n\xff", Lab: "é"})
		checkFlatOut(t, flatOut{F32: float32(f)})
	}
	checkFlatOut(t, flatOut{S: "x", SO: "y", B: true, BO: true, I: -1, I8: -128, I16: 32767, I32: -5, I64: math.MinInt64,
		U: 1, U8: 255, U16: 1, U32: math.MaxUint32, U64: math.MaxUint64, Bare: "bare", Dash: 7})
}

func TestFlatEncoderEligible(t *testing.T) {
	type zero struct {
		N int `json:"n,omitzero"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[zero](), reflect.TypeFor[json.Number](), reflect.TypeFor[marshals](),
		reflect.TypeFor[struct {
			M marshals `json:"m"`
		}]()} {
		if newFlatEncoder(typ) != nil {
			t.Errorf("newFlatEncoder(%v) is not nil; encoding/json must encode it", typ)
		}
	}
	if newFlatDecoder(reflect.TypeFor[marshals]()) != nil {
		t.Errorf("newFlatDecoder(marshals) is not nil, but encoding/json calls its UnmarshalJSON")
	}
}

// marshals encodes and decodes itself: encoding/json calls its methods.
type marshals struct {
	A string `json:"a"`
}

func (m marshals) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

func (m *marshals) UnmarshalJSON(b []byte) error { m.A = "custom"; return nil }

// FuzzFlatEncoder: the fast path encodes every value of a flat struct exactly as
// encoding/json does.
func FuzzFlatEncoder(f *testing.F) {
	f.Add("x", "", true, int64(1), uint64(2), 1.5, float32(2.5))
	f.Add("a<b>&\"\n\xff\u2028", "y", false, int64(math.MinInt64), uint64(math.MaxUint64), 1e21, float32(1e-7))
	f.Fuzz(func(t *testing.T, s, so string, b bool, i int64, u uint64, f64 float64, f32 float32) {
		checkFlatOut(t, flatOut{S: s, SO: so, B: b, BO: b, I: int(i), I8: int8(i), I16: int16(i), I32: int32(i), I64: i,
			U: uint(u), U8: uint8(u), U16: uint16(u), U32: uint32(u), U64: u, F32: f32, F64: f64, F64O: f64, Lab: flatLabel(so), Bare: s})
	})
}
