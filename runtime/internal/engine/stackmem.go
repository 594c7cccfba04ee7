package engine

// stackBytes returns the native call stack the instance holds across its exports. The caller
// must hold inst (no call runs in it).
func (inst *instance) stackBytes() int {
	n := 0
	for _, p := range inst.stacks {
		n += len(*p)
	}
	return n
}
