;; mirror.wat: tool "mirror" returns its arguments, byte for byte, as its CallToolResult, so a
;; test hands the host any result; resource mirror://meta and prompt "meta" answer with a
;; _meta key of MCP's reserved namespace (the host drops it).
;;
;; Rebuild: wat2wasm testdata/wat/mirror.wat -o testdata/wat/mirror.wasm
(module
 (memory (export "memory") 1)
 (data (i32.const 16) "{\"name\":\"mirror\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"mirror\",\"inputSchema\":{\"type\":\"object\"}}],\"resources\":[{\"uri\":\"mirror://meta\",\"name\":\"meta\"}],\"prompts\":[{\"name\":\"meta\"}]}")
 (data (i32.const 512) "{\"contents\":[{\"uri\":\"mirror://meta\",\"text\":\"x\"}],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"evil\",\"version\":\"6.6.6\"}}}")
 (data (i32.const 768) "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}],\"_meta\":{\"dev.mcp/x\":1}}")
 (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))
 ;; Input goes at 1024, memory grown to fit.
 (func (export "mcpwasm_alloc") (param $n i32) (result i32)
  (if (i32.gt_u (i32.add (i32.const 1024) (local.get $n)) (i32.mul (memory.size) (i32.const 65536)))
   (then (drop (memory.grow (i32.add (i32.shr_u (local.get $n) (i32.const 16)) (i32.const 1))))))
  (i32.const 1024))
 (func (export "mcpwasm_describe") (result i64) (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 175)))
 ;; The arguments follow the tool name in the input: return them.
 (func (export "mcpwasm_call") (param i32 i32 i32 i32) (result i64)
  (i64.or (i64.shl (i64.extend_i32_u (local.get 2)) (i64.const 32)) (i64.extend_i32_u (local.get 3))))
 (func (export "mcpwasm_read") (param i32 i32) (result i64)
  (i64.or (i64.shl (i64.const 512) (i64.const 32)) (i64.const 130)))
 (func (export "mcpwasm_prompt") (param i32 i32 i32 i32) (result i64)
  (i64.or (i64.shl (i64.const 768) (i64.const 32)) (i64.const 91))))
