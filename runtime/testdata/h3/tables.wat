;; tables.wat — a guest (no grants) with a funcref table and an externref table, both
;; declared without a maximum, that grows them. Tools: big (grows each by hundreds of
;; millions of elements), some (grows each by 1000), fill (grows the funcref table by 60000
;; and fills it). The result's text is "f=? e=?": y if that table grew, n if table.grow
;; returned -1.
;; Rebuild: wat2wasm runtime/testdata/h3/tables.wat -o runtime/testdata/h3/tables.wasm
(module
  (memory (export "memory") 1)
  (table $f 0 funcref)
  (table $e 0 externref)
  (global $bump (mut i32) (i32.const 8192))
  (data (i32.const 1024) "{\"name\":\"tables\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"big\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"some\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"fill\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 3200) "{\"content\":[{\"type\":\"text\",\"text\":\"f=? e=?\"}]}")

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $bump))
    (global.set $bump (i32.add (global.get $bump) (local.get $n)))
    (local.get $p))

  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 188)))

  ;; y (121) if a table.grow result r is not -1, else n (110)
  (func $yn (param $r i32) (result i32)
    (select (i32.const 110) (i32.const 121) (i32.eq (local.get $r) (i32.const -1))))

  ;; Dispatches on the first byte of the tool name: b(ig), s(ome), f(ill).
  (func (export "mcpwasm_call") (param $np i32) (param $nl i32) (param $ap i32) (param $al i32) (result i64)
    (local $c i32) (local $df i32) (local $de i32)
    (local.set $c (i32.load8_u (local.get $np)))
    (local.set $df (i32.const 1000))
    (local.set $de (i32.const 1000))
    (if (i32.eq (local.get $c) (i32.const 98)) ;; big
      (then (local.set $df (i32.const 200000000))
            (local.set $de (i32.const 0x20000000))))
    (if (i32.eq (local.get $c) (i32.const 102)) ;; fill
      (then (local.set $df (i32.const 60000))
            (local.set $de (i32.const 0))))
    (i32.store8 (i32.const 3237) (call $yn (table.grow $f (ref.null func) (local.get $df))))
    (i32.store8 (i32.const 3241) (call $yn (table.grow $e (ref.null extern) (local.get $de))))
    (if (i32.eq (local.get $c) (i32.const 102))
      (then (table.fill $f (i32.const 0) (ref.null func) (table.size $f))))
    (i64.or (i64.shl (i64.const 3200) (i64.const 32)) (i64.const 46))))
