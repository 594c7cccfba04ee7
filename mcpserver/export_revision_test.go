package mcpserver

// CallHooks is callHooks, for the progress test (revision_test.go).
var CallHooks = callHooks
