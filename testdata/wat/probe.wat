;; probe.wat: a guest of the test-only kind "probe" (runtime/kindprobe_internal_test.go),
;; which proves the guest-kind seam with a second ABI. It pulls its input and pushes its
;; output through its own host module, probe_v1, as Extism plugins do: describe pushes the
;; manifest; tool_<name> runs tool <name>.
;;
;; Rebuild: wat2wasm testdata/wat/probe.wat -o testdata/wat/probe.wasm
(module
  (import "probe_v1" "input_length" (func $input_length (result i32)))
  (import "probe_v1" "input_load" (func $input_load (param i32)))
  (import "probe_v1" "output_set" (func $output_set (param i32 i32)))
  (import "probe_v1" "log" (func $log (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"name\":\"probe\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"echo\",\"description\":\"Returns its arguments\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"spin\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"grow\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"big\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 512) "spinning")

  (func (export "describe")
    (call $output_set (i32.const 0) (i32.const 273)))

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

  ;; big: pushes 64 KiB of output
  (func (export "tool_big")
    (call $output_set (i32.const 0) (i32.const 65536))))
