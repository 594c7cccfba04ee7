package stdio

import (
	"encoding/json"
	"github.com/mcpwasm/mcpwasm/internal/jsonwire"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The id table: request ids as the client wrote them, the surrogates the SDK sees, ids in
// flight, and cancelled requests whose late answers are dropped.

// requestID converts the verbatim id literal of an incoming request into the
// ID handed to the SDK. Literals that survive the SDK's round trip unchanged
// (canonical integers within ±2^53, and strings the SDK re-encodes
// identically) are passed through; any other literal is replaced by a fresh
// surrogate string and remembered so Write can restore it.
func (c *conn) requestID(lit []byte) (jsonrpc.ID, error) {
	if lit[0] == '"' {
		if jsonwire.PlainString(lit) {
			return jsonrpc.MakeID(string(lit[1 : len(lit)-1]))
		}
	} else if n, ok := canonicalInt(lit); ok {
		return jsonrpc.MakeID(float64(n))
	}
	return jsonrpc.MakeID(c.newSurrogate(lit))
}

func (c *conn) newSurrogate(lit []byte) string {
	c.idMu.Lock()
	defer c.idMu.Unlock()
	c.nextID++
	s := surrogatePrefix + strconv.FormatUint(c.nextID, 10)
	if c.originals == nil {
		c.originals = make(map[string][]byte)
		c.byLiteral = make(map[string]string)
	}
	orig := string(lit)
	c.originals[s] = []byte(orig)
	c.byLiteral[orig] = s
	return s
}

// takeOriginal returns (and forgets) the original id literal for a surrogate
// id, or nil if id is not a surrogate.
func (c *conn) takeOriginal(id jsonrpc.ID) []byte {
	s, ok := id.Raw().(string)
	if !ok || len(s) <= len(surrogatePrefix) || s[:len(surrogatePrefix)] != surrogatePrefix {
		return nil
	}
	c.idMu.Lock()
	defer c.idMu.Unlock()
	lit, ok := c.originals[s]
	if !ok {
		return nil
	}
	delete(c.originals, s)
	if c.byLiteral[string(lit)] == s {
		delete(c.byLiteral, string(lit))
	}
	return lit
}

// claimID records a request id literal as in flight; false means it already is. Keys are
// the literal with numbers and plain strings in canonical form, as responses write them.
func (c *conn) claimID(lit []byte) bool {
	key := idKey(lit)
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if c.inflight[key] {
		return false
	}
	if c.inflight == nil {
		c.inflight = map[string]bool{}
	}
	c.inflight[key] = true
	return true
}

func (c *conn) releaseID(lit []byte) { c.releaseKey(idKey(lit)) }

func (c *conn) releaseKey(key string) {
	c.idMu.Lock()
	delete(c.inflight, key)
	c.idMu.Unlock()
}

// rawIDKey is idKey of the literal an id the SDK decoded itself came from (see requestID).
func rawIDKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return `"` + v + `"`
	}
	return ""
}

// idKey canonicalizes an id literal the SDK passes through unchanged (a canonical integer or
// a plain string); any other literal is its own key, since it travels as a surrogate and is
// written back verbatim.
func idKey(lit []byte) string {
	if lit[0] == '"' && jsonwire.PlainString(lit) {
		return string(lit)
	}
	if n, ok := canonicalInt(lit); ok {
		return strconv.FormatInt(n, 10)
	}
	return string(lit)
}

// maxCancelled bounds the ids remembered from notifications/cancelled whose request has not
// been answered (a client may cancel ids that never existed).
const maxCancelled = 1024

// noteCancelled remembers the requestId of a notifications/cancelled (already translated to
// the SDK's id), so that the SDK's eventual response to it is dropped.
func (c *conn) noteCancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	key, err := json.Marshal(p.RequestID)
	if err != nil {
		return
	}
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if c.cancelled == nil || len(c.cancelled) >= maxCancelled {
		c.cancelled = map[string]bool{}
	}
	c.cancelled[string(key)] = true
}

// takeCancelled reports (once) whether id was cancelled by the client.
func (c *conn) takeCancelled(id jsonrpc.ID) bool {
	key, err := json.Marshal(id.Raw())
	if err != nil {
		return false
	}
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if !c.cancelled[string(key)] {
		return false
	}
	delete(c.cancelled, string(key))
	return true
}

// translateCancelled rewrites params.requestId of a notifications/cancelled
// (MCP spec "Utilities › Cancellation") from an original id literal to its
// surrogate, so the SDK cancels the right request. Other params are returned
// unchanged.
func (c *conn) translateCancelled(params json.RawMessage) json.RawMessage {
	if jsonwire.Kind(params) != '{' {
		return params
	}
	start, end := -1, -1
	jsonwire.ForEachMember(params, func(key []byte, vs, ve int) {
		if jsonwire.KeyIs(key, "requestId") {
			start, end = vs, ve
		}
	})
	if start < 0 {
		return params
	}
	c.idMu.Lock()
	s, ok := c.byLiteral[string(params[start:end])]
	c.idMu.Unlock()
	if !ok {
		return params
	}
	out := make(json.RawMessage, 0, len(params)+len(s)+8)
	out = append(out, params[:start]...)
	out = appendJSONString(out, s)
	out = append(out, params[end:]...)
	return out
}
