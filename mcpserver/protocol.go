package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// loggingLevels are the eight RFC 5424 severities of MCP "Utilities › Logging"
// (LoggingLevel), lower case as the schema spells them.
var loggingLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// notFoundStandardVersion is the first protocol revision in which an unknown resource is
// -32602 Invalid Params (SEP-2164); earlier ones specify -32002.
const notFoundStandardVersion = "2026-07-28"

// codeResourceNotFoundLegacy is "Resources › Error Handling" up to 2025-11-25.
const codeResourceNotFoundLegacy = -32002

// protocolMiddleware checks what the SDK leaves to servers, on every transport:
//
//   - logging/setLevel with a level outside LoggingLevel is -32602 Invalid Params (the SDK
//     stores any string, including "" for a missing or null level).
//   - resources/read of an unknown resource answers the code of the negotiated revision:
//     -32002 up to 2025-11-25, -32602 from 2026-07-28 (the SDK always answers -32602).
//   - resources/read of a URI that no resource serves as it is spelled is tried once more
//     normalized as Node's TS SDK server reads it through WHATWG URL (normalizeURI): an IRI
//     mapped to its URI (RFC 3987 §3.1), the scheme and a web URL's host in lower case; so
//     "note://café" reaches the template note://{id}, and "HTTPS://Example.com/x" the
//     resource https://example.com/x.
//   - a plain Go error gets a JSON-RPC code (withCode), on HTTP as on stdio.
func protocolMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "logging/setLevel":
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && !slices.Contains(loggingLevels, p.Level) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("invalid params: level %q is not one of debug, info, notice, warning, error, critical, alert, emergency", p.Level)}
			}
		case "resources/read", "resources/subscribe":
			res, err := next(ctx, method, req)
			if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok && isNotFound(err) {
				if u := normalizeURI(p.URI); u != p.URI {
					orig := p.URI
					p.URI = u
					if res, err = next(ctx, method, req); isNotFound(err) {
						p.URI = orig // the error names what the client asked for
						res, err = next(ctx, method, req)
					}
				}
			}
			return res, withCode(resourceNotFoundCode(req, err))
		}
		res, err := next(ctx, method, req)
		return res, withCode(err)
	}
}

// withheldMiddleware adds to the error of a tools/call of an unknown tool why s withheld
// it, if it did (WithholdTool).
func withheldMiddleware(s *mcp.Server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			var je *jsonrpc.Error
			if method != "tools/call" || !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(je.Message, "unknown tool ") {
				return res, err
			}
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				if why := withheldReason(s, p.Name); why != "" {
					return nil, &jsonrpc.Error{Code: je.Code, Message: je.Message + ": withheld: " + why}
				}
			}
			return res, err
		}
	}
}

// withCode gives a plain Go error a JSON-RPC code, as the stdio transport does for what
// reaches it: the SDK answers a second initialize with a plain error, which would go out as
// code 0 over HTTP. That is -32600 Invalid Request; any other plain error is -32603.
func withCode(err error) error {
	var je *jsonrpc.Error
	if err == nil || errors.As(err, &je) {
		return err
	}
	code := int64(jsonrpc.CodeInternalError)
	if msg := err.Error(); strings.Contains(msg, "during session initialization") || strings.Contains(msg, `duplicate "initialize"`) {
		code = jsonrpc.CodeInvalidRequest
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

// resourceNotFoundCode rewrites the SDK's resource-not-found error (mcp.ResourceNotFoundError)
// to the code of the request's protocol revision (revisionOf).
func resourceNotFoundCode(req mcp.Request, err error) error {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || je.Message != "Resource not found" {
		return err
	}
	if v := revisionOf(req); ProtocolAtLeast(v, notFoundStandardVersion) {
		return err
	}
	cp := *je
	cp.Code = codeResourceNotFoundLegacy
	return &cp
}

// isNotFound reports whether err is the SDK's resource-not-found error.
func isNotFound(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == mcp.CodeResourceNotFound
}

// specialSchemes are WHATWG URL's special schemes, whose host is case-insensitive.
var specialSchemes = map[string]bool{"http": true, "https": true, "ws": true, "wss": true, "ftp": true, "file": true}

// normalizeURI is s as a URI (iriToURI) with its scheme in lower case and, for a special
// scheme, its host too (RFC 3986 §6.2.2.1; WHATWG URL lowercases exactly these). Anything
// it cannot read as scheme ":" … is returned mapped only.
func normalizeURI(s string) string {
	s = iriToURI(s)
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || scheme == "" {
		return s
	}
	scheme = strings.ToLower(scheme)
	if !specialSchemes[scheme] || !strings.HasPrefix(rest, "//") {
		return scheme + ":" + rest
	}
	auth, path := rest[2:], ""
	if i := strings.IndexAny(auth, "/?#"); i >= 0 {
		auth, path = auth[:i], auth[i:]
	}
	user, host := "", auth
	if i := strings.LastIndex(auth, "@"); i >= 0 {
		user, host = auth[:i+1], auth[i+1:]
	}
	return scheme + "://" + user + strings.ToLower(host) + path
}

// iriToURI maps an IRI to a URI as RFC 3987 §3.1 does: each character a URI may not hold —
// non-ASCII, controls, space and "<>\"{}|\\^`" — becomes the percent-encoded bytes of its
// UTF-8 (uppercase hex); "%" and the rest are kept. A URI is returned as it is.
func iriToURI(s string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > 0x20 && c < 0x7f && !strings.ContainsRune("<>\"{}|\\^`", rune(c)) {
			if b != nil {
				b = append(b, c)
			}
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, len(s)+16), s[:i]...)
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	if b == nil {
		return s
	}
	return string(b)
}
