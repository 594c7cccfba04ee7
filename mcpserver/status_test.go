package mcpserver_test

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The status tools' names go through the server's NameSet: a name another owner holds makes
// AddStatus fail, and once added no one else can take them.
func TestStatusNamesAreClaimed(t *testing.T) {
	h, err := runtime.NewHost(context.Background(), &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)

	taken := &mcpserver.NameSet{}
	taken.Claim(mcpserver.StopToolName, `upstream "x"`)
	err = mcpserver.AddStatus(srv, h, taken)
	if want := `tool "mcpwasm_stop" of the status tools is already provided by upstream "x"`; err == nil || err.Error() != want {
		t.Errorf("AddStatus with a taken name: %v, want %s", err, want)
	}

	names := &mcpserver.NameSet{}
	if err := mcpserver.AddStatus(srv, h, names); err != nil {
		t.Fatal(err)
	}
	if holder, ok := names.Claim(mcpserver.StatusToolName, `upstream "y"`); ok || holder != "the status tools" {
		t.Errorf("Claim(mcpwasm_status) after AddStatus = %q, %v; want the status tools, false", holder, ok)
	}
}
