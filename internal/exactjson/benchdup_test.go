package exactjson

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/jsonwire"
)

// BenchmarkDuplicateKey is the duplicate-key scan alone over a whole result.
func BenchmarkDuplicateKey(b *testing.B) {
	for _, name := range []string{"100B", "1MiB"} {
		data := benchResults()[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, dup := jsonwire.DuplicateKey(data); dup {
					b.Fatal("dup")
				}
			}
		})
	}
}
