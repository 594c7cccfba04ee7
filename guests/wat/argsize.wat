;; argsize.wat — a hand-written mcpwasm guest (ABI v1) with a tool error path, beside the
;; reference guest testdata/wat/echo.wat. One tool, "argsize": it reports the size in bytes
;; of its arguments JSON as text, logs through the mcpwasm_v1.log import, and answers `{}`
;; (no arguments) with a tool error.
;; Build: wat2wasm guests/wat/argsize.wat -o argsize.wasm   (guests/build-native.sh OUT wat)
(module
  (import "mcpwasm_v1" "log" (func $log (param i32 i32 i32) (result i32)))
  (memory (export "memory") 1)

  ;; The manifest, 181 bytes at offset 16.
  (data (i32.const 16) "{\"name\":\"argsize\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"argsize\",\"description\":\"Reports the size in bytes of its arguments JSON; {} is a tool error\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (global $manifest_len i32 (i32.const 181))
  ;; Result pieces.
  (data (i32.const 512) "{\"content\":[{\"type\":\"text\",\"text\":\"")                   ;; 35 bytes
  (data (i32.const 560) " bytes\"}]}")                                                 ;; 10 bytes
  (data (i32.const 600) "{\"content\":[{\"type\":\"text\",\"text\":\"no arguments given\"}],\"isError\":true}") ;; 72 bytes
  (data (i32.const 700) "argsize called")                                             ;; 14 bytes

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  ;; One input region at 1024; the output (at most 45 + 10 digits) follows it.
  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (local $need i32) (local $have i32)
    (local.set $need (i32.add (i32.const 1100) (local.get $n)))
    (local.set $have (i32.mul (memory.size) (i32.const 65536)))
    (if (i32.gt_u (local.get $need) (local.get $have))
      (then
        (if (i32.eq (memory.grow (i32.div_u (i32.add (i32.sub (local.get $need) (local.get $have)) (i32.const 65535))
                                            (i32.const 65536)))
                    (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 1024))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.extend_i32_u (global.get $manifest_len))))

  (func (export "mcpwasm_call") (param $name i32) (param $nlen i32) (param $args i32) (param $alen i32) (result i64)
    (local $out i32) (local $p i32) (local $n i32) (local $q i32) (local $len i32)
    (drop (call $log (i32.const 0) (i32.const 700) (i32.const 14)))
    ;; `{}` (two bytes): a tool error from a constant.
    (if (i32.eq (local.get $alen) (i32.const 2))
      (then (return (i64.or (i64.shl (i64.const 600) (i64.const 32)) (i64.const 72)))))
    (local.set $out (i32.add (local.get $args) (local.get $alen)))
    (memory.copy (local.get $out) (i32.const 512) (i32.const 35))
    ;; the decimal digits of alen, written backwards into scratch [900, 910), then copied
    (local.set $n (local.get $alen))
    (local.set $q (i32.const 910))
    (loop $digit
      (local.set $q (i32.sub (local.get $q) (i32.const 1)))
      (i32.store8 (local.get $q) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
      (local.set $n (i32.div_u (local.get $n) (i32.const 10)))
      (br_if $digit (i32.ne (local.get $n) (i32.const 0))))
    (local.set $len (i32.sub (i32.const 910) (local.get $q)))
    (local.set $p (i32.add (local.get $out) (i32.const 35)))
    (memory.copy (local.get $p) (local.get $q) (local.get $len))
    (local.set $p (i32.add (local.get $p) (local.get $len)))
    (memory.copy (local.get $p) (i32.const 560) (i32.const 10))
    (local.set $p (i32.add (local.get $p) (i32.const 10)))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $out)) (i64.const 32))
            (i64.extend_i32_u (i32.sub (local.get $p) (local.get $out)))))
)
