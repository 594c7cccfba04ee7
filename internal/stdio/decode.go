package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/mcpwasm/mcpwasm/internal/jsonwire"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Decoding: a line becomes a jsonrpc.Message, or the precise JSON-RPC error it deserves.

// envelope holds the raw top-level members of a JSON-RPC message.
type envelope struct {
	version, id, method, params, result, err []byte
	hasID, hasResult, hasError               bool
}

// decode validates one non-blank line b. On success it returns the message
// (or nil if the line is to be dropped silently). On failure it returns a
// JSON-RPC error code (JSON-RPC 2.0 §5.1), a message, and the verbatim request
// id literal if one could be extracted (nil means null).
func (c *conn) decode(b []byte) (msg jsonrpc.Message, code int, text string, id []byte) {
	if !json.Valid(b) {
		var v struct{}
		detail := "invalid JSON"
		if err := json.Unmarshal(b, &v); err != nil {
			detail = err.Error()
		}
		return nil, jsonrpc.CodeParseError, "Parse error: " + detail, nil
	}
	switch b[0] {
	case '{':
	case '[':
		return nil, jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON-RPC batch arrays are not supported (batching was removed in MCP 2025-06-18)", nil
	default:
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: message must be a JSON object", nil
	}
	var env envelope
	jsonwire.ForEachMember(b, func(key []byte, vs, ve int) {
		val := b[vs:ve:ve]
		switch {
		case jsonwire.KeyIs(key, "jsonrpc"):
			env.version = val
		case jsonwire.KeyIs(key, "id"):
			env.id, env.hasID = val, true
		case jsonwire.KeyIs(key, "method"):
			env.method = val
		case jsonwire.KeyIs(key, "params"):
			env.params = val
		case jsonwire.KeyIs(key, "result"):
			env.result, env.hasResult = val, true
		case jsonwire.KeyIs(key, "error"):
			env.err, env.hasError = val, true
		}
	})
	// An id is echoed back only if it has a legal type (JSON-RPC 2.0 §4).
	idKind := jsonwire.Kind(env.id)
	if idKind == '"' || idKind == '0' {
		id = env.id
	}
	invalid := func(why string) (jsonrpc.Message, int, string, []byte) {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: " + why, id
	}
	if v, ok := jsonwire.DecodeString(env.version); !ok || v != "2.0" {
		return invalid(`"jsonrpc" must be exactly "2.0"`)
	}
	if env.hasID && idKind != '"' && idKind != '0' && idKind != 'n' {
		return invalid(`"id" must be a string or a number`)
	}
	if env.method != nil {
		return c.decodeRequest(&env, idKind, id, invalid)
	}
	return c.decodeResponse(&env, idKind, invalid)
}

func (c *conn) decodeRequest(env *envelope, idKind byte, id []byte,
	invalid func(string) (jsonrpc.Message, int, string, []byte)) (jsonrpc.Message, int, string, []byte) {
	method, ok := jsonwire.DecodeString(env.method)
	if !ok {
		return invalid(`"method" must be a string`)
	}
	if idKind == 'n' {
		// MCP spec "Basic › Requests": the id MUST NOT be null.
		return invalid(`"id" must not be null`)
	}
	var params json.RawMessage
	switch jsonwire.Kind(env.params) {
	case 0, 'n':
		// absent or null: no params
	case '{', '[':
		params = append(json.RawMessage(nil), env.params...)
	default:
		// JSON-RPC 2.0 §4.2: params MUST be a structured value.
		return invalid(`"params" must be an object or an array`)
	}
	req := &jsonrpc.Request{Method: method, Params: params}
	if id != nil {
		// JSON-RPC 2.0 §4: an id identifies one request until it is answered. A second
		// request with the id of one still in flight is refused here; the SDK would drop it
		// without a word.
		if !c.claimID(id) {
			return invalid("id " + string(id) + " is already used by a request still in flight")
		}
		rid, err := c.requestID(id)
		if err != nil {
			c.releaseID(id)
			return invalid(err.Error())
		}
		req.ID = rid
	}
	if method == "notifications/cancelled" && !req.ID.IsValid() && params != nil {
		req.Params = c.translateCancelled(params)
		c.noteCancelled(req.Params)
	}
	return req, 0, "", nil
}

