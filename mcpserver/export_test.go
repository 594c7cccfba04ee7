package mcpserver

// Unexported helpers the black-box tests check directly.
var (
	ExposedName     = exposedName
	CheckHiddenText = checkHiddenText
)
