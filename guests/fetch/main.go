// Command fetch is the mcpwasm "fetch" guest: one tool, fetch, that GETs a URL through the
// host's net capability and returns the body as text (HTML converted to readable text).
//
// It is not served by default: it requests net ["*:*"] (any host, any port), and the host grants only the hosts the
// operator allowlists in the guest's net grant (the effective set is grant ∩ request). Build
// it with guests/granted.sh.
//
// The tool is registered in init (register.go, wasip1 only): a c-shared module never runs
// main. main exists so the package also builds natively for its unit tests.
package main

func main() {}
