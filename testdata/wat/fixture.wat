;; fixture.wat — the runtime test suite's guest: one tool per behaviour under test.
;; Rebuild: wat2wasm testdata/wat/fixture.wat -o testdata/wat/fixture.wasm
;; (runtime tests check the committed .wasm is current when wat2wasm is installed).
;;
;; Memory layout: 0..1023 scratch (iovecs, digits); 1024.. constant data; 65536.. the input
;; region handed out by mcpwasm_alloc; the output region follows the input region.
(module
  (import "mcpwasm_v1" "log" (func $log (param i32 i32 i32) (result i32)))
  (import "mcpwasm_v1" "progress" (func $progress (param f64 f64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))

  ;; Declares a 2 GiB maximum on purpose: the host must clamp it, not refuse the module.
  (memory (export "memory") 2 32768)

  (global $in_cap (mut i32) (i32.const 0))

  ;; --- constant data -------------------------------------------------------------------
  (data (i32.const 1024) "{\"name\":\"fixture\",\"version\":\"1.0.0\",\"description\":\"Runtime test fixture\",\"tools\":[{\"name\":\"echo\",\"description\":\"Returns its arguments as structured content\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"add\",\"description\":\"Returns its validated arguments\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"],\"additionalProperties\":false}},{\"name\":\"spin\",\"description\":\"Loops forever\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"tree\",\"description\":\"Recurses into a 2^30-call tree\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"trap\",\"description\":\"Executes unreachable\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"grow\",\"description\":\"Grows memory a page at a time until refused\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"oom\",\"description\":\"Grows memory until refused, then aborts\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"print\",\"description\":\"Writes to stdout and stderr\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"read\",\"description\":\"Reads stdin\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"fail\",\"description\":\"Returns a tool error\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"steps\",\"description\":\"Reports progress 1/3, 2/3, 3/3\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"logs\",\"description\":\"Logs at debug and at warning\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"shape_ok\",\"description\":\"Structured result matching its output schema\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}},{\"name\":\"shape_bad\",\"description\":\"Structured result violating its output schema\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}}]}")
  (global $manifest_len i32 (i32.const 1713))

  (data (i32.const 3000) "echo")
  (data (i32.const 3004) "add")
  (data (i32.const 3007) "spin")
  (data (i32.const 3011) "tree")
  (data (i32.const 3015) "trap")
  (data (i32.const 3019) "grow")
  (data (i32.const 3023) "oom")
  (data (i32.const 3026) "print")
  (data (i32.const 3031) "read")
  (data (i32.const 3035) "fail")
  (data (i32.const 3100) "{\"content\":[],\"structuredContent\":")          ;; 34 bytes
  (data (i32.const 3140) "{\"content\":[{\"type\":\"text\",\"text\":\"")      ;; 35 bytes
  (data (i32.const 3180) "\"}]}")                                              ;; 4 bytes
  (data (i32.const 3190) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}") ;; 41 bytes
  (data (i32.const 3240) "{\"content\":[{\"type\":\"text\",\"text\":\"it failed\"}],\"isError\":true}") ;; 63 bytes
  (data (i32.const 3310) "entered ")  ;; 8 bytes
  (data (i32.const 3320) "to-stdout\n") ;; 10 bytes
  (data (i32.const 3330) "to-stderr\n") ;; 10 bytes
  (data (i32.const 3340) "pages=")     ;; 6 bytes
  (data (i32.const 3350) "read=")      ;; 5 bytes
  (data (i32.const 3400) "steps")      ;; 5 bytes
  (data (i32.const 3405) "logs")       ;; 4 bytes
  (data (i32.const 3409) "shape_ok")   ;; 8 bytes
  (data (i32.const 3417) "shape_bad")  ;; 9 bytes
  (data (i32.const 3430) "step")       ;; 4 bytes
  (data (i32.const 3440) "debug line") ;; 10 bytes
  (data (i32.const 3450) "warning line") ;; 12 bytes
  (data (i32.const 3470) "{\"content\":[],\"structuredContent\":{\"n\":1}}")     ;; 42 bytes
  (data (i32.const 3520) "{\"content\":[],\"structuredContent\":{\"n\":\"one\"}}") ;; 46 bytes

  ;; --- helpers -------------------------------------------------------------------------
  ;; ensure grows memory so that [0, end) is addressable; returns 0 if it cannot.
  (func $ensure (param $end i32) (result i32)
    (local $have i32)
    (local.set $have (i32.mul (memory.size) (i32.const 65536)))
    (if (i32.le_u (local.get $end) (local.get $have)) (then (return (i32.const 1))))
    (i32.ne
      (memory.grow (i32.div_u (i32.add (i32.sub (local.get $end) (local.get $have)) (i32.const 65535))
                              (i32.const 65536)))
      (i32.const -1)))

  (func $streq (param $a i32) (param $alen i32) (param $b i32) (param $blen i32) (result i32)
    (local $i i32)
    (if (i32.ne (local.get $alen) (local.get $blen)) (then (return (i32.const 0))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $alen)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $i)))
                    (i32.load8_u (i32.add (local.get $b) (local.get $i))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 1))

  ;; utoa writes n in decimal at p and returns the address after the last digit.
  (func $utoa (param $p i32) (param $n i32) (result i32)
    (local $q i32) (local $len i32) (local $i i32)
    ;; digits go to scratch [100, 110) backwards, then forwards to p
    (local.set $q (i32.const 110))
    (loop $digit
      (local.set $q (i32.sub (local.get $q) (i32.const 1)))
      (i32.store8 (local.get $q) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
      (local.set $n (i32.div_u (local.get $n) (i32.const 10)))
      (br_if $digit (i32.ne (local.get $n) (i32.const 0))))
    (local.set $len (i32.sub (i32.const 110) (local.get $q)))
    (memory.copy (local.get $p) (local.get $q) (local.get $len))
    (i32.add (local.get $p) (local.get $len)))

  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32)) (i64.extend_i32_u (local.get $len))))

  ;; out returns the start of the output region (just past the input region).
  (func $out (result i32)
    (i32.and (i32.add (i32.add (i32.const 65536) (global.get $in_cap)) (i32.const 15)) (i32.const -16)))

  ;; text_result writes {"content":[{"type":"text","text":"<prefix><n>"}]} and packs it.
  (func $text_number (param $prefix i32) (param $plen i32) (param $n i32) (result i64)
    (local $o i32) (local $p i32)
    (local.set $o (call $out))
    (drop (call $ensure (i32.add (local.get $o) (i32.const 128))))
    (memory.copy (local.get $o) (i32.const 3140) (i32.const 35))
    (local.set $p (i32.add (local.get $o) (i32.const 35)))
    (memory.copy (local.get $p) (local.get $prefix) (local.get $plen))
    (local.set $p (call $utoa (i32.add (local.get $p) (local.get $plen)) (local.get $n)))
    (memory.copy (local.get $p) (i32.const 3180) (i32.const 4))
    (call $pack (local.get $o) (i32.sub (i32.add (local.get $p) (i32.const 4)) (local.get $o))))

  (func $tree (param $n i32) (result i32)
    (if (i32.eqz (local.get $n)) (then (return (i32.const 1))))
    (i32.add (call $tree (i32.sub (local.get $n) (i32.const 1)))
             (call $tree (i32.sub (local.get $n) (i32.const 1)))))

  (func $grow_until_refused
    (block $refused
      (loop $more
        (br_if $refused (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
        (br $more))))

  ;; --- ABI exports ---------------------------------------------------------------------
  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    ;; room for the input plus an output of twice its size and some framing
    (if (i32.eqz (call $ensure (i32.add (i32.const 65536)
                                        (i32.add (i32.mul (local.get $n) (i32.const 3)) (i32.const 4096)))))
      (then (return (i32.const 0))))
    (global.set $in_cap (local.get $n))
    (i32.const 65536))

  (func (export "mcpwasm_describe") (result i64)
    (call $pack (i32.const 1024) (global.get $manifest_len)))

  (func (export "mcpwasm_call") (param $np i32) (param $nl i32) (param $ap i32) (param $al i32) (result i64)
    (local $o i32)
    ;; echo: {"content":[],"structuredContent":<args>}
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3000) (i32.const 4))
      (then
        (drop (call $log (i32.const 1) (i32.const 3310) (i32.const 8)))
        (local.set $o (call $out))
        (memory.copy (local.get $o) (i32.const 3100) (i32.const 34))
        (memory.copy (i32.add (local.get $o) (i32.const 34)) (local.get $ap) (local.get $al))
        (i32.store8 (i32.add (local.get $o) (i32.add (i32.const 34) (local.get $al))) (i32.const 125))
        (return (call $pack (local.get $o) (i32.add (local.get $al) (i32.const 35))))))
    ;; add: same as echo, after logging "entered " so tests can see whether it ran
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3004) (i32.const 3))
      (then
        (drop (call $log (i32.const 1) (i32.const 3310) (i32.const 8)))
        (local.set $o (call $out))
        (memory.copy (local.get $o) (i32.const 3100) (i32.const 34))
        (memory.copy (i32.add (local.get $o) (i32.const 34)) (local.get $ap) (local.get $al))
        (i32.store8 (i32.add (local.get $o) (i32.add (i32.const 34) (local.get $al))) (i32.const 125))
        (return (call $pack (local.get $o) (i32.add (local.get $al) (i32.const 35))))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3007) (i32.const 4))
      (then (loop $forever (br $forever))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3011) (i32.const 4))
      (then (return (call $text_number (i32.const 3340) (i32.const 0) (call $tree (i32.const 30))))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3015) (i32.const 4))
      (then unreachable))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3019) (i32.const 4))
      (then
        (call $grow_until_refused)
        (return (call $text_number (i32.const 3340) (i32.const 6) (memory.size)))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3023) (i32.const 3))
      (then (call $grow_until_refused) unreachable))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3026) (i32.const 5))
      (then
        ;; iovec at 0: {ptr, len}; nwritten at 8
        (i32.store (i32.const 0) (i32.const 3320)) (i32.store (i32.const 4) (i32.const 10))
        (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
        (i32.store (i32.const 0) (i32.const 3330)) (i32.store (i32.const 4) (i32.const 10))
        (drop (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
        (return (call $pack (i32.const 3190) (i32.const 41)))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3031) (i32.const 4))
      (then
        ;; iovec at 0: {512, 64}; nread at 8
        (i32.store (i32.const 0) (i32.const 512)) (i32.store (i32.const 4) (i32.const 64))
        (i32.store (i32.const 8) (i32.const 99))
        (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
        (return (call $text_number (i32.const 3350) (i32.const 5) (i32.load (i32.const 8))))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3035) (i32.const 4))
      (then (return (call $pack (i32.const 3240) (i32.const 63)))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3400) (i32.const 5))
      (then
        (drop (call $progress (f64.const 1) (f64.const 3) (i32.const 3430) (i32.const 4)))
        (drop (call $progress (f64.const 2) (f64.const 3) (i32.const 3430) (i32.const 4)))
        (drop (call $progress (f64.const 3) (f64.const 3) (i32.const 0) (i32.const 0)))
        (return (call $pack (i32.const 3190) (i32.const 41)))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3405) (i32.const 4))
      (then
        (drop (call $log (i32.const 0) (i32.const 3440) (i32.const 10)))
        (drop (call $log (i32.const 3) (i32.const 3450) (i32.const 12)))
        (return (call $pack (i32.const 3190) (i32.const 41)))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3409) (i32.const 8))
      (then (return (call $pack (i32.const 3470) (i32.const 42)))))
    (if (call $streq (local.get $np) (local.get $nl) (i32.const 3417) (i32.const 9))
      (then (return (call $pack (i32.const 3520) (i32.const 46)))))
    ;; unknown tool: the host never calls one, so this is a trap
    unreachable)
)
