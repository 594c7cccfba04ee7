package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // "system", "user" or "assistant"
	Content string `json:"content"`
}

// Sampler produces one model reply to a conversation. temperature nil means the model's
// default.
//
// It is the seam between the tools and where the model runs: mcpSampler (MCP sampling through
// the client of the current call, mcpsampler.go) and endpoint (an OpenAI-compatible
// chat-completions API over the host's http request kind); newSampler picks. consensus and
// react_loop only see this interface.
type Sampler interface {
	Sample(ctx context.Context, messages []Message, temperature *float64) (string, error)
}

// logMsg sends a line to the host's log; tests silence it.
var logMsg = guest.Log

// newSampler returns the Sampler for one call: MCP sampling first, the endpoint when the
// client or the operator refuses it (preferMCP, mcpsampler.go). Tests replace it.
var newSampler = func() (Sampler, error) {
	return &preferMCP{mcp: mcpSampler{}, endpoint: newEndpoint}, nil
}

// newEndpoint returns the endpoint Sampler configured by the environment.
func newEndpoint() (Sampler, error) {
	c, err := LoadConfig()
	if err != nil {
		return nil, err
	}
	return &endpoint{cfg: c, do: guest.HTTP, clock: hostClock{}}, nil
}

// Limits of the endpoint client.
const (
	// MaxAttempts bounds the requests for one sample (the first and its retries).
	MaxAttempts = 3
	// MaxWait is the retry budget of one tool call: the most it waits before retries, in
	// total over all its model requests. A wait that does not fit is not taken.
	MaxWait = 10 * time.Second
	// MaxAnswerBytes caps one model answer.
	MaxAnswerBytes = 16 << 10
	// firstBackoff is the wait before the first retry when the server gives no
	// Retry-After; it doubles for each further retry.
	firstBackoff = 500 * time.Millisecond
)

// clock waits between retries.
type clock interface {
	// Real reports whether time is real (the clock grant); without it a sleep cannot wait.
	Real() bool
	// Sleep waits d; false means the call was cancelled while waiting.
	Sleep(d time.Duration) bool
}

// hostClock is the guest's WASI clock.
type hostClock struct{}

// realClockFloor: the deterministic clock a guest has without the clock grant (ABI.md §7;
// wazero's) starts at 2022-01-01 and advances 1 ms per reading, so a wall clock before 2024
// means there is no real time to wait with.
var realClockFloor = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func (hostClock) Real() bool { return time.Now().After(realClockFloor) }

func (hostClock) Sleep(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if guest.Cancelled() {
			return false
		}
		left := time.Until(deadline)
		if left <= 0 {
			return true
		}
		time.Sleep(min(left, 100*time.Millisecond))
	}
}

// endpoint is a Sampler on an OpenAI-compatible chat-completions API. One serves one tool
// call (newSampler runs per call), so waited is that call's share of MaxWait.
type endpoint struct {
	cfg    Config
	do     func(abi.HTTPRequest) (*abi.HTTPResponse, error) // guest.HTTP
	clock  clock
	waited time.Duration
}

type chatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
}

func (e *endpoint) url() string { return e.cfg.BaseURL + "/chat/completions" }

// Sample posts one chat completion and returns the first choice's content, retrying 429
// and 5xx answers as the package comment describes.
func (e *endpoint) Sample(ctx context.Context, messages []Message, temperature *float64) (string, error) {
	body, err := json.Marshal(chatRequest{Model: e.cfg.Model, Messages: messages, Temperature: temperature})
	if err != nil {
		return "", err
	}
	req := abi.HTTPRequest{Method: "POST", URL: e.url(), Body: string(body), Headers: map[string][]string{
		"Content-Type": {"application/json"}, "Accept": {"application/json"}}}
	if e.cfg.APIKey != "" {
		req.Headers["Authorization"] = []string{"Bearer " + e.cfg.APIKey}
	}
	for attempt := 1; ; attempt++ {
		resp, err := e.do(req)
		if err != nil {
			return "", e.requestError(err)
		}
		if resp.Status >= 200 && resp.Status <= 299 {
			return parseCompletion(resp)
		}
		if !retryable(resp.Status) {
			return "", e.statusError(resp, "")
		}
		if attempt == MaxAttempts {
			return "", e.statusError(resp, fmt.Sprintf("gave up after %d attempts", attempt))
		}
		wait, given := retryAfter(resp)
		if !given {
			wait = firstBackoff << (attempt - 1)
		}
		switch {
		case wait > MaxWait-e.waited:
			what := "the server asks to retry after"
			if !given {
				what = "the next retry would wait"
			}
			return "", e.statusError(resp, fmt.Sprintf("%s %s, longer than the %s left of the call's %s retry budget", what, wait, MaxWait-e.waited, MaxWait))
		case wait > 0 && !e.clock.Real():
			return "", e.statusError(resp, fmt.Sprintf("not retried: the guest would wait %s first and has no real clock (grant \"clock\" to let it wait and retry)", wait))
		}
		e.waited += wait
		logMsg(abi.LevelInfo, fmt.Sprintf("model endpoint answered HTTP %d; retrying in %s (attempt %d of %d)", resp.Status, wait, attempt+1, MaxAttempts))
		if !e.clock.Sleep(wait) {
			return "", errors.New("cancelled while waiting to retry")
		}
	}
}

