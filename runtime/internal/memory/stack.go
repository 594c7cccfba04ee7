package memory

import (
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tetratelabs/wazero/api"
)

// RetainStackBytes is how much native call stack an idle instance may keep. wazero's
// compiler gives each exported function its own Go-allocated stack, which grows (doubling,
// up to wazero's fixed ceiling of about 100 MiB) while a call recurses and is never shrunk;
// since an instance keeps its api.Functions for speed, one deep call would leave the stack
// in the pool for good (reproducer stack-memory: 4 idle instances kept ~500 MiB). An instance
// whose stacks grew past this after a call is discarded instead of pooled. See RATIONALE.md,
// "Why are instances with a grown call stack discarded?".
const RetainStackBytes = 4 << 20

// stackField caches, per concrete api.Function type, the index of its "stack" []byte field,
// or -1 when the type has none (another engine, another wazero version).
var stackField sync.Map // reflect.Type → int

// NativeStack returns where fn keeps its native call stack, or nil if it cannot be found.
// wazero does not expose it; it is found by reflection in the compiler engine's callEngine,
// once per instance (instantiate), and read on every call through the pointer: wazero
// replaces the slice when the stack grows, never the field. TestNativeStackReadable fails if
// a wazero upgrade removes the field.
func NativeStack(fn api.Function) *[]byte {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	t := v.Type()
	idx, ok := stackField.Load(t)
	if !ok {
		i := -1
		if f, found := t.Elem().FieldByName("stack"); found && len(f.Index) == 1 && f.Type == reflect.TypeFor[[]byte]() {
			i = f.Index[0]
		}
		stackField.Store(t, i)
		idx = i
	}
	if idx.(int) < 0 {
		return nil
	}
	return (*[]byte)(unsafe.Pointer(v.Elem().Field(idx.(int)).UnsafeAddr()))
}

// releasing is set while a ReturnStackMemory runs, so discards in a burst share one.
var releasing atomic.Bool

// ReturnStackMemory gives the memory of discarded stacks back to the operating system now,
// rather than when the Go scavenger gets to it minutes later: the stacks are large and
// deep calls are rare. Concurrent requests share one run.
func ReturnStackMemory() {
	if !releasing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer releasing.Store(false)
		debug.FreeOSMemory()
	}()
}
