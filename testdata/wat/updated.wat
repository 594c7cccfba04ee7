;; Guest for the resource.updated budget test (runtime/hardening_test.go): tool "flood" makes
;; 20,000 resource.updated requests for its own resource test://a and answers "status N", N the
;; status of the last one (0 OK, 4 TOO_LARGE). Per-call budget: 1,000 reports (ABI.md §6.6).
;; Rebuild: wat2wasm testdata/wat/updated.wat -o testdata/wat/updated.wasm
(module
  (import "mcpwasm_v1" "request" (func $request (param i32 i32 i32 i32) (result i64)))
  (memory (export "memory") 2)
  (data (i32.const 512) "{\"content\":[{\"type\":\"text\",\"text\":\"status  \"}]}")
  (data (i32.const 300) "resource.updated")
  (data (i32.const 400) "{\"uri\":\"test://a\"}")
  (data (i32.const 2048) "{\"contents\":[{\"uri\":\"test://a\",\"text\":\"x\"}]}")
  (data (i32.const 1024) "{\"name\":\"updated\",\"version\":\"1\",\"tools\":[{\"name\":\"flood\",\"inputSchema\":{\"type\":\"object\"}}],\"resources\":[{\"uri\":\"test://a\",\"name\":\"a\"}]}")
  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))
  (func (export "mcpwasm_alloc") (param i32) (result i32) (i32.const 65536))
  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 135)))
  (func (export "mcpwasm_read") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 44)))
  (func (export "mcpwasm_call") (param i32 i32 i32 i32) (result i64)
    (local $i i32) (local $st i32)
    (loop $l
      (local.set $st (i32.wrap_i64 (i64.shr_u
        (call $request (i32.const 300) (i32.const 16) (i32.const 400) (i32.const 18)) (i64.const 32))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 20000))))
    (i32.store8 (i32.const 554) (i32.add (i32.const 48) (local.get $st)))
    (i64.or (i64.shl (i64.const 512) (i64.const 32)) (i64.const 47))))
