package upstream

import (
	"slices"
	"strings"
)

// BaseEnv names the variables a spawned server inherits from us whatever the configuration
// says: enough to find programs, a home (with its XDG cache and config directories: a spawned
// mcpwasm then shares our compile cache, module store and tokens) and a temporary directory,
// and the locale. Anything else (API keys, tokens, cloud credentials in our environment)
// reaches it only if named.
var BaseEnv = []string{"HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "LANG", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"}

// ChildEnv is the environment of a spawned server: the BaseEnv variables of environ, then
// extra in order — "NAME=VALUE" sets NAME, a bare "NAME" copies NAME from environ if set. A
// later entry for a name replaces an earlier one.
func ChildEnv(environ, extra []string) []string {
	lookup := func(name string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
	env := []string{} // never nil: a nil Cmd.Env would inherit everything
	set := func(name, value string) {
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, name+"="+value)
	}
	for _, name := range BaseEnv {
		if v, ok := lookup(name); ok {
			set(name, v)
		}
	}
	for _, e := range extra {
		if name, value, ok := strings.Cut(e, "="); ok {
			set(name, value)
		} else if v, ok := lookup(e); ok {
			set(e, v)
		}
	}
	return env
}
