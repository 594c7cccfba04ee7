;; state.wat — a guest that keeps state in its linear memory between calls, for the
;; isolation tests: tool "remember" returns the arguments of the previous call the same
;; instance served (initially {}), then keeps the new ones (up to 256 bytes).
;; Rebuild: wat2wasm testdata/wat/state.wat -o testdata/wat/state.wasm
(module
  (memory (export "memory") 1)
  ;; The manifest (ABI.md §4), 194 bytes at offset 16.
  (data (i32.const 16) "{\"name\":\"state\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"remember\",\"description\":\"Returns the arguments of the previous call this instance served, then keeps these\",\"inputSchema\":{\"type\":\"object\"}}]}")
  ;; The result prefix, 34 bytes at offset 512.
  (data (i32.const 512) "{\"content\":[],\"structuredContent\":")
  ;; The kept arguments: at 768, $kept bytes long.
  (data (i32.const 768) "{}")
  (global $kept (mut i32) (i32.const 2))

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  ;; One input region at 1024; the output region follows it. Grow memory to fit both.
  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 2048) (i32.mul (local.get $n) (i32.const 2))))
    (if (i32.gt_u (local.get $need) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq (memory.grow (i32.div_u (i32.sub (i32.add (local.get $need) (i32.const 65535))
                                                     (i32.mul (memory.size) (i32.const 65536)))
                                            (i32.const 65536)))
                    (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 1024))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 194)))

  ;; Output: prefix + kept + "}" after the input; then keep the new arguments.
  (func (export "mcpwasm_call") (param $name i32) (param $nlen i32) (param $args i32) (param $alen i32) (result i64)
    (local $out i32) (local $n i32)
    (local.set $out (i32.add (local.get $args) (local.get $alen)))
    (memory.copy (local.get $out) (i32.const 512) (i32.const 34))
    (memory.copy (i32.add (local.get $out) (i32.const 34)) (i32.const 768) (global.get $kept))
    (i32.store8 (i32.add (local.get $out) (i32.add (i32.const 34) (global.get $kept))) (i32.const 125))
    (local.set $n (i32.add (global.get $kept) (i32.const 35)))
    (if (i32.le_u (local.get $alen) (i32.const 256))
      (then
        (memory.copy (i32.const 768) (local.get $args) (local.get $alen))
        (global.set $kept (local.get $alen))))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $out)) (i64.const 32))
            (i64.extend_i32_u (local.get $n))))
)
