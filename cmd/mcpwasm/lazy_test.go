package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// brokenCachedGuest returns a cache directory and a module that does not compile but whose
// manifest is cached (the fixture's, filed under the broken module's fingerprint and hash), as
// if module and cache had come apart: a lazy serve lists its tools and fails in the background.
func brokenCachedGuest(t *testing.T) (dir, path string) {
	dir = t.TempDir()
	if out, err := exec.Command(binPath, "inspect", "--cache-dir", dir, fixturePath).CombinedOutput(); err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "manifests", "*.json"))
	if len(entries) != 1 {
		t.Fatalf("manifest cache entries %v, want 1", entries)
	}
	sealed, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := bytes.Cut(sealed, []byte("\n")) // the entry without its MAC line
	bad := []byte("\x00asm\x01\x00\x00\x00\x01\x05\xff\xff\xff\xff\xff")
	good, sum := sha256.Sum256(wat.Fixture), sha256.Sum256(bad)
	b = bytes.ReplaceAll(b, []byte(hex.EncodeToString(good[:])), []byte(hex.EncodeToString(sum[:])))
	suffix := strings.SplitN(filepath.Base(entries[0]), "-", 3)[2] // abi…-f….json
	name := fmt.Sprintf("%x-%08x%08x-%s", len(bad), crc32.Checksum(bad, crc32.MakeTable(crc32.Castagnoli)), crc32.ChecksumIEEE(bad), suffix)
	// Sealed with the cache's key as mcpwasm seals entries (runtime/internal/cacheauth): this
	// test is of what lies behind the MAC.
	key, err := os.ReadFile(filepath.Join(dir, "cache.key"))
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name + "\x00"))
	m.Write(b)
	b = append([]byte("mcpwasm-hmac-sha256 "+hex.EncodeToString(m.Sum(nil))+"\n"), b...)
	if err := os.WriteFile(filepath.Join(dir, "manifests", name), b, 0o600); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "broken.wasm")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// Lazy (the default): the guest's tools are listed from the cached manifest; the background
// compile fails, which the server logs as an error and every call answers as a tool error
// naming the cause. The server keeps serving.
func TestServeLazyBackgroundFailure(t *testing.T) {
	dir, path := brokenCachedGuest(t)
	s := startServer(t, "--cache-dir", dir, path)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if l := s.recv(); !strings.Contains(l, `"name":"echo"`) {
		t.Fatalf("tools/list: %s", l)
	}
	s.send(callLine(3, "echo", `{}`))
	isErr, text := toolResult(t, s.recv())
	if !isErr || !strings.Contains(text, path+": loading in the background: compiling") {
		t.Errorf("call of a guest whose background load failed: isError=%v %q", isErr, text)
	}
	if !strings.Contains(s.stderr.String(), `level=ERROR msg="guest failed to load; its tools return errors" guest=fixture`) {
		t.Errorf("failure not logged:\n%s", s.stderr)
	}
	if code, _ := s.closeAndWait(10 * time.Second); code != ExitOK {
		t.Errorf("exit code %d, want %d", code, ExitOK)
	}
}

// --lazy=false: every guest is compiled and described before serving; the same module fails
// the start with exit code 3.
func TestServeEagerLoadFailure(t *testing.T) {
	dir, path := brokenCachedGuest(t)
	cmd := exec.Command(binPath, "serve", "--lazy=false", "--cache-dir", dir, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != ExitLoad {
		t.Errorf("exit code %d (%v), want %d", code, err, ExitLoad)
	}
	if !strings.Contains(stderr.String(), path+": compiling") {
		t.Errorf("stderr does not name the cause:\n%s", stderr.String())
	}
}

// --idle-timeout is validated like the other durations: a bad value is a usage error.
func TestServeIdleTimeoutFlag(t *testing.T) {
	cmd := exec.Command(binPath, "serve", "--idle-timeout", "soon")
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != ExitUsage {
		t.Errorf("--idle-timeout soon: %v, want exit %d", err, ExitUsage)
	}
}

// Over stdio, --prewarm (the default) makes a guest's first instance while the client
// initializes, before any call: its snapshot is taken with no tools/call sent (the debug log
// says so), and the first call is answered. (--prewarm=false leaves that to the first call.)
func TestServePrewarmMakesTheFirstInstanceBeforeAnyCall(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command(binPath, "inspect", "--cache-dir", dir, fixturePath).CombinedOutput(); err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	s := startServer(t, "--cache-dir", dir, "--log-level", "debug", fixturePath)
	s.initialize()
	waitFor(t, s, `msg="instances start from a snapshot" guest=fixture`)
	s.send(callLine(2, "echo", `{"a":1}`))
	if l := s.recv(); !strings.Contains(l, `"structuredContent":{"a":1}`) || strings.Contains(l, `"isError":true`) {
		t.Errorf("first call after the prewarm: %s", l)
	}
}
