;; argcap.wat — a hyper-mcp v1 plugin for the kind suite (runtime/kindsuite_test.go, case
;; "oversized host-call argument"): tool biglog hands notify_logging_message a kernel block
;; of 400,000 bytes, over the cap of one report (kind.MaxReportJSON, 385 KiB), which the host
;; refuses before reading a byte of it, ending the call naming the cap.
;; Rebuild (from this directory): wat2wasm argcap.wat -o argcap.wasm
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/user" "notify_logging_message" (func $notify (param i64)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"tools\":[{\"name\":\"biglog\",\"description\":\"logs 400,000 bytes\",\"inputSchema\":{\"type\":\"object\"}}]}")
  ;; out copies [p, p+n) of linear memory into a new kernel block and makes it the output.
  (func $out (param $p i32) (param $n i32)
    (local $k i64) (local $i i32)
    (local.set $k (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $store_u8 (i64.add (local.get $k) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (call $output_set (local.get $k) (i64.extend_i32_u (local.get $n))))
  (func (export "describe") (result i32)
    (call $out (i32.const 0) (i32.const 96))
    (i32.const 0))
  (func (export "call") (result i32)
    (call $notify (call $alloc (i64.const 400000)))
    (i32.const 0)))
