;; Guests for the host-cost hardening tests (runtime/hardening_test.go). Each tool answers
;; "status N", N the status of its last host call (0 OK, 4 TOO_LARGE), except deep and ok.
;;   kind      one request whose kind is 1 MiB of 0x01 bytes (cap: 64 bytes)
;;   body      one request of kind "http" whose body claims 17 MiB (cap: 16 MiB; never read)
;;   flood     20,000 log calls of 64 KiB (per-call budget: 1,000 reports, 1 MiB)
;;   progress  20,000 progress calls with empty messages
;;   deep      recursion 100,000 frames deep, then returns normally
;;   ok        returns "status 0"
;; Rebuild: wat2wasm testdata/wat/hardening.wat -o testdata/wat/hardening.wasm
(module
  (import "mcpwasm_v1" "log" (func $log (param i32 i32 i32) (result i32)))
  (import "mcpwasm_v1" "progress" (func $progress (param f64 f64 i32 i32) (result i32)))
  (import "mcpwasm_v1" "request" (func $request (param i32 i32 i32 i32) (result i64)))
  (memory (export "memory") 40)
  (data (i32.const 512) "{\"content\":[{\"type\":\"text\",\"text\":\"status  \"}]}")
  (data (i32.const 300) "http")
  (data (i32.const 1024) "{\"name\":\"hardening\",\"version\":\"1\",\"tools\":[{\"name\":\"kind\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"body\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"flood\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"progress\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"deep\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))
  (func (export "mcpwasm_alloc") (param i32) (result i32) (i32.const 65536))
  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 335)))
  (func $status (param $st i32) (result i64)
    (i32.store8 (i32.const 554) (i32.add (i32.const 48) (local.get $st)))
    (i64.or (i64.shl (i64.const 512) (i64.const 32)) (i64.const 47)))
  (func $r (param $n i32) (result i64) (local $l0 i64) (local $l1 i64) (local $l2 i64) (local $l3 i64) (local $l4 i64) (local $l5 i64) (local $l6 i64) (local $l7 i64) (local $l8 i64) (local $l9 i64) (local $l10 i64) (local $l11 i64) (local $l12 i64) (local $l13 i64) (local $l14 i64) (local $l15 i64) (local $l16 i64) (local $l17 i64) (local $l18 i64) (local $l19 i64)
    (local.set $l0 (i64.extend_i32_u (local.get $n)))(local.set $l4 (i64.extend_i32_u (local.get $n)))(local.set $l8 (i64.extend_i32_u (local.get $n)))(local.set $l12 (i64.extend_i32_u (local.get $n)))(local.set $l16 (i64.extend_i32_u (local.get $n)))
    (if (result i64) (i32.eqz (local.get $n)) (then (i64.const 0))
      (else (i64.add (call $r (i32.sub (local.get $n) (i32.const 1))) (i64.add (i64.add (i64.add (i64.add (local.get $l0) (local.get $l4)) (local.get $l8)) (local.get $l12)) (local.get $l16))))))
  (func (export "mcpwasm_call") (param $np i32) (param $nl i32) (param i32 i32) (result i64)
    (local $c i32) (local $i i32) (local $st i32)
    (local.set $c (i32.load8_u (local.get $np)))
    (if (i32.eq (local.get $c) (i32.const 107)) ;; k
      (then
        (memory.fill (i32.const 1048576) (i32.const 1) (i32.const 1048576))
        (return (call $status (i32.wrap_i64 (i64.shr_u
          (call $request (i32.const 1048576) (i32.const 1048576) (i32.const 0) (i32.const 2)) (i64.const 32)))))))
    (if (i32.eq (local.get $c) (i32.const 98)) ;; b
      (then
        (return (call $status (i32.wrap_i64 (i64.shr_u
          (call $request (i32.const 300) (i32.const 4) (i32.const 0) (i32.const 17825792)) (i64.const 32)))))))
    (if (i32.eq (local.get $c) (i32.const 102)) ;; f
      (then
        (loop $l
          (local.set $st (call $log (i32.const 4) (i32.const 0) (i32.const 65536)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $l (i32.lt_u (local.get $i) (i32.const 20000))))
        (return (call $status (local.get $st)))))
    (if (i32.eq (local.get $c) (i32.const 112)) ;; p
      (then
        (loop $l
          (local.set $st (call $progress (f64.convert_i32_u (local.get $i)) (f64.const 0) (i32.const 0) (i32.const 0)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $l (i32.lt_u (local.get $i) (i32.const 20000))))
        (return (call $status (local.get $st)))))
    (if (i32.eq (local.get $c) (i32.const 100)) ;; d
      (then (drop (call $r (i32.const 100000)))))
    (call $status (i32.const 0))))
