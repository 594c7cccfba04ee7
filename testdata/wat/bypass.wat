;; bypass.wat: a guest that tries to switch off its own interruption (runtime's
;; TestLoadRefusesHostIndexes). It has no globals, yet its call loops writing global 0: an index
;; it does not define, so the module is invalid as shipped, but after the host's rewrite
;; (runtime/interrupt.go) global 0 would be the host's fuel counter, and the loop would never
;; reach a look at the interrupt flag. The host must refuse it at load. wat2wasm validates, so
;; build with --no-check:
;;
;;   wat2wasm --no-check testdata/wat/bypass.wat -o testdata/wat/bypass.wasm
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"name\":\"bypass\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"spin\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 512) "{\"content\":[]}")

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  (func (export "mcpwasm_alloc") (param $n i32) (result i32) (i32.const 1024))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 93)))

  (func (export "mcpwasm_call") (param $np i32) (param $nl i32) (param $ap i32) (param $al i32) (result i64)
    (loop $l (global.set 0 (i32.const 1000)) (br $l))
    (i64.or (i64.shl (i64.const 512) (i64.const 32)) (i64.const 14)))
)
