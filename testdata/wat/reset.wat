;; reset.wat: the fixture of runtime/reset_internal_test.go (instances reset in place to their
;; snapshot). Tools: draw returns {"r":R,"t":T}, R the first 8 bytes random_get gives (a
;; little-endian u64) and T what clock_time_get of the monotonic clock reads, both from WASI
;; sources the guest has no grant for (the host's deterministic ones); close closes stdout
;; (fd_close 1) and returns no content. Rebuild:
;;
;;   wat2wasm testdata/wat/reset.wat -o testdata/wat/reset.wasm
(module
  (import "wasi_snapshot_preview1" "random_get" (func $random (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $close (param i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"name\":\"reset\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"draw\",\"description\":\"Draws 8 random bytes and reads the monotonic clock\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"close\",\"description\":\"Closes stdout\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 1100) "{\"content\":[],\"structuredContent\":{\"r\":")
  (data (i32.const 1200) ",\"t\":")
  (data (i32.const 1260) "}}")
  (data (i32.const 1300) "{\"content\":[]}")

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  ;; The input region is at 4096, up to 32 KiB.
  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $n) (i32.const 32768))
      (then (i32.const 0)) (else (i32.const 4096))))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 238)))

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
    (if (i32.eq (i32.load8_u (local.get $name)) (i32.const 99)) ;; "close"
      (then
        (drop (call $close (i32.const 1)))
        (return (i64.or (i64.shl (i64.const 1300) (i64.const 32)) (i64.const 14)))))
    (drop (call $random (i32.const 3000) (i32.const 8)))
    (drop (call $clock (i32.const 1) (i64.const 1) (i32.const 3008)))
    (local.set $p (call $copy (i32.const 2048) (i32.const 1100) (i32.const 39)))
    (local.set $p (call $num (local.get $p) (i64.load (i32.const 3000))))
    (local.set $p (call $copy (local.get $p) (i32.const 1200) (i32.const 5)))
    (local.set $p (call $num (local.get $p) (i64.load (i32.const 3008))))
    (local.set $p (call $copy (local.get $p) (i32.const 1260) (i32.const 2)))
    (i64.or (i64.shl (i64.const 2048) (i64.const 32))
            (i64.extend_i32_u (i32.sub (local.get $p) (i32.const 2048)))))
)
