// Package abi is the contract between the mcpwasm host and a WebAssembly guest: export and
// import names, status codes, and the JSON shapes that cross linear memory. ABI.md beside this
// file is the normative text; this package mirrors it for Go code on both sides.
//
// Package abi imports nothing but the standard library, so guest code (built for wasip1) and
// the host share it without pulling in a WebAssembly runtime.
package abi

import (
	"encoding/json"
	"strconv"
)

// Version is the ABI major version this package describes. A guest reports it from
// ExportABIVersion; the import module name carries it too (ImportModule).
const Version = 1

// Guest export names (ABI.md §2). Every name starts with "mcpwasm_" so it never collides
// with a language runtime's own exports.
const (
	ExportMemory     = "memory"
	ExportABIVersion = "mcpwasm_abi_version" // () -> i32
	ExportAlloc      = "mcpwasm_alloc"       // (size i32) -> i32 ptr
	ExportDescribe   = "mcpwasm_describe"    // () -> i64 packed manifest
	ExportCall       = "mcpwasm_call"        // (name_ptr, name_len, args_ptr, args_len i32) -> i64 packed result
	ExportInitialize = "_initialize"         // optional WASI reactor initialiser
	ExportRead       = "mcpwasm_read"        // optional: (uri_ptr, uri_len i32) -> i64 packed ResourceResult
	ExportPrompt     = "mcpwasm_prompt"      // optional: (name_ptr, name_len, args_ptr, args_len i32) -> i64 packed PromptResult
)

// ImportModule is the module name of every host import (ABI.md §6).
const ImportModule = "mcpwasm_v1"

// Host import names within ImportModule (ABI.md §6).
const (
	ImportLog       = "log"       // (level, msg_ptr, msg_len i32) -> i32 status
	ImportProgress  = "progress"  // (progress, total f64, msg_ptr, msg_len i32) -> i32 status
	ImportCancelled = "cancelled" // () -> i32 (1 cancelled, 0 not)
	ImportRequest   = "request"   // (kind_ptr, kind_len, req_ptr, req_len i32) -> i64 (status<<32 | len)
	ImportResponse  = "response"  // (buf_ptr, buf_len i32) -> i32 bytes copied or -status
)

// Status is the i32 every host import returns (ABI.md §6.4). A refused capability is a
// status, never a trap.
type Status int32

// Status values (ABI.md §6.4).
const (
	StatusOK          Status = 0
	StatusDenied      Status = 1
	StatusNotFound    Status = 2
	StatusInvalid     Status = 3
	StatusTooLarge    Status = 4
	StatusTimeout     Status = 5
	StatusFailed      Status = 6
	StatusCancelled   Status = 7
	StatusUnavailable Status = 8
)

var statusNames = [...]string{"OK", "DENIED", "NOT_FOUND", "INVALID", "TOO_LARGE", "TIMEOUT", "FAILED", "CANCELLED", "UNAVAILABLE"}

// String returns the ABI.md name of s, or "STATUS(n)" for an unknown value.
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "STATUS(" + strconv.Itoa(int(s)) + ")"
}

// Level is a log level of the log import: the RFC 5424 severities in MCP's LoggingLevel
// order, 0 (debug) to 7 (emergency).
type Level int32

// Level values (RFC 5424 §6.2.1, as named by MCP "Logging").
const (
	LevelDebug Level = iota
	LevelInfo
	LevelNotice
	LevelWarning
	LevelError
	LevelCritical
	LevelAlert
	LevelEmergency
)

var levelNames = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// String returns the MCP LoggingLevel name of l ("debug" … "emergency"), or "" if l is out of
// range.
func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return ""
}

// Pack combines a pointer and a length into the i64 that region-returning exports return:
// high 32 bits pointer, low 32 bits length (ABI.md §3).
func Pack(ptr, length uint32) uint64 { return uint64(ptr)<<32 | uint64(length) }

// Unpack splits a packed region into pointer and length (ABI.md §3).
func Unpack(v uint64) (ptr, length uint32) { return uint32(v >> 32), uint32(v) }

