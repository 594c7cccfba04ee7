package instrument

import (
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// Snapshots: a pool of a guest with isolation session or call makes a new instance
// for every session or call. Instead of running the guest's start (its start function,
// _initialize, the kind's Start) each time, it copies the state of its first instance right
// after that instance started — linear memory and every mutable global — into the new one,
// which wazero instantiates without running any start function. See RATIONALE.md "Pristine
// instances from snapshots" for what is refused and why.
//
// The instrumentation (instrument.go) exports each global the module defines as
// mcpwasm_global_<k> (k counts the module's own globals from 0), so the host can read and
// set the ones that are not exported, and exports mcpwasm_snapshot (one of its own globals;
// only the name matters) when no function of the module changes a table or drops a data or
// element segment: table contents and dropped segments are instance state no API reads.
const (
	ExportSnapshot     = "mcpwasm_snapshot"
	ExportGlobalPrefix = "mcpwasm_global_"
)

// IsSnapshotExport reports whether name is one of the snapshot exports the host reserves.
func IsSnapshotExport(name string) bool {
	return name == ExportSnapshot || strings.HasPrefix(name, ExportGlobalPrefix)
}

// changesState reports whether in changes a table (table.set, init, copy, grow, fill) or
// drops a segment (data.drop, elem.drop): state a snapshot cannot copy.
func changesState(in *wasm.Instr) bool {
	switch in.Op {
	case 0x26: // table.set
		return true
	case 0xfc:
		switch in.Sub {
		case 9, 12, 13, 14, 15, 17:
			return true
		}
	}
	return false
}

// snapshotExports appends the snapshot exports to the n exports encoded in exp, unless the
// module changes state a snapshot cannot copy.
func (rw *rewriter) snapshotExports(exp []byte, n int) ([]byte, int) {
	if rw.stateOp != "" {
		return exp, n
	}
	for k := range rw.mi.Globals {
		exp = appendExport(exp, ExportGlobalPrefix+strconv.Itoa(int(k)), wasm.KindGlobal, rw.mi.ImportGlobals+k)
	}
	// The marker is $fuel: a reset in place refills it as a fresh instance's is (reset.go).
	exp = appendExport(exp, ExportSnapshot, wasm.KindGlobal, rw.fuel)
	return exp, n + int(rw.mi.Globals) + 1
}
