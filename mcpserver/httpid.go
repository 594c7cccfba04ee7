package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exactIDs refuses, over HTTP, a JSON-RPC message whose id go-sdk cannot hold exactly: the
// SDK decodes a numeric id into a float64 and then an int64 (jsonrpc2.MakeID), so 1.5 would be
// answered as 1 and 2^63, 1e30 or 1e308 as -9223372036854775808, and two distinct ids would
// collide (one refused as a duplicate, a cancel of one cancelling the other). JSON-RPC 2.0 §4
// ("Numbers SHOULD NOT contain fractional parts") and MCP ("the ID MUST be a string or
// integer") allow us to refuse them: the JSON-RPC error -32600 (invalid request) naming the
// id, answered under the id exactly as it was written (JSON-RPC 2.0 §5: the response id is
// the request's), in an HTTP 200 JSON answer like any other JSON-RPC error; the request never
// runs. A notifications/cancelled whose requestId is such a number (it would cancel another
// request) gets 400 with the same error, id null. Strings, null and integers that survive the
// SDK's float64 (every integer within ±2^53, and the larger ones a float64 holds exactly)
// pass. stdio keeps its ids as written (internal/stdio) and needs no such check.
func exactIDs(maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, over, err := readBody(r, maxBody)
		if err != nil { // the SDK reads what came and meets the same error, which it answers
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			next.ServeHTTP(w, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body)) // the SDK reads it again (and applies the limit)
		if !over {
			if raw, what := inexactID(body); raw != nil {
				shown := string(raw)
				if len(shown) > 64 {
					shown = shown[:64] + "…"
				}
				msg := fmt.Sprintf("invalid request: %s %s cannot be answered exactly: a request id must be a string or an integer within ±2^53", what, shown)
				if what == "id" {
					writeJSONRPCError(w, http.StatusOK, raw, jsonrpc.CodeInvalidRequest, msg)
				} else {
					writeJSONRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, msg)
				}
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// integerLiteral is a JSON number written as an integer.
var integerLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// inexactID returns the first id of body (one message or a batch) that go-sdk cannot hold
// exactly, as written, and what it is ("id", or "requestId" of notifications/cancelled); nil
// if there is none. A body that is not JSON-RPC is left to the SDK (nil).
func inexactID(body []byte) (json.RawMessage, string) {
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	var msgs []msg
	switch b := bytes.TrimLeft(body, " \t\r\n"); {
	case len(b) > 0 && b[0] == '{':
		var m msg
		if json.Unmarshal(b, &m) != nil {
			return nil, ""
		}
		msgs = []msg{m}
	case len(b) > 0 && b[0] == '[':
		if json.Unmarshal(b, &msgs) != nil {
			return nil, ""
		}
	default:
		return nil, ""
	}
	for _, m := range msgs {
		if len(m.ID) > 0 && !exactID(string(m.ID)) {
			return m.ID, "id"
		}
		if m.Method == "notifications/cancelled" && len(m.Params.RequestID) > 0 && !exactID(string(m.Params.RequestID)) {
			return m.Params.RequestID, "requestId"
		}
	}
	return nil, ""
}

// exactID reports whether the JSON value id survives go-sdk's float64 → int64 decoding
// unchanged: not a number, or an integer n with int64(float64(n)) == n.
func exactID(id string) bool {
	switch id[0] {
	case '"', 'n', '{', '[', 't', 'f':
		return true // a string, null, or a type the SDK refuses itself
	}
	if !integerLiteral.MatchString(id) {
		return false
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return false
	}
	f := float64(n)
	return f < math.MaxInt64 && f >= math.MinInt64 && int64(f) == n
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// readBody reads and closes r's body as the SDK's handler will read it: at most maxBody+1
// bytes (0: mcp.DefaultMaxRequestBodyBytes; negative: no limit), so a middleware that looks
// at a request (exactIDs, the task routes, the policy) sees what the SDK sees and the SDK
// still answers an oversized one (over: the body is longer than the limit). The caller puts
// the bytes back in r.Body.
func readBody(r *http.Request, maxBody int64) (body []byte, over bool, err error) {
	limit := maxBody
	switch {
	case limit == 0:
		limit = mcp.DefaultMaxRequestBodyBytes
	case limit < 0:
		limit = math.MaxInt64 - 1
	}
	body, err = io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body.Close()
	return body, int64(len(body)) > limit, err
}
