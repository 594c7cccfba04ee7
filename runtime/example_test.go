package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// Load a guest module and call one of its tools. The result is the guest's MCP
// CallToolResult JSON.
func ExampleHost_Load() {
	ctx := context.Background()
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close(ctx)

	guest, err := host.Load(ctx, wat.Echo, &runtime.GuestConfig{Source: "echo.wasm"})
	if err != nil {
		log.Fatal(err)
	}
	out, err := guest.Call(ctx, "echo", []byte(`{"text":"hi"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(guest.Name(), string(out))
	// Output: echo {"content":[],"structuredContent":{"text":"hi"}}
}

// Limits are on by default; here one tool loops forever and meets a 50 ms time limit. The
// error is a *runtime.CallError naming the guest and tool, and wraps runtime.ErrTimeLimit.
func ExampleGuest_Call_limits() {
	ctx := context.Background()
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close(ctx)
	guest, err := host.Load(ctx, wat.Fixture, &runtime.GuestConfig{
		Limits: runtime.Limits{Timeout: 50 * time.Millisecond, MemoryBytes: 1 << 20},
	})
	if err != nil {
		log.Fatal(err)
	}

	_, err = guest.Call(ctx, "spin", nil)
	fmt.Println(errors.Is(err, runtime.ErrTimeLimit))
	var ce *runtime.CallError
	if errors.As(err, &ce) {
		fmt.Printf("guest %s, tool %s: %v\n", ce.Guest, ce.Name, ce.Err)
	}

	_, err = guest.Call(ctx, "add", []byte(`{"a":"one"}`))
	fmt.Println(errors.Is(err, runtime.ErrInvalidArguments))

	_, err = guest.Call(ctx, "grow", nil)
	fmt.Println(err == nil) // grow stops at the memory limit and reports the pages it got
	// Output:
	// true
	// guest fixture, tool spin: time limit exceeded (50ms)
	// true
	// true
}

// Per-tool grants may only narrow the guest's: Within says whether they do, naming what
// does not fit.
func ExampleGrants_Within() {
	guest := runtime.Grants{Net: []string{"*.example.com"}, Clock: true}
	fmt.Println(runtime.Grants{Net: []string{"api.example.com"}, Clock: true}.Within(guest))
	fmt.Println(runtime.Grants{Net: []string{"evil.org"}}.Within(guest))
	fmt.Println(runtime.Grants{Random: true}.Within(guest))
	// Output:
	// <nil>
	// net "evil.org" is not granted to the guest
	// random is not granted to the guest
}
