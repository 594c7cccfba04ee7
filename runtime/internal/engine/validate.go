package engine

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/runtime/internal/schema"
)

// (most tools, including the permissive {"type":"object"}) are recognized without decoding
// (runtime/internal/schema); everything else, and every failure, goes through jsonschema-go.
func (t *tool) validate(args []byte) error {
	if t.flat != nil && t.flat.Accepts(args) {
		return nil
	}
	return schema.Validate(t.input, args)
}

// ValidateOutputJSON implements runtime.Guest.ValidateOutputJSON, whose doc comment says what it does.
func (g *Guest) ValidateOutputJSON(tool string, structured json.RawMessage) error {
	if t, ok := g.lists().tools[tool]; ok && t.output == nil {
		return nil
	}
	v, err := schema.DecodeExact(structured)
	if err != nil {
		return fmt.Errorf("guest %q tool %q: %w: structured content: %v", g.name, tool, ErrABI, err)
	}
	return g.ValidateOutput(tool, v)
}