// Manifest is what a guest's mcpwasm_describe returns (ABI.md §4).
type Manifest struct {
	Name              string             `json:"name"`
	Version           string             `json:"version,omitempty"`
	Description       string             `json:"description,omitempty"`
	Tools             []Tool             `json:"tools"`
	Resources         []Resource         `json:"resources,omitempty"`
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates,omitempty"`
	Prompts           []Prompt           `json:"prompts,omitempty"`
	Completions       bool               `json:"completions,omitempty"` // exports mcpwasm_complete (ABI.md §2.5)
	Requests          Requests           `json:"requests,omitzero"`
}

// Resource is a fixed resource a guest serves through mcpwasm_read (ABI.md §2.4), as MCP
// "Server Features › Resources" describes it.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Meta is the resource's MCP _meta object (ABI.md §4), e.g. MCP Apps' {"ui":{"csp":…,
	// "prefersBorder":true}}; reserved keys are dropped as for a tool's.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ResourceTemplate is a family of resources (RFC 6570 URI template) a guest serves through
// mcpwasm_read.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Meta is the template's MCP _meta object; reserved keys are dropped.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Prompt is a prompt template a guest serves through mcpwasm_prompt (MCP "Server Features ›
// Prompts").
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one named string argument of a Prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ResourceResult is what mcpwasm_read returns: an MCP ReadResourceResult. On failure the
// guest returns an ErrorBody instead (Code -32002 for an unknown resource).
type ResourceResult struct {
	Contents []ResourceContents `json:"contents"`
}

// ResourceContents is one text (Text) or binary (Blob, base64 on the wire) content item.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
	// Meta is the contents' MCP _meta object, e.g. MCP Apps' {"ui":{"csp":…}} on a ui://
	// view; reserved keys are dropped.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// PromptResult is what mcpwasm_prompt returns: an MCP GetPromptResult. On failure the guest
// returns an ErrorBody instead (Code -32602 for bad arguments).
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// PromptMessage is one message of a PromptResult; Role is "user" or "assistant".
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Tool describes one MCP tool of a guest (ABI.md §4). Schemas are raw JSON Schema objects
// (draft 2020-12); Annotations is an MCP ToolAnnotations object; Icons an MCP Icon array.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Icons        json.RawMessage `json:"icons,omitempty"` // MCP Icon array
	// Meta is the tool's MCP _meta object, passed to clients in tools/list (ABI.md §4): e.g.
	// MCP Apps' {"ui":{"resourceUri":"ui://…"}}. Keys of MCP's reserved namespace
	// (io.modelcontextprotocol/…) are the host's and are dropped.
	Meta     json.RawMessage `json:"_meta,omitempty"`
	Requests Requests        `json:"requests,omitzero"`
	// Execution is how the tool may be run (MCP ToolExecution); nil means the defaults
	// (taskSupport "forbidden").
	Execution *ToolExecution `json:"execution,omitempty"`
}

// ToolExecution is a tool's MCP "execution" object (ABI.md §4): whether a tools/call of it
// may run as a task (the tasks extension, io.modelcontextprotocol/tasks, SEP-2663).
type ToolExecution struct {
	// TaskSupport is TaskForbidden ("" means the same), TaskOptional or TaskRequired. The
	// operator's config may narrow it (never widen it).
	TaskSupport string `json:"taskSupport,omitempty"`
}

// The values of ToolExecution.TaskSupport, in the order narrowing follows (forbidden <
// optional < required).
const (
	TaskForbidden = "forbidden" // never a task: tools/call answers with the result
	TaskOptional  = "optional"  // a task when the client negotiated the tasks extension
	TaskRequired  = "required"  // only as a task: a client without the extension gets -32021
)

