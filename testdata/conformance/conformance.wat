;; conformance.wat — an mcpwasm guest (ABI v1, abi/ABI.md) with the tools that the MCP
;; conformance server suite (@modelcontextprotocol/conformance) calls: test_simple_text,
;; test_image_content, test_audio_content, test_embedded_resource, test_multiple_content_types,
;; test_tool_with_logging, test_error_handling, test_tool_with_progress, json_schema_2020_12_tool.
;; Each returns a fixed result; logging and progress go through the host imports.
;; .ci/conformance.sh builds it with: wat2wasm testdata/conformance/conformance.wat -o OUT.wasm
(module
  (import "mcpwasm_v1" "log" (func $log (param i32 i32 i32) (result i32)))
  (import "mcpwasm_v1" "progress" (func $progress (param f64 f64 i32 i32) (result i32)))
  (memory (export "memory") 2)
  ;; manifest (ABI.md §4): 1538 bytes at 16
  (data (i32.const 16) "{\22name\22:\22conformance\22,\22version\22:\221.0.0\22,\22description\22:\22The tools the MCP conformance server suite calls\22,\22tools\22:[{\22name\22:\22test_simple_text\22,\22description\22:\22Returns one text block\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_image_content\22,\22description\22:\22Returns a 1x1 red PNG\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_audio_content\22,\22description\22:\22Returns a short silent WAV\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_embedded_resource\22,\22description\22:\22Returns an embedded text resource\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_multiple_content_types\22,\22description\22:\22Returns text, image and resource blocks\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_tool_with_logging\22,\22description\22:\22Logs three info lines, then returns\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_error_handling\22,\22description\22:\22Always returns a tool error\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_tool_with_progress\22,\22description\22:\22Reports progress 0, 50, 100 of 100, then returns\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22json_schema_2020_12_tool\22,\22description\22:\22Tool with JSON Schema 2020-12 features\22,\22inputSchema\22:{\22$schema\22:\22https://json-schema.org/draft/2020-12/schema\22,\22type\22:\22object\22,\22$defs\22:{\22address\22:{\22type\22:\22object\22,\22properties\22:{\22street\22:{\22type\22:\22string\22},\22city\22:{\22type\22:\22string\22}}}},\22properties\22:{\22name\22:{\22type\22:\22string\22},\22address\22:{\22$ref\22:\22#/$defs/address\22}},\22additionalProperties\22:false}}]}")
  ;; tool name test_simple_text: 16 bytes at 1568
  (data (i32.const 1568) "test_simple_text")
  ;; result of test_simple_text: 82 bytes at 1584
  (data (i32.const 1584) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22This is a simple text response for testing.\22}]}")
  ;; tool name test_image_content: 18 bytes at 1680
  (data (i32.const 1680) "test_image_content")
  ;; result of test_image_content: 159 bytes at 1712
  (data (i32.const 1712) "{\22content\22:[{\22type\22:\22image\22,\22data\22:\22iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==\22,\22mimeType\22:\22image/png\22}]}")
  ;; tool name test_audio_content: 18 bytes at 1872
  (data (i32.const 1872) "test_audio_content")
  ;; result of test_audio_content: 143 bytes at 1904
  (data (i32.const 1904) "{\22content\22:[{\22type\22:\22audio\22,\22data\22:\22UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA\22,\22mimeType\22:\22audio/wav\22}]}")
  ;; tool name test_embedded_resource: 22 bytes at 2048
  (data (i32.const 2048) "test_embedded_resource")
  ;; result of test_embedded_resource: 150 bytes at 2080
  (data (i32.const 2080) "{\22content\22:[{\22type\22:\22resource\22,\22resource\22:{\22uri\22:\22test://embedded-resource\22,\22mimeType\22:\22text/plain\22,\22text\22:\22This is an embedded resource content.\22}}]}")
  ;; tool name test_multiple_content_types: 27 bytes at 2240
  (data (i32.const 2240) "test_multiple_content_types")
  ;; result of test_multiple_content_types: 357 bytes at 2272
  (data (i32.const 2272) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22Multiple content types test:\22},{\22type\22:\22image\22,\22data\22:\22iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==\22,\22mimeType\22:\22image/png\22},{\22type\22:\22resource\22,\22resource\22:{\22uri\22:\22test://mixed-content-resource\22,\22mimeType\22:\22application/json\22,\22text\22:\22{\5c\22test\5c\22:\5c\22data\5c\22,\5c\22value\5c\22:123}\22}}]}")
  ;; tool name test_tool_with_logging: 22 bytes at 2640
  (data (i32.const 2640) "test_tool_with_logging")
  ;; result of test_tool_with_logging: 78 bytes at 2672
  (data (i32.const 2672) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22Tool with logging executed successfully\22}]}")
  ;; tool name test_error_handling: 19 bytes at 2752
  (data (i32.const 2752) "test_error_handling")
  ;; result of test_error_handling: 106 bytes at 2784
  (data (i32.const 2784) "{\22isError\22:true,\22content\22:[{\22type\22:\22text\22,\22text\22:\22This tool intentionally returns an error for testing\22}]}")
  ;; tool name test_tool_with_progress: 23 bytes at 2896
  (data (i32.const 2896) "test_tool_with_progress")
  ;; result of test_tool_with_progress: 79 bytes at 2928
  (data (i32.const 2928) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22Tool with progress executed successfully\22}]}")
  ;; tool name json_schema_2020_12_tool: 24 bytes at 3008
  (data (i32.const 3008) "json_schema_2020_12_tool")
  ;; result of json_schema_2020_12_tool: 70 bytes at 3040
  (data (i32.const 3040) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22JSON Schema 2020-12 tool called\22}]}")
  ;; result for an unknown name: 66 bytes at 3120
  (data (i32.const 3120) "{\22isError\22:true,\22content\22:[{\22type\22:\22text\22,\22text\22:\22unknown tool\22}]}")
  ;; log line: 22 bytes at 3200
  (data (i32.const 3200) "Tool execution started")
  ;; log line: 20 bytes at 3232
  (data (i32.const 3232) "Tool processing data")
  ;; log line: 24 bytes at 3264
  (data (i32.const 3264) "Tool execution completed")

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  ;; One input region at 65536 (page 1 on); grow memory to fit.
  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 65536) (local.get $n)))
    (if (i32.gt_u (local.get $need) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq (memory.grow (i32.div_u (i32.sub (i32.add (local.get $need) (i32.const 65535))
                                                     (i32.mul (memory.size) (i32.const 65536)))
                                            (i32.const 65536)))
                    (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 65536))

  (func (export "mcpwasm_describe") (result i64)
    (i64.const 68719478274) (; ptr 16, len 1538 ;))

  ;; $eq: 1 if the byte strings (a, alen) and (b, blen) are equal.
  (func $eq (param $a i32) (param $alen i32) (param $b i32) (param $blen i32) (result i32)
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

  (func (export "mcpwasm_call") (param $name i32) (param $nlen i32) (param $args i32) (param $alen i32) (result i64)
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 1568) (i32.const 16)) ;; test_simple_text
      (then
        (return (i64.const 6803228196946) (; ptr 1584, len 82 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 1680) (i32.const 18)) ;; test_image_content
      (then
        (return (i64.const 7352984010911) (; ptr 1712, len 159 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 1872) (i32.const 18)) ;; test_audio_content
      (then
        (return (i64.const 8177617731727) (; ptr 1904, len 143 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 2048) (i32.const 22)) ;; test_embedded_resource
      (then
        (return (i64.const 8933531975830) (; ptr 2080, len 150 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 2240) (i32.const 27)) ;; test_multiple_content_types
      (then
        (return (i64.const 9758165696869) (; ptr 2272, len 357 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 2640) (i32.const 22)) ;; test_tool_with_logging
      (then
        (drop (call $log (i32.const 1) (i32.const 3200) (i32.const 22))) ;; info: Tool execution started
        (drop (call $log (i32.const 1) (i32.const 3232) (i32.const 20))) ;; info: Tool processing data
        (drop (call $log (i32.const 1) (i32.const 3264) (i32.const 24))) ;; info: Tool execution completed
        (return (i64.const 11476152614990) (; ptr 2672, len 78 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 2752) (i32.const 19)) ;; test_error_handling
      (then
        (return (i64.const 11957188952170) (; ptr 2784, len 106 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 2896) (i32.const 23)) ;; test_tool_with_progress
      (then
        (drop (call $progress (f64.const 0) (f64.const 100) (i32.const 0) (i32.const 0)))
        (drop (call $progress (f64.const 50) (f64.const 100) (i32.const 0) (i32.const 0)))
        (drop (call $progress (f64.const 100) (f64.const 100) (i32.const 0) (i32.const 0)))
        (return (i64.const 12575664242767) (; ptr 2928, len 79 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 3008) (i32.const 24)) ;; json_schema_2020_12_tool
      (then
        (return (i64.const 13056700579910) (; ptr 3040, len 70 ;))))
    (i64.const 13400297963586) (; ptr 3120, len 66 ;))
)
