;; relay.wat: the slow tool of cmd/mcpwasm's replica tests (replicas_test.go). Tool "relay"
;; passes its arguments unchanged as an mcp.call request ({"server": "gate", "tool": …,
;; "arguments": …}) and returns the upstream's CallToolResult as its own result, so a call
;; lasts exactly as long as the test's upstream keeps it waiting. Rebuild:
;;
;;   wat2wasm cmd/mcpwasm/testdata/relay.wat -o cmd/mcpwasm/testdata/relay.wasm
(module
  (import "mcpwasm_v1" "request" (func $request (param i32 i32 i32 i32) (result i64)))
  (import "mcpwasm_v1" "response" (func $response (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global $bump (mut i32) (i32.const 4096))
  (data (i32.const 16) "mcp.call")
  (data (i32.const 1024) "{\"name\":\"relay\",\"version\":\"1.0.0\",\"requests\":{\"mcp\":[\"gate\"]},\"tools\":[{\"name\":\"relay\",\"description\":\"Sends its arguments as an mcp.call request and returns the answer as its result\",\"inputSchema\":{\"type\":\"object\"}}]}")

  (func (export "_initialize"))
  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  ;; A bump allocator that grows memory as needed (a test makes few calls).
  (func $alloc (export "mcpwasm_alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32)
    (local.set $p (global.get $bump))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (if (i32.gt_u (local.get $end) (i32.mul (memory.size) (i32.const 65536)))
      (then (drop (memory.grow
        (i32.add (i32.shr_u (i32.sub (local.get $end) (i32.mul (memory.size) (i32.const 65536))) (i32.const 16)) (i32.const 1))))))
    (global.set $bump (local.get $end))
    (local.get $p))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 217)))

  (func (export "mcpwasm_call") (param $np i32) (param $nl i32) (param $ap i32) (param $al i32) (result i64)
    (local $n i32) (local $p i32)
    (local.set $n (i32.wrap_i64 (call $request (i32.const 16) (i32.const 8) (local.get $ap) (local.get $al))))
    (local.set $p (call $alloc (local.get $n)))
    (drop (call $response (local.get $p) (local.get $n)))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $p)) (i64.const 32)) (i64.extend_i32_u (local.get $n)))))
