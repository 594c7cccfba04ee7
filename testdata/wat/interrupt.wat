;; interrupt.wat: the fixture of runtime/epoch_test.go (stopping running guests).
;;
;; Every call first logs "entered" (info), so tests can wait for it. Tools: spin (loops
;; forever), tree (a 2^30-call recursion), block (an mcp.call request to upstream "slow",
;; which the test's Upstreams never answers before the call ends), ok.
;; The byte after "mode:" at address 16 picks a runaway initialization: tests patch it to
;; "i" (_initialize loops forever), "s" (the start function loops forever) or "a"
;; (mcpwasm_alloc logs "entered", then loops forever: a limit that lands before the tool's
;; export runs). Rebuild:
;;
;;   wat2wasm testdata/wat/interrupt.wat -o testdata/wat/interrupt.wasm
(module
  (import "mcpwasm_v1" "log" (func $log (param i32 i32 i32) (result i32)))
  (import "mcpwasm_v1" "request" (func $request (param i32 i32 i32 i32) (result i64)))
  (memory (export "memory") 1)
  (global $bump (mut i32) (i32.const 8192))
  (data (i32.const 16) "mode:-")
  (data (i32.const 1024) "{\"name\":\"interrupt\",\"version\":\"1.0.0\",\"requests\":{\"mcp\":[\"slow\"]},\"tools\":[{\"name\":\"spin\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"tree\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"block\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 3000) "mcp.call")
  (data (i32.const 3100) "{\"server\":\"slow\",\"tool\":\"wait\"}")
  (data (i32.const 3200) "{\"content\":[]}")
  (data (i32.const 3300) "entered")

  (func $spin (loop $forever (br $forever)))

  (func $tree (param $n i32) (result i32)
    (if (i32.eqz (local.get $n)) (then (return (i32.const 1))))
    (i32.add (call $tree (i32.sub (local.get $n) (i32.const 1)))
             (call $tree (i32.sub (local.get $n) (i32.const 1)))))

  (func $start
    (if (i32.eq (i32.load8_u (i32.const 21)) (i32.const 115)) (then (call $spin))))
  (start $start)

  (func (export "_initialize")
    (if (i32.eq (i32.load8_u (i32.const 21)) (i32.const 105)) (then (call $spin))))

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (local $p i32)
    (if (i32.eq (i32.load8_u (i32.const 21)) (i32.const 97))
      (then (drop (call $log (i32.const 6) (i32.const 3300) (i32.const 7))) (call $spin)))
    (local.set $p (global.get $bump))
    (global.set $bump (i32.add (global.get $bump) (local.get $n)))
    (local.get $p))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 267)))

  ;; Dispatches on the first byte of the tool name: s(pin), t(ree), b(lock), o(k).
  (func (export "mcpwasm_call") (param $np i32) (param $nl i32) (param $ap i32) (param $al i32) (result i64)
    (local $c i32)
    (drop (call $log (i32.const 6) (i32.const 3300) (i32.const 7))) ;; tests wait for this
    (local.set $c (i32.load8_u (local.get $np)))
    (if (i32.eq (local.get $c) (i32.const 115)) (then (call $spin)))
    (if (i32.eq (local.get $c) (i32.const 116)) (then (drop (call $tree (i32.const 30)))))
    (if (i32.eq (local.get $c) (i32.const 98))
      (then (drop (call $request (i32.const 3000) (i32.const 8) (i32.const 3100) (i32.const 31)))))
    (i64.or (i64.shl (i64.const 3200) (i64.const 32)) (i64.const 14))))
