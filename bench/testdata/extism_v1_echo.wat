;; extism_v1_echo.wat — the echo of extism_echo.wat as a hyper-mcp v1 plugin: it exports
;; describe (one tool, "echo") and call, which returns its input unchanged, copying it the way
;; the PDKs do (8 bytes per host call). mcpwasm serves it as a guest of kind extism; extism/go-sdk
;; calls the same export with the same input, so the two hosts run the same guest code.
;; Rebuild: wat2wasm bench/testdata/extism_v1_echo.wat -o bench/testdata/extism_v1_echo.wasm
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"tools\":[{\"name\":\"echo\",\"description\":\"Returns its input\",\"inputSchema\":{\"type\":\"object\"}}]}")

  (func (export "describe") (result i32)
    (local $out i64) (local $i i64) (local $n i64)
    (local.set $n (i64.const 93))
    (local.set $out (call $alloc (local.get $n)))
    (block $done (loop $l
      (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $out) (local.get $i))
                      (i32.load8_u (i32.add (i32.const 16) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br $l)))
    (call $output_set (local.get $out) (local.get $n))
    (i32.const 0))

  (func (export "call") (result i32) (call $echo))

  (func $echo (result i32)
    (local $n i64) (local $i i64) (local $out i64) (local $need i32)
    (local.set $n (call $input_length))
    ;; the input buffer lives at 1024; grow memory to fit it
    (local.set $need (i32.add (i32.const 1024) (i32.wrap_i64 (local.get $n))))
    (if (i32.gt_u (local.get $need) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow (i32.div_u (i32.sub (i32.add (local.get $need) (i32.const 65535))
                                                   (i32.mul (memory.size) (i32.const 65536)))
                                          (i32.const 65536))))))
    ;; input → guest memory
    (block $done8 (loop $l8
      (br_if $done8 (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $n)))
      (i64.store (i32.add (i32.const 1024) (i32.wrap_i64 (local.get $i))) (call $input_load_u64 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 8)))
      (br $l8)))
    (block $done1 (loop $l1
      (br_if $done1 (i64.ge_u (local.get $i) (local.get $n)))
      (i32.store8 (i32.add (i32.const 1024) (i32.wrap_i64 (local.get $i))) (call $input_load_u8 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br $l1)))
    ;; guest memory → output block
    (local.set $out (call $alloc (local.get $n)))
    (local.set $i (i64.const 0))
    (block $odone8 (loop $o8
      (br_if $odone8 (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $n)))
      (call $store_u64 (i64.add (local.get $out) (local.get $i))
                       (i64.load (i32.add (i32.const 1024) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 8)))
      (br $o8)))
    (block $odone1 (loop $o1
      (br_if $odone1 (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $out) (local.get $i))
                      (i32.load8_u (i32.add (i32.const 1024) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br $o1)))
    (call $output_set (local.get $out) (local.get $n))
    (i32.const 0))
)
