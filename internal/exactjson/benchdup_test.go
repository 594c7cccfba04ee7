package exactjson

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/jsonwire"
)

// BenchmarkDuplicateKey is the duplicate-key scan alone over a whole result.
func BenchmarkDuplicateKey(b *testing.B) {
	benchEachResult(b, "dup", func(data []byte) bool {
		_, _, dup := jsonwire.DuplicateKey(data)
		return !dup
	})
}
