package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/abi"
)

// resource.updated is allowed for the guest's own resources and template matches only.
func TestResourcesUpdated(t *testing.T) {
	r, err := NewResources("g", []string{"test://fixed"}, []string{"test://template/{id}/data", "file:///logs{/name}"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		wantURI    string
		wantStatus abi.Status
		wantResp   string
	}{
		{"fixed", `{"uri":"test://fixed"}`, "test://fixed", abi.StatusOK, `{}`},
		{"template match", `{"uri":"test://template/42/data"}`, "test://template/42/data", abi.StatusOK, `{}`},
		{"path template", `{"uri":"file:///logs/today"}`, "file:///logs/today", abi.StatusOK, `{}`},
		{"template prefix only", `{"uri":"test://template/42/other"}`, "", abi.StatusDenied,
			`{"error":"resource.updated: guest \"g\" does not serve resource \"test://template/42/other\""}`},
		{"another guest's", `{"uri":"calc://reference"}`, "", abi.StatusDenied,
			`{"error":"resource.updated: guest \"g\" does not serve resource \"calc://reference\""}`},
		{"no uri", `{}`, "", abi.StatusInvalid, `{"error":"resource.updated: \"uri\" is required"}`},
		{"bad JSON", `{"uri":`, "", abi.StatusInvalid, `{"error":"resource.updated: bad request body: unexpected end of JSON input"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uri, st, resp := r.Updated([]byte(tc.body))
			if diff := cmp.Diff([]any{tc.wantURI, tc.wantStatus, tc.wantResp}, []any{uri, st, string(resp)}); diff != "" {
				t.Errorf("Updated(%s) (-want +got):\n%s", tc.body, diff)
			}
		})
	}
	var none *Resources
	if none.Serves("test://fixed") {
		t.Error("a nil Resources serves test://fixed")
	}
	if _, err := NewResources("g", nil, []string{"test://{bad"}); err == nil {
		t.Error("NewResources accepted the template test://{bad")
	}
}
