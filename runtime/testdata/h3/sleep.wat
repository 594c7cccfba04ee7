;; sleep.wat — a guest (requests the clock) whose tools wait in WASI poll_oneoff on clock
;; subscriptions of an hour. Each call first logs "entered" (info), so tests can wait for it.
;; Tools: sleep (one relative subscription), pair (relative subscriptions of 1 h and 2 h),
;; mixed (a relative one of 1 h and an absolute one an hour from the clock's origin), ok.
;; The result's text is "errno NN": poll_oneoff's result.
;; Rebuild: wat2wasm runtime/testdata/h3/sleep.wat -o runtime/testdata/h3/sleep.wasm
(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "mcpwasm_v1" "log" (func $log (param i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global $bump (mut i32) (i32.const 8192))
  (data (i32.const 1024) "{\"name\":\"sleeper\",\"version\":\"1.0.0\",\"requests\":{\"clock\":true},\"tools\":[{\"name\":\"sleep\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"pair\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"mixed\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 3200) "{\"content\":[{\"type\":\"text\",\"text\":\"errno 00\"}]}")
  (data (i32.const 3300) "entered")

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $bump))
    (global.set $bump (i32.add (global.get $bump) (local.get $n)))
    (local.get $p))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 264)))

  ;; A clock subscription (48 bytes) at $at: userdata, tag 0 (clock), monotonic clock,
  ;; timeout $ns, precision 0, flags $flags (1: absolute).
  (func $clock (param $at i32) (param $ns i64) (param $flags i32)
    (memory.fill (local.get $at) (i32.const 0) (i32.const 48))
    (i64.store (local.get $at) (i64.extend_i32_u (local.get $at)))
    (i32.store (i32.add (local.get $at) (i32.const 16)) (i32.const 1))
    (i64.store (i32.add (local.get $at) (i32.const 24)) (local.get $ns))
    (i32.store16 (i32.add (local.get $at) (i32.const 40)) (local.get $flags)))

  ;; Dispatches on the first byte of the tool name: s(leep), p(air), m(ixed), o(k).
  (func (export "mcpwasm_call") (param $np i32) (param $nl i32) (param $ap i32) (param $al i32) (result i64)
    (local $c i32) (local $n i32) (local $errno i32)
    (drop (call $log (i32.const 6) (i32.const 3300) (i32.const 7))) ;; tests wait for this
    (local.set $c (i32.load8_u (local.get $np)))
    (call $clock (i32.const 2048) (i64.const 3600000000000) (i32.const 0))
    (local.set $n (i32.const 1))
    (if (i32.eq (local.get $c) (i32.const 112)) ;; pair
      (then (call $clock (i32.const 2096) (i64.const 7200000000000) (i32.const 0))
            (local.set $n (i32.const 2))))
    (if (i32.eq (local.get $c) (i32.const 109)) ;; mixed
      (then (call $clock (i32.const 2096) (i64.const 3600000000000) (i32.const 1))
            (local.set $n (i32.const 2))))
    (if (i32.ne (local.get $c) (i32.const 111)) ;; all but ok
      (then (local.set $errno (call $poll (i32.const 2048) (i32.const 2304) (local.get $n) (i32.const 2400)))))
    (i32.store8 (i32.const 3241) (i32.add (i32.const 48) (i32.div_u (local.get $errno) (i32.const 10))))
    (i32.store8 (i32.const 3242) (i32.add (i32.const 48) (i32.rem_u (local.get $errno) (i32.const 10))))
    (i64.or (i64.shl (i64.const 3200) (i64.const 32)) (i64.const 47))))
