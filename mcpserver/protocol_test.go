package mcpserver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourceNotFoundCodeByVersion: an unknown resource is -32002 when 2025-11-25 (or
// earlier) was negotiated and -32602 with 2026-07-28 (SEP-2164), through the SDK's own
// client (reproducer N11).
func TestResourceNotFoundCodeByVersion(t *testing.T) {
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.AddResource(&mcp.Resource{URI: "x://known", Name: "known"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "x://known", Text: "k"}}}, nil
	})
	for _, tc := range []struct {
		version string // "" lets the client negotiate the newest
		code    int64
	}{
		{"2025-06-18", -32002},
		{"2025-11-25", -32002},
		{"", jsonrpc.CodeInvalidParams},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		var so *mcp.ClientSessionOptions
		if tc.version != "" {
			so = &mcp.ClientSessionOptions{ProtocolVersion: tc.version}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, so)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "x://nope"})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != tc.code {
			t.Errorf("version %q (negotiated %q): read of an unknown resource = %v, want code %d", tc.version, cs.InitializeResult().ProtocolVersion, err, tc.code)
		}
		cs.Close()
		ss.Close()
		cancel()
	}
}
