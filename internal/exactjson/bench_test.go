package exactjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchResults are a 100-byte text result with structured content and a 1 MiB one (an
// array of small objects in structuredContent), the sizes BENCHMARKS.md reports.
func benchResults() map[string][]byte {
	small := `{"content":[{"type":"text","text":"hello, world"}],"structuredContent":{"n":1,"s":"abcdefghij"}}`
	var b strings.Builder
	b.WriteString(`{"content":[{"type":"text","text":"big"}],"structuredContent":{"items":[`)
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%d","tags":["a","b"],"score":1.5,"ok":true}`, i, i)
	}
	b.WriteString(`]}}`)
	return map[string][]byte{"100B": []byte(small), "1MiB": []byte(b.String())}
}

// benchEachResult runs op over each of benchResults as a sub-benchmark named by its size,
// with bytes/op and allocations reported; op returning false fails it, saying what.
func benchEachResult(b *testing.B, what string, op func(data []byte) bool) {
	results := benchResults()
	for _, name := range []string{"100B", "1MiB"} {
		data := results[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if !op(data) {
					b.Fatal(what)
				}
			}
		})
	}
}

// BenchmarkJSONValid is the baseline: json.Valid over the same bytes.
func BenchmarkJSONValid(b *testing.B) {
	benchEachResult(b, "invalid", json.Valid)
}

// BenchmarkDecodeTextResult is the fast path a guest's result takes (json.Valid, the members,
// and the duplicate-key scan of structuredContent and _meta).
func BenchmarkDecodeTextResult(b *testing.B) {
	benchEachResult(b, "not taken", func(data []byte) bool {
		_, ok := DecodeTextResult(data)
		return ok
	})
}
