;; snapshot.wat: the fixture of runtime/snapshot_internal_test.go (instances restored from a
;; snapshot of a started instance). _initialize changes what a snapshot must carry: it sets
;; the unexported global $g to 24301, grows memory from 1 to 3 pages and writes 171 at the
;; mark (address 131172, in a grown page). Tools: probe returns
;; {"g":$g,"pages":memory.size,"mark":the mark's byte,"calls":$calls}, then changes all of
;; them ($g+1, mark 205, $calls+1); spin loops forever; grow grows memory by 2 pages (traps if
;; refused). The byte after "net:" at address 1000 is "-"; tests patch it to "n" to make
;; _initialize ask for a capability (request "http"), which is refused during a start. Rebuild:
;;
;;   wat2wasm testdata/wat/snapshot.wat -o testdata/wat/snapshot.wasm
(module
  (import "mcpwasm_v1" "request" (func $request (param i32 i32 i32 i32) (result i64)))
  (memory (export "memory") 1)
  (global $g (mut i32) (i32.const 0))
  (global $calls (mut i64) (i64.const 0))
  (data (i32.const 16) "{\"name\":\"snap\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"probe\",\"description\":\"Reports the state start left and calls changed\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"spin\",\"description\":\"Loops forever\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"grow\",\"description\":\"Grows memory by 2 pages\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 1000) "net:-")
  (data (i32.const 1008) "http")
  (data (i32.const 1016) "{\"url\":\"http://example.com/\"}")
  (data (i32.const 1100) "{\"content\":[],\"structuredContent\":{\"g\":")
  (data (i32.const 1200) ",\"pages\":")
  (data (i32.const 1220) ",\"mark\":")
  (data (i32.const 1240) ",\"calls\":")
  (data (i32.const 1260) "}}")

  (func (export "_initialize")
    (global.set $g (i32.const 24301))
    (drop (memory.grow (i32.const 2)))
    (i32.store8 (i32.const 131172) (i32.const 171))
    (if (i32.eq (i32.load8_u (i32.const 1004)) (i32.const 110)) ;; "n"
      (then (drop (call $request (i32.const 1008) (i32.const 4) (i32.const 1016) (i32.const 29))))))

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  ;; The input region is at 4096, up to 32 KiB.
  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $n) (i32.const 32768))
      (then (i32.const 0)) (else (i32.const 4096))))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 321)))

  ;; $copy copies n bytes from src to dst and returns dst+n.
  (func $copy (param $dst i32) (param $src i32) (param $n i32) (result i32)
    (memory.copy (local.get $dst) (local.get $src) (local.get $n))
    (i32.add (local.get $dst) (local.get $n)))

  ;; $num writes v in decimal at p and returns the address after it.
  (func $num (param $p i32) (param $v i64) (result i32)
    (local $n i32) (local $t i64) (local $i i32)
    (local.set $t (local.get $v))
    (local.set $n (i32.const 1))
    (block $done (loop $count
      (local.set $t (i64.div_u (local.get $t) (i64.const 10)))
      (br_if $done (i64.eqz (local.get $t)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $count)))
    (local.set $i (local.get $n))
    (loop $digit
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (i32.store8 (i32.add (local.get $p) (local.get $i))
        (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $digit (i32.gt_u (local.get $i) (i32.const 0))))
    (i32.add (local.get $p) (local.get $n)))

  (func (export "mcpwasm_call") (param $name i32) (param $nlen i32) (param $args i32) (param $alen i32) (result i64)
    (local $p i32)
    (if (i32.eq (i32.load8_u (local.get $name)) (i32.const 115)) ;; "spin"
      (then (loop $forever (br $forever))))
    (if (i32.eq (i32.load8_u (local.get $name)) (i32.const 103)) ;; "grow"
      (then (if (i32.eq (memory.grow (i32.const 2)) (i32.const -1)) (then unreachable))))
    (local.set $p (call $copy (i32.const 2048) (i32.const 1100) (i32.const 39)))
    (local.set $p (call $num (local.get $p) (i64.extend_i32_u (global.get $g))))
    (local.set $p (call $copy (local.get $p) (i32.const 1200) (i32.const 9)))
    (local.set $p (call $num (local.get $p) (i64.extend_i32_u (memory.size))))
    (local.set $p (call $copy (local.get $p) (i32.const 1220) (i32.const 8)))
    (local.set $p (call $num (local.get $p) (i64.extend_i32_u (i32.load8_u (i32.const 131172)))))
    (local.set $p (call $copy (local.get $p) (i32.const 1240) (i32.const 9)))
    (local.set $p (call $num (local.get $p) (global.get $calls)))
    (local.set $p (call $copy (local.get $p) (i32.const 1260) (i32.const 2)))
    (global.set $g (i32.add (global.get $g) (i32.const 1)))
    (global.set $calls (i64.add (global.get $calls) (i64.const 1)))
    (i32.store8 (i32.const 131172) (i32.const 205))
    (i64.or (i64.shl (i64.const 2048) (i64.const 32))
            (i64.extend_i32_u (i32.sub (local.get $p) (i32.const 2048)))))
)
