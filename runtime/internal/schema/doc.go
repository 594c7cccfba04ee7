// Package schema owns how the host reads a tool's JSON Schemas: the flat acceptor that
// vouches for the common case without allocating (Flat, flat.go) and the resolution of a
// schema for the host's own validation, with the ECMA-262 patterns Go's regexp cannot run
// left to the guest and named (ResolveHost, Unenforced, pattern.go), and the validation of a
// call's arguments with numbers decoded exactly (Validate, validate.go). It may import
// jsonschema-go and the standard library, nothing of ours; runtime's tool lists call it.
package schema
