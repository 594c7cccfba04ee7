;; bulk.wat: the fixture of runtime's tests of bulk operations and interruption
;; (TestBulkLoopStops). Every call first logs "entered" (info), so tests can wait for it.
;; Tools: fill (loops forever over memory.fill of 64 MiB), copy (loops forever over
;; memory.copy of 32 MiB), ok. Each loop iteration is one instruction the interruption checks
;; cannot look inside; the host charges it by its size (runtime/interrupt.go). Rebuild:
;;
;;   wat2wasm testdata/wat/bulk.wat -o testdata/wat/bulk.wasm
(module
  (import "mcpwasm_v1" "log" (func $log (param i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 1024) "{\"name\":\"bulk\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"fill\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"copy\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 3200) "{\"content\":[]}")
  (data (i32.const 3300) "entered")

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  (func (export "mcpwasm_alloc") (param $n i32) (result i32) (i32.const 4096))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 185)))

  ;; Dispatches on the first byte of the tool name: f(ill), c(opy), o(k).
  (func (export "mcpwasm_call") (param $np i32) (param $nl i32) (param $ap i32) (param $al i32) (result i64)
    (local $c i32)
    (drop (call $log (i32.const 6) (i32.const 3300) (i32.const 7))) ;; tests wait for this
    (local.set $c (i32.load8_u (local.get $np)))
    (if (i32.ne (local.get $c) (i32.const 111))
      (then (drop (memory.grow (i32.const 1040))))) ;; 65 MiB in all
    (if (i32.eq (local.get $c) (i32.const 102))
      (then (loop $l (memory.fill (i32.const 65536) (i32.const 7) (i32.const 0x4000000)) (br $l))))
    (if (i32.eq (local.get $c) (i32.const 99))
      (then (loop $l (memory.copy (i32.const 65536) (i32.const 0x2010000) (i32.const 0x2000000)) (br $l))))
    (i64.or (i64.shl (i64.const 3200) (i64.const 32)) (i64.const 14))))
