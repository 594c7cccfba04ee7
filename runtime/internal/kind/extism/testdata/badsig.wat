;; badsig.wat — a hyper-mcp v1 plugin importing the kernel's alloc with a 32-bit signature
;; (the Extism kernel's is (i64) -> (i64)): load must refuse it naming the import and the
;; hosted signature, before wazero's link check would.
;; Rebuild (from this directory): wat2wasm badsig.wat -o badsig.wasm
(module
  (import "extism:host/env" "alloc" (func $alloc (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "describe") (result i32) (drop (call $alloc (i32.const 8))) (i32.const 0))
  (func (export "call") (result i32) (i32.const 0)))
