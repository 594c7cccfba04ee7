package size

import "testing"

func TestFormat(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0 bytes", 1000: "1000 bytes", 1024: "1 KiB", 1536: "1536 bytes",
		64 << 10: "64 KiB", 16 << 20: "16 MiB", 1<<20 + 1024: "1025 KiB",
	} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