func (c *conn) decodeResponse(env *envelope, idKind byte,
	invalid func(string) (jsonrpc.Message, int, string, []byte)) (jsonrpc.Message, int, string, []byte) {
	if !env.hasResult && !env.hasError {
		return invalid(`message has neither "method" nor "result"/"error"`)
	}
	if env.hasResult && env.hasError {
		// JSON-RPC 2.0 §5: either result or error MUST be included, not both.
		return invalid(`response must not contain both "result" and "error"`)
	}
	var werr *jsonrpc.Error
	if env.hasError {
		var e struct {
			Code    *int64          `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if jsonwire.Kind(env.err) != '{' || json.Unmarshal(env.err, &e) != nil || e.Code == nil || e.Message == nil {
			return invalid(`"error" must be an object with an integer "code" and a string "message"`)
		}
		werr = &jsonrpc.Error{Code: *e.Code, Message: *e.Message, Data: e.Data}
	}
	switch idKind {
	case 'n':
		if werr != nil {
			// A peer reports an error it could not attribute to a request
			// (JSON-RPC 2.0 §5). Answering it could start an error ping-pong,
			// and the SDK cannot route it, so it is only logged.
			c.log.Warn("stdio: peer reported an error with id null", "code", werr.Code, "message", werr.Message)
			return nil, 0, "", nil
		}
		return invalid(`response "id" must not be null`)
	case 0:
		return invalid(`response is missing "id"`)
	}
	var rid jsonrpc.ID
	var err error
	if idKind == '"' {
		s, _ := jsonwire.DecodeString(env.id)
		rid, err = jsonrpc.MakeID(s)
	} else {
		// Ids the SDK generates are small integers; accept any literal that
		// denotes one (e.g. 1.0 or 1e0), drop anything else.
		f, perr := strconv.ParseFloat(string(env.id), 64)
		if perr != nil || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
			c.log.Warn("stdio: dropping response with unknown id", "id", string(env.id))
			return nil, 0, "", nil
		}
		rid, err = jsonrpc.MakeID(f)
	}
	if err != nil {
		return invalid(err.Error())
	}
	resp := &jsonrpc.Response{ID: rid}
	if werr != nil {
		resp.Error = werr
	} else {
		resp.Result = append(json.RawMessage(nil), env.result...)
	}
	return resp, 0, "", nil
}

// withErrorCode gives a response whose error is a plain Go error a proper JSON-RPC code
// (JSON-RPC 2.0 §5.1): the SDK answers a request sent before initialize, and a second
// initialize, with a plain error, which would go out as code 0. Those are Invalid Requests
// (-32600); any other plain error is an Internal error (-32603).
func withErrorCode(resp *jsonrpc.Response) *jsonrpc.Response {
	var we *jsonrpc.Error
	if errors.As(resp.Error, &we) && we.Code != 0 {
		return resp
	}
	code := int64(jsonrpc.CodeInternalError)
	if msg := resp.Error.Error(); strings.Contains(msg, "during session initialization") ||
		strings.Contains(msg, `duplicate "initialize"`) {
		code = jsonrpc.CodeInvalidRequest
	}
	cp := *resp
	cp.Error = &jsonrpc.Error{Code: code, Message: resp.Error.Error()}
	return &cp
}

// encodeWithID encodes resp with its id replaced by the verbatim literal lit.
func encodeWithID(resp *jsonrpc.Response, lit []byte) ([]byte, error) {
	cp := *resp
	cp.ID = jsonrpc.ID{} // the zero ID is omitted from the encoding
	data, err := jsonrpc.EncodeMessage(&cp)
	if err != nil {
		return nil, err
	}
	const head = `{"jsonrpc":"2.0"`
	at := 1 // just after '{'
	sep := ","
	if bytes.HasPrefix(data, []byte(head)) {
		at, sep = len(head), ""
	}
	out := make([]byte, 0, len(data)+len(lit)+8)
	out = append(out, data[:at]...)
	if sep == "" {
		out = append(out, ',')
	}
	out = append(out, `"id":`...)
	out = append(out, lit...)
	out = append(out, sep...)
	out = append(out, data[at:]...)
	return out, nil
}