// retryable reports whether a status is worth another attempt: rate limiting and server
// errors, except 501 (the server will never support the request).
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500 && status <= 599 && status != http.StatusNotImplemented
}

// retryAfter reads a Retry-After header in delta-seconds. An HTTP-date is ignored (without a
// real clock it cannot be compared), as is anything unparsable.
func retryAfter(resp *abi.HTTPResponse) (time.Duration, bool) {
	v := strings.TrimSpace(header(resp, "Retry-After"))
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

func header(resp *abi.HTTPResponse, name string) string {
	for k, v := range resp.Headers {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// statusError describes a non-2xx answer: status, the server's own message, a hint for
// authentication failures, and note (what the retry logic decided) if any.
func (e *endpoint) statusError(resp *abi.HTTPResponse, note string) error {
	msg := fmt.Sprintf("model endpoint %s: HTTP %d %s", e.url(), resp.Status, http.StatusText(resp.Status))
	if s := serverMessage(resp); s != "" {
		msg += ": " + s
	}
	var hints []string
	switch resp.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		hints = append(hints, fmt.Sprintf("check the API key in %s", EnvAPIKey))
	case http.StatusNotFound:
		hints = append(hints, fmt.Sprintf("check %s (the guest posts to {base}/chat/completions) and %s", EnvBaseURL, EnvModel))
	case http.StatusTooManyRequests:
		hints = append(hints, "rate limited")
	}
	if note != "" {
		hints = append(hints, note)
	}
	if len(hints) > 0 {
		msg += " (" + strings.Join(hints, "; ") + ")"
	}
	return errors.New(msg)
}

// serverMessage extracts the error message of an OpenAI-style error body
// ({"error":{"message":…}} or {"error":"…"}), else the start of the body.
func serverMessage(resp *abi.HTTPResponse) string {
	var withObj struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	var withStr struct {
		Error string `json:"error"`
	}
	switch {
	case json.Unmarshal([]byte(resp.Body), &withObj) == nil && withObj.Error.Message != "":
		return clip(withObj.Error.Message, 300)
	case json.Unmarshal([]byte(resp.Body), &withStr) == nil && withStr.Error != "":
		return clip(withStr.Error, 300)
	}
	return clip(strings.Join(strings.Fields(resp.Body), " "), 300)
}

// requestError explains a request the host refused or could not complete. A refused host
// names the net grant entry that would allow it.
func (e *endpoint) requestError(err error) error {
	var re *guest.RequestError
	if !errors.As(err, &re) {
		return fmt.Errorf("model endpoint %s: %v", e.url(), err)
	}
	msg := fmt.Sprintf("model endpoint %s: %s", e.url(), re.Message)
	if re.Status == abi.StatusDenied && strings.Contains(re.Message, "granted") {
		if u, perr := url.Parse(e.url()); perr == nil {
			msg += fmt.Sprintf(" (add %q to the guest's \"net\" grant)", strings.ToLower(u.Host))
		}
	}
	return errors.New(msg)
}

// parseCompletion returns the first choice's message content of a chat-completions body.
func parseCompletion(resp *abi.HTTPResponse) (string, error) {
	if resp.BodyBase64 != "" {
		return "", errors.New("malformed response from the model endpoint: the body is not UTF-8 text")
	}
	var cr struct {
		Choices []struct {
			Message *struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(resp.Body), &cr); err != nil {
		return "", fmt.Errorf("malformed response from the model endpoint: not chat-completions JSON (%v): %q", err, clip(resp.Body, 200))
	}
	if len(cr.Choices) == 0 {
		return "", fmt.Errorf("malformed response from the model endpoint: no choices: %q", clip(resp.Body, 200))
	}
	m := cr.Choices[0].Message
	if m == nil || m.Content == nil {
		return "", fmt.Errorf("malformed response from the model endpoint: the first choice has no message content: %q", clip(resp.Body, 200))
	}
	if len(*m.Content) > MaxAnswerBytes {
		return "", fmt.Errorf("the model's answer is %d bytes, over the limit of %d", len(*m.Content), MaxAnswerBytes)
	}
	return *m.Content, nil
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