// Requests lists the capabilities a guest or tool asks for. Requests are advisory: the
// operator's grants decide what a guest gets.
type Requests struct {
	Net    []string    `json:"net,omitempty"`  // host[:port] patterns, "*." wildcards
	Exec   []string    `json:"exec,omitempty"` // absolute program paths
	FS     []FSRequest `json:"fs,omitempty"`   // guest paths
	Env    []string    `json:"env,omitempty"`  // variable names
	Clock  bool        `json:"clock,omitempty"`
	Random bool        `json:"random,omitempty"`
	MCP    []string    `json:"mcp,omitempty"` // upstream server names
	// Sampling, Elicitation and Roots ask to send the client of the current call an MCP
	// sampling/createMessage, elicitation/create or roots/list request (ABI.md §6.7).
	Sampling    bool `json:"sampling,omitempty"`
	Elicitation bool `json:"elicitation,omitempty"`
	Roots       bool `json:"roots,omitempty"`
}

// With is a tool's requests when r is its guest's and tool its own: both, as the host grants
// against them (a tool asks for what its guest asks for, and more).
func (r Requests) With(tool Requests) Requests {
	return Requests{
		Net:    append(append([]string(nil), r.Net...), tool.Net...),
		Exec:   append(append([]string(nil), r.Exec...), tool.Exec...),
		FS:     append(append([]FSRequest(nil), r.FS...), tool.FS...),
		Env:    append(append([]string(nil), r.Env...), tool.Env...),
		Clock:  r.Clock || tool.Clock,
		Random: r.Random || tool.Random,
		MCP:    append(append([]string(nil), r.MCP...), tool.MCP...),

		Sampling:    r.Sampling || tool.Sampling,
		Elicitation: r.Elicitation || tool.Elicitation,
		Roots:       r.Roots || tool.Roots,
	}
}

// FSRequest asks for a directory at Path in the guest's file system, writable if RW.
type FSRequest struct {
	Path string `json:"path"`
	RW   bool   `json:"rw,omitempty"`
}

// Result is an MCP CallToolResult as a guest returns it from mcpwasm_call (ABI.md §5).
type Result struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Content is one MCP content block. Only the fields of its Type are set.
type Content struct {
	Type     string `json:"type"` // "text", "image", "audio", "resource_link", "resource"
	Text     string `json:"text,omitempty"`
	Data     []byte `json:"data,omitempty"` // base64 on the wire (image, audio)
	MIMEType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"`
	Name     string `json:"name,omitempty"`
	// Resource is the resource of an embedded-resource block (Type "resource").
	Resource *ResourceContents `json:"resource,omitempty"`
}

// MarshalJSON encodes only the fields of c.Type; a text block always carries "text", even
// when empty (MCP TextContent requires it).
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Type == "text" {
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{c.Type, c.Text})
	}
	type plain Content // no methods: avoids recursion
	return json.Marshal(plain(c))
}

// TextResult returns a Result holding one text block.
func TextResult(text string) *Result {
	return &Result{Content: []Content{{Type: "text", Text: text}}}
}

// ErrorResult returns a tool error (IsError) holding one text block.
func ErrorResult(text string) *Result {
	return &Result{Content: []Content{{Type: "text", Text: text}}, IsError: true}
}

// ErrorBody is the JSON body of a non-OK response to the request import (ABI.md §6.1), and
// what mcpwasm_read and mcpwasm_prompt return on failure with a JSON-RPC error Code
// (ABI.md §2.4).
type ErrorBody struct {
	Error string `json:"error"`
	Code  int    `json:"code,omitempty"`
}

// JSON-RPC error codes a guest may give in ErrorBody.Code (JSON-RPC 2.0 §5.1; MCP
// "Resources › Error Handling").
const (
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeResourceNotFound = -32002
)

// Request kinds of the request import (ABI.md §6.1).
const (
	KindHTTP = "http" // body HTTPRequest → HTTPResponse; needs a net grant
	KindExec = "exec" // body ExecRequest → ExecResponse; needs an exec grant
)

