//go:build !wasip1 || mcpwasm_infer

package guest

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// inferLinked reports whether this build infers schemas at run time (see AddTool).
const inferLinked = true

func mustSchema[T any]() json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("guest: inferring schema for %v: %v", reflect.TypeFor[T](), err))
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("guest: encoding schema for %v: %v", reflect.TypeFor[T](), err))
	}
	return b
}
