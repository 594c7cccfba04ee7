package policy

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestGrantsClone(t *testing.T) {
	g := Grants{Net: []string{"a"}, Exec: []Exec{{Path: "/bin/x", Args: []string{"1"}, Env: []string{"E"}}},
		FS: []FS{{Guest: "/d", Host: "/h"}}, Env: []string{"E"}, MCP: []string{"m"}}
	c := g.Clone()
	c.Net[0], c.Exec[0].Args[0], c.Exec[0].Env[0], c.FS[0].Host, c.Env[0], c.MCP[0] = "x", "x", "x", "x", "x", "x"
	if g.Net[0] != "a" || g.Exec[0].Args[0] != "1" || g.Exec[0].Env[0] != "E" || g.FS[0].Host != "/h" || g.Env[0] != "E" || g.MCP[0] != "m" {
		t.Errorf("Clone shares memory with the original: %+v", g)
	}
}

// The configuration file decodes straight into Grants: the keys and units are the file's.
func TestGrantsJSON(t *testing.T) {
	const file = `{"net":["api.example.com"],"exec":[{"name":"ls","path":"/bin/ls","args":["-l"],"options":true,"env":["HOME"],"dir":"/tmp","timeout_ms":1500,"output_bytes":4096}],` +
		`"fs":[{"guest":"/data","host":"/srv/data","rw":true}],"env":["A=1"],"clock":true,"random":true,"mcp":["up"],"sampling":true,"elicitation":true,"roots":true}`
	var g Grants
	if err := json.Unmarshal([]byte(file), &g); err != nil {
		t.Fatal(err)
	}
	want := Grants{Net: []string{"api.example.com"},
		Exec: []Exec{{Name: "ls", Path: "/bin/ls", Args: []string{"-l"}, Options: true, Env: []string{"HOME"}, Dir: "/tmp", Timeout: 1500 * time.Millisecond, OutputBytes: 4096}},
		FS:   []FS{{Guest: "/data", Host: "/srv/data", RW: true}}, Env: []string{"A=1"}, Clock: true, Random: true, MCP: []string{"up"},
		Sampling: true, Elicitation: true, Roots: true}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("decoded %+v\nwant    %+v", g, want)
	}
	out, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != file {
		t.Errorf("encoded %s\nwant    %s", out, file)
	}
}

func TestWithin(t *testing.T) {
	guest := Grants{Net: []string{"*.example.com"}, Exec: []Exec{{Name: "ls", Path: "/bin/ls"}}, FS: []FS{{Guest: "/d", Host: "/h"}}, Sampling: true}
	for _, tc := range []struct {
		tool Grants
		want string
	}{
		{Grants{Net: []string{"api.example.com"}, Sampling: true}, ""},
		{Grants{Net: []string{"evil.org"}}, `net "evil.org" is not granted to the guest`},
		{Grants{Exec: []Exec{{Name: "ls", Path: "/bin/cat"}}}, `exec "ls" is not granted to the guest`},
		{Grants{FS: []FS{{Guest: "/d", Host: "/h", RW: true}}}, `fs "/d" is read-only for the guest; a tool cannot make it rw`},
		{Grants{Roots: true}, "roots is not granted to the guest"},
		{Grants{Clock: true}, "clock is not granted to the guest"},
	} {
		err := tc.tool.Within(guest)
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.want {
				t.Errorf("%+v: got %q; want %q", tc.tool, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%+v: got nil; want %q", tc.tool, tc.want)
		}
	}
}

func TestLimitsValidate(t *testing.T) {
	if err := DefaultLimits().Validate(); err != nil {
		t.Fatalf("DefaultLimits: %v", err)
	}
	l := Limits{Timeout: time.Second}.Merge(DefaultLimits())
	if l.Timeout != time.Second || l.MemoryBytes != 256<<20 {
		t.Errorf("Merge = %+v", l)
	}
	l.MemoryBytes = 1000
	if err := l.Validate(); err == nil || err.Error() != "memory limit 1000 bytes is below one 64 KiB page" {
		t.Errorf("Validate = %v", err)
	}
}
