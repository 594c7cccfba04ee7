// Package guests embeds the default guests, built to WebAssembly from the guest programs in
// the calc and text subdirectories, so a bare `mcpwasm serve` has tools without any
// configuration.
//
// The .wasm files are committed build outputs. After changing a guest or abi/guest, rebuild
// them with guests/build.sh; TestBundledCurrent fails while a committed module is stale, and
// abi/guest/schemagen's TestGeneratedCurrent while a guest's schemas_gen.go is.
package guests

import _ "embed"

// Rebuild from the repo root with guests/build.sh, which runs:
//
//	go generate ./guests/calc   # writes guests/calc/schemas_gen.go
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -tags mcpwasm_nojson -o guests/calc.wasm ./guests/calc
//
//go:embed calc.wasm
var calcWasm []byte

// Rebuild from the repo root with guests/build.sh, which runs:
//
//	go generate ./guests/text   # writes guests/text/schemas_gen.go
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -tags mcpwasm_nojson -o guests/text.wasm ./guests/text
//
//go:embed text.wasm
var textWasm []byte

// Bundled is one default guest embedded in the binary.
type Bundled struct {
	// Name is the guest name, as its manifest reports it.
	Name string
	// Wasm is the compiled module. It is shared: callers must not modify it.
	Wasm []byte
}

// Default returns the default guests served by a bare `mcpwasm serve`, in a stable order (calc, text).
func Default() []Bundled {
	return []Bundled{
		{Name: "calc", Wasm: calcWasm},
		{Name: "text", Wasm: textWasm},
	}
}
