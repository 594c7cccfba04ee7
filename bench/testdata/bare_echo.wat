;; bare_echo.wat — the physical floor: a pointer+length echo with no ABI around it.
;; alloc(n) returns an input region at 1024 (growing memory so the output fits after it);
;; echo(ptr, len) memcpy's the input to ptr+len and returns (out << 32) | len.
;; Rebuild: wat2wasm bench/testdata/bare_echo.wat -o bench/testdata/bare_echo.wasm
(module
  (memory (export "memory") 1)
  (func (export "alloc") (param $n i32) (result i32)
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
  (func (export "echo") (param $p i32) (param $n i32) (result i64)
    (memory.copy (i32.add (local.get $p) (local.get $n)) (local.get $p) (local.get $n))
    (i64.or (i64.shl (i64.extend_i32_u (i32.add (local.get $p) (local.get $n))) (i64.const 32))
            (i64.extend_i32_u (local.get $n))))
)
