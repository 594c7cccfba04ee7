//go:build wasip1

// Command probe is a test guest: each tool exercises one capability with arguments chosen by
// the test, and reports what the host allowed. Tests build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o probe.wasm ./testdata/guests/probe
package main

// The schemas of its AddTool tools are in schemas_gen.go; this file builds only for wasip1,
// so go generate skips it: regenerate from the repo root with
//
//	go run ./abi/guest/schemagen testdata/guests/probe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

type httpIn struct {
	URL string `json:"url"`
}

type execIn struct {
	Program string   `json:"program"`
	Args    []string `json:"args,omitempty"`
	Stdin   string   `json:"stdin,omitempty"`
}

type pathIn struct {
	Path string `json:"path"`
	Text string `json:"text,omitempty"`
}

type linkIn struct {
	Target string `json:"target"`
	Link   string `json:"link"`
}

type none struct{}

func init() {
	guest.SetInfo("probe", "1.0.0", "Capability probe for tests")
	guest.SetRequests(abi.Requests{
		Net:    []string{"*:*"},
		Exec:   []string{"/usr/bin/git", "/usr/bin/env", "/bin/echo"},
		FS:     []abi.FSRequest{{Path: "/data", RW: true}},
		Env:    []string{"GREETING", "HOME"},
		Clock:  true,
		Random: true,
	})
	guest.AddTool(abi.Tool{Name: "http"}, func(ctx context.Context, in httpIn) (string, error) {
		resp, err := guest.HTTP(abi.HTTPRequest{URL: in.URL})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d %s", resp.Status, resp.Body), nil
	})
	guest.AddTool(abi.Tool{Name: "http2"}, func(ctx context.Context, in httpIn) (string, error) {
		resp, err := guest.HTTP(abi.HTTPRequest{URL: in.URL})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d %s", resp.Status, resp.Body), nil
	})
	guest.AddTool(abi.Tool{Name: "exec"}, func(ctx context.Context, in execIn) (string, error) {
		resp, err := guest.Exec(abi.ExecRequest{Program: in.Program, Args: in.Args, Stdin: in.Stdin})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("exit=%d stdout=%q stderr=%q", resp.ExitCode, resp.Stdout, resp.Stderr), nil
	})
	guest.AddTool(abi.Tool{Name: "read"}, func(ctx context.Context, in pathIn) (string, error) {
		b, err := os.ReadFile(in.Path)
		if err != nil {
			return "", err
		}
		return string(b), nil
	})
	guest.AddTool(abi.Tool{Name: "write"}, func(ctx context.Context, in pathIn) (string, error) {
		if err := os.WriteFile(in.Path, []byte(in.Text), 0o644); err != nil {
			return "", err
		}
		return "ok", nil
	})
	guest.AddTool(abi.Tool{Name: "symlink"}, func(ctx context.Context, in linkIn) (string, error) {
		if err := os.Symlink(in.Target, in.Link); err != nil {
			return "", err
		}
		return "ok", nil
	})
	guest.AddTool(abi.Tool{Name: "env"}, func(ctx context.Context, in none) (string, error) {
		env := os.Environ()
		sort.Strings(env)
		return strings.Join(env, "\n"), nil
	})
	guest.AddTool(abi.Tool{Name: "clock"}, func(ctx context.Context, in none) (string, error) {
		return fmt.Sprint(time.Now().Year()), nil
	})
	guest.AddTool(abi.Tool{Name: "random"}, func(ctx context.Context, in none) (string, error) {
		b := make([]byte, 8)
		rand.Read(b)
		return hex.EncodeToString(b), nil
	})
}

func main() {}
