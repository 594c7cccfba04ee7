package codemode

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	js "github.com/mcpwasm/mcpwasm/abi/js"
)

// The engine: quickjs-wasi 3.7.0's quickjs.wasm (MIT), the same build the JavaScript kind
// pins (runtime/internal/kind/quickjs EngineSHA256). Fetch it with
//
//	npm pack quickjs-wasi@3.7.0 && tar -xzf quickjs-wasi-3.7.0.tgz package/quickjs.wasm
//
// and check its sha256 against EngineSHA256.
//
//go:embed quickjs.wasm
var engine []byte

// EngineVersion and EngineSHA256 name the embedded engine.
const (
	EngineVersion = "quickjs-wasi 3.7.0"
	EngineSHA256  = "c0bd8f296e18cf074969f6401b9ecb72609a1323818ec2b9bf7a8f8d740d1363"
)

//go:embed runner.js
var runnerJS string

// scriptSection is the custom section the JavaScript kind reads the script from.
const scriptSection = "mcpwasm.js"

// runnerModule returns the runner guest: the engine with the runner script (requests line
// granting mcp to upstream, the heap grown by pregrow bytes, the host function captured
// before the shim deletes it, the shim, the runner) in its custom section.
//
// The heap is grown (a buffer allocated and freed) before the instance's snapshot is taken
// so a run that needs up to that much memory does not grow it: an instance whose memory
// grew past its snapshot's cannot be reset in place, so the next run would wait for a fresh
// instance (BenchmarkRunAfterGrowth).
func runnerModule(upstream string, pregrow int) ([]byte, error) {
	if sum := sha256.Sum256(engine); hex.EncodeToString(sum[:]) != EngineSHA256 {
		return nil, fmt.Errorf("codemode: embedded engine sha256 %x, want %s", sum, EngineSHA256)
	}
	req, err := json.Marshal(map[string][]string{"mcp": {upstream}})
	if err != nil {
		return nil, err
	}
	script := "globalThis.__mcpwasm={requests:" + string(req) + "};\n" +
		"{ let b = new ArrayBuffer(" + strconv.Itoa(pregrow) + "); b = null; }\n" +
		"const __cmHost=globalThis.__mcpwasm_host;\n" +
		js.Shim + "\n" + runnerJS
	mod := append([]byte(nil), engine...)
	payload := appendULEB(nil, uint64(len(scriptSection)))
	payload = append(payload, scriptSection...)
	payload = append(payload, script...)
	mod = append(mod, 0)
	mod = appendULEB(mod, uint64(len(payload)))
	return append(mod, payload...), nil
}

// maxPregrow is the most the runner's heap is grown by before its snapshot: 16 MiB, or a
// quarter of the memory limit when that is less.
const maxPregrow = 16 << 20

func pregrowFor(memoryMB int) int { return min(maxPregrow, memoryMB<<20/4) }

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}
