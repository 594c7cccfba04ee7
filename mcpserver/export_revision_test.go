package mcpserver

// CallHooks is callHooks, for the progress test (revision_test.go).
var CallHooks = callHooks

// ReservedMetaKey is reservedMetaKey, for its table test (negotiated_test.go).
var ReservedMetaKey = reservedMetaKey
