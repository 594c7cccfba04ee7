;; probe.wat: a guest of the test-only kind "probe" (runtime/kindprobe_internal_test.go),
;; which proves the guest-kind seam with a second ABI. It pulls its input and pushes its
;; output through its own host module, probe_v1, as Extism plugins do: describe pushes the
;; manifest; tool_<name> runs tool <name>; vars_grow(n) keeps n bytes on the host (Call.Vars).
;;
;; Rebuild: wat2wasm testdata/wat/probe.wat -o testdata/wat/probe.wasm
(module
  (import "probe_v1" "input_length" (func $input_length (result i32)))
  (import "probe_v1" "input_load" (func $input_load (param i32)))
  (import "probe_v1" "output_set" (func $output_set (param i32 i32)))
  (import "probe_v1" "log" (func $log (param i32 i32)))
  (import "probe_v1" "vars_grow" (func $vars_grow (param i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"name\":\"probe\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"echo\",\"description\":\"Returns its arguments\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"spin\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"grow\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"big\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"hold\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 512) "spinning")
  (data (i32.const 600) "{\"ok\":true}")
  (data (i32.const 620) "{\"ok\":false}")

  (func (export "describe")
    (call $output_set (i32.const 0) (i32.const 321)))

  ;; echo: logs its input and returns it
  (func (export "tool_echo") (local $n i32)
    (local.set $n (call $input_length))
    (call $input_load (i32.const 1024))
    (call $log (i32.const 1024) (local.get $n))
    (call $output_set (i32.const 1024) (local.get $n)))

  ;; spin: says so, then loops until the host stops it
  (func (export "tool_spin")
    (call $log (i32.const 512) (i32.const 8))
    (loop $l (br $l)))

  ;; grow: grows its memory until refused, then traps
  (func (export "tool_grow")
    (loop $l (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
    unreachable)

  ;; hold: keeps 768 KiB on the host (Call.Vars), then grows its memory until refused: ok
  ;; if linear memory stayed within what the Vars leave of the limit (4 pages of 1 MiB)
  (func (export "tool_hold")
    (if (call $vars_grow (i32.const 786432)) (then unreachable))
    (loop $l (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
    (if (i32.le_u (memory.size) (i32.const 4))
      (then (call $output_set (i32.const 600) (i32.const 11)))
      (else (call $output_set (i32.const 620) (i32.const 12)))))

  ;; big: pushes 64 KiB of output
  (func (export "tool_big")
    (call $output_set (i32.const 0) (i32.const 65536))))
