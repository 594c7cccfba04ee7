package runtime

import (
	"reflect"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/engine"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

type (
	fakeObserver  struct{ Observer }
	fakeUpstreams struct{ peer.Upstreams }
)

// TestOptionsParity: NewHost copies Options to the engine's field by field (engineOptions),
// so a field added to one and not the other, or not copied, would be dropped without a word.
// Every exported field of either must be in the other, and a value set in each of Options'
// fields must arrive in the engine's.
func TestOptionsParity(t *testing.T) {
	pub, eng := reflect.TypeFor[Options](), reflect.TypeFor[engine.Options]()
	exported := func(typ reflect.Type) map[string]bool {
		m := map[string]bool{}
		for f := range typ.Fields() {
			if f.IsExported() {
				m[f.Name] = true
			}
		}
		return m
	}
	pf, ef := exported(pub), exported(eng)
	if !reflect.DeepEqual(pf, ef) {
		t.Fatalf("runtime.Options fields %v, engine.Options fields %v: want the same", pf, ef)
	}
	var o Options
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int64:
			f.SetInt(7)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Interface:
			switch f.Type() {
			case reflect.TypeFor[Observer]():
				f.Set(reflect.ValueOf(fakeObserver{}))
			case reflect.TypeFor[peer.Upstreams]():
				f.Set(reflect.ValueOf(fakeUpstreams{}))
			default:
				t.Fatalf("Options.%s: interface %s: extend this test", pub.Field(i).Name, f.Type())
			}
		case reflect.Struct: // peer.Net
			f.FieldByName("MaxRedirects").SetInt(3)
		default:
			t.Fatalf("Options.%s: kind %s: extend this test", pub.Field(i).Name, f.Kind())
		}
	}
	e := reflect.ValueOf(engineOptions(&o))
	for i := range v.NumField() {
		name := pub.Field(i).Name
		if v.Field(i).IsZero() {
			continue
		}
		if e.FieldByName(name).IsZero() {
			t.Errorf("Options.%s set, engine.Options.%s zero: engineOptions does not copy it", name, name)
		}
	}
}