// HTTPRequest is the body of a KindHTTP request. Only http and https URLs are allowed; the
// host must be granted (ABI.md §6.2).
type HTTPRequest struct {
	Method  string              `json:"method,omitempty"` // default GET
	URL     string              `json:"url"`
	Headers map[string][]string `json:"headers,omitempty"`
	Body    string              `json:"body,omitempty"`
	// BodyBase64 carries a body that is not valid UTF-8, base64-encoded (RFC 4648 §4);
	// it is used instead of Body when set.
	BodyBase64 string `json:"body_base64,omitempty"`
}

// HTTPResponse is the body of an OK answer to a KindHTTP request. Body holds the response
// body if it is valid UTF-8, else BodyBase64 holds it base64-encoded (RFC 4648 §4).
type HTTPResponse struct {
	Status     int                 `json:"status"`
	Headers    map[string][]string `json:"headers,omitempty"`
	Body       string              `json:"body,omitempty"`
	BodyBase64 string              `json:"body_base64,omitempty"`
	URL        string              `json:"url"` // the final URL after redirects
}

// ExecRequest is the body of a KindExec request: run a granted program with the grant's
// fixed arguments followed by Args, and Stdin on its standard input. Program names the grant:
// its name, or its absolute path when one grant has that path. There is no PATH lookup and no
// shell (ABI.md §6.3).
type ExecRequest struct {
	Program string   `json:"program"`
	Args    []string `json:"args,omitempty"`
	Stdin   string   `json:"stdin,omitempty"`
}

// ExecResponse is the body of an OK answer to a KindExec request. A non-zero exit code is
// still OK: the program ran. Output beyond the grant's cap is dropped and flagged.
type ExecResponse struct {
	ExitCode  int    `json:"exit_code"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Request kinds for calling upstream MCP servers through the host's MCP client (ABI.md §6.5).
// Both need an mcp grant naming the server.
const (
	KindMCPList = "mcp.list" // body MCPListRequest → MCPListResponse
	KindMCPCall = "mcp.call" // body MCPCallRequest → an MCP CallToolResult (Result)
)

// MCPListRequest is the body of a KindMCPList request: list the tools of upstream Server (a
// name from the operator's config, e.g. "docs").
type MCPListRequest struct {
	Server string `json:"server"`
}

// MCPListResponse is the body of an OK answer to a KindMCPList request: every tool of the
// server (all pages), as MCP Tool objects (MCP spec 2025-11-25, "Tools › Listing Tools").
type MCPListResponse struct {
	Tools []json.RawMessage `json:"tools"`
}

// MCPCallRequest is the body of a KindMCPCall request: call Tool on upstream Server with
// Arguments (a JSON object; absent means {}). The OK answer is the server's CallToolResult
// JSON; a tool error (isError) is still OK — the call went through.
type MCPCallRequest struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Request kinds that ask the MCP client of the current tool call (ABI.md §6.7; MCP spec
// 2025-11-25 "Client Features"). Each needs the grant of the same name. The request body is
// the MCP request's params JSON and the OK answer is the client's result JSON:
//
//   - KindSampling: sampling/createMessage params → CreateMessageResult
//     ({"role":"assistant","content":{"type":"text","text":…},"model":…,"stopReason":…});
//   - KindElicitation: elicitation/create params → ElicitResult
//     ({"action":"accept","content":{…}}; "decline" and "cancel" are OK answers too);
//   - KindRoots: {} → ListRootsResult ({"roots":[{"uri":"file:///…","name":…}]}).
const (
	KindSampling    = "sampling"
	KindElicitation = "elicitation"
	KindRoots       = "roots"
)

// NamePattern is the rule for guest, tool and prompt names (ABI.md §4): 1–64 characters of
// ASCII letters, digits, "_" and "-". MCP 2025-11-25 "Tools" allows tool names of up to 128
// characters including "."; this stricter subset is one every client accepts.
const NamePattern = `^[a-zA-Z0-9_-]{1,64}$`

// ValidName reports whether s matches NamePattern.
func ValidName(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// nameByte reports whether c may appear in a name (NamePattern).
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
