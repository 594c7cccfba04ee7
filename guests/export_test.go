package guests

// ReadTrees lets the external test package track its inputs the same way.
var ReadTrees = readTrees
