// Command files is the mcpwasm "files" guest: read-only tools (list, read, grep) over the
// directory the operator mounts at /data in the guest's WASI file system.
//
// It is not served by default: it requests fs [{"path": "/data"}], and sees files only when
// the operator's fs grant mounts a host directory there (read-only unless the grant says rw;
// these tools never write). Paths are absolute guest paths under /data; one that leaves it
// lexically (/etc/passwd, /data/../x) is refused by the guest, and one that leaves it through
// a symbolic link by the host, whose fs grant confines the mount. (The guest does not use
// os.Root itself: the host's mount already confines it, and under WASI os.Root's
// *at calls fail.)
//
// The tools are registered in init (register.go, wasip1 only): a c-shared module never runs
// main. main exists so the package also builds natively for its unit tests. Build it with
// guests/granted.sh.
package main

//go:generate go run github.com/mcpwasm/mcpwasm/abi/guest/schemagen

func main() {}
