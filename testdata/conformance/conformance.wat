;; conformance.wat — an mcpwasm guest (ABI v1, abi/ABI.md) with what the MCP conformance server
;; suite (@modelcontextprotocol/conformance) asks a server for:
;;   tools (mcpwasm_call): test_simple_text, test_image_content, test_audio_content,
;;     test_embedded_resource, test_multiple_content_types, test_tool_with_logging,
;;     test_error_handling, test_tool_with_progress, json_schema_2020_12_tool;
;;   resources (mcpwasm_read, ABI.md §2.4): test://static-text, test://static-binary and the
;;     template test://template/{id}/data;
;;   prompts (mcpwasm_prompt, ABI.md §2.4): test_simple_prompt, test_prompt_with_arguments,
;;     test_prompt_with_embedded_resource, test_prompt_with_image.
;; Fixed answers are data segments; logging and progress go through the host imports; the
;; template and the prompts with arguments build their answer after the input region.
;; .ci/conformance.sh builds it with: wat2wasm testdata/conformance/conformance.wat -o OUT.wasm
;;
;; Memory layout: 16..6096 constant data (16-byte aligned, each segment's length in its
;; comment; a packed result is (ptr << 32) | len, ABI.md §3); 65536.. the input region handed
;; out by mcpwasm_alloc; built answers go right after the input region.
(module
  (import "mcpwasm_v1" "log" (func $log (param i32 i32 i32) (result i32)))
  (import "mcpwasm_v1" "progress" (func $progress (param f64 f64 i32 i32) (result i32)))
  (memory (export "memory") 2)

  ;; End of the input region mcpwasm_alloc handed out last.
  (global $in_end (mut i32) (i32.const 65536))
  ;; Write cursor of the answer being built ($begin, $put, $end).
  (global $w (mut i32) (i32.const 0))

  ;; manifest (ABI.md §4): 2595 bytes at 16
  (data (i32.const 16) "{\22name\22:\22conformance\22,\22version\22:\221.0.0\22,\22description\22:\22The tools, resources and prompts the MCP conformance server suite uses\22,\22tools\22:[{\22name\22:\22test_simple_text\22,\22description\22:\22Returns one text block\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_image_content\22,\22description\22:\22Returns a 1x1 red PNG\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_audio_content\22,\22description\22:\22Returns a short silent WAV\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_embedded_resource\22,\22description\22:\22Returns an embedded text resource\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_multiple_content_types\22,\22description\22:\22Returns text, image and resource blocks\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_tool_with_logging\22,\22description\22:\22Logs three info lines, then returns\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_error_handling\22,\22description\22:\22Always returns a tool error\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22test_tool_with_progress\22,\22description\22:\22Reports progress 0, 50, 100 of 100, then returns\22,\22inputSchema\22:{\22type\22:\22object\22,\22properties\22:{}}},{\22name\22:\22json_schema_2020_12_tool\22,\22description\22:\22Tool with JSON Schema 2020-12 features\22,\22inputSchema\22:{\22$schema\22:\22https://json-schema.org/draft/2020-12/schema\22,\22type\22:\22object\22,\22$defs\22:{\22address\22:{\22type\22:\22object\22,\22properties\22:{\22street\22:{\22type\22:\22string\22},\22city\22:{\22type\22:\22string\22}}}},\22properties\22:{\22name\22:{\22type\22:\22string\22},\22address\22:{\22$ref\22:\22#/$defs/address\22}},\22additionalProperties\22:false}}],\22resources\22:[{\22uri\22:\22test://static-text\22,\22name\22:\22static-text\22,\22description\22:\22A static text resource\22,\22mimeType\22:\22text/plain\22},{\22uri\22:\22test://static-binary\22,\22name\22:\22static-binary\22,\22description\22:\22A static binary resource (a 1x1 red PNG)\22,\22mimeType\22:\22image/png\22}],\22resourceTemplates\22:[{\22uriTemplate\22:\22test://template/{id}/data\22,\22name\22:\22template-data\22,\22description\22:\22JSON data for the id in the URI\22,\22mimeType\22:\22application/json\22}],\22prompts\22:[{\22name\22:\22test_simple_prompt\22,\22description\22:\22A simple prompt without arguments\22},{\22name\22:\22test_prompt_with_arguments\22,\22description\22:\22A prompt with two required arguments\22,\22arguments\22:[{\22name\22:\22arg1\22,\22description\22:\22First test argument\22,\22required\22:true},{\22name\22:\22arg2\22,\22description\22:\22Second test argument\22,\22required\22:true}]},{\22name\22:\22test_prompt_with_embedded_resource\22,\22description\22:\22A prompt with an embedded resource\22,\22arguments\22:[{\22name\22:\22resourceUri\22,\22description\22:\22URI of the resource to embed\22,\22required\22:true}]},{\22name\22:\22test_prompt_with_image\22,\22description\22:\22A prompt with image content\22}]}")

  ;; --- tools (mcpwasm_call) --------------------------------------------------------------
  ;; tool name test_simple_text: 16 bytes at 2624
  (data (i32.const 2624) "test_simple_text")
  ;; result of test_simple_text: 82 bytes at 2640
  (data (i32.const 2640) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22This is a simple text response for testing.\22}]}")
  ;; tool name test_image_content: 18 bytes at 2736
  (data (i32.const 2736) "test_image_content")
  ;; result of test_image_content: 159 bytes at 2768
  (data (i32.const 2768) "{\22content\22:[{\22type\22:\22image\22,\22data\22:\22iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==\22,\22mimeType\22:\22image/png\22}]}")
  ;; tool name test_audio_content: 18 bytes at 2928
  (data (i32.const 2928) "test_audio_content")
  ;; result of test_audio_content: 143 bytes at 2960
  (data (i32.const 2960) "{\22content\22:[{\22type\22:\22audio\22,\22data\22:\22UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA\22,\22mimeType\22:\22audio/wav\22}]}")
  ;; tool name test_embedded_resource: 22 bytes at 3104
  (data (i32.const 3104) "test_embedded_resource")
  ;; result of test_embedded_resource: 150 bytes at 3136
  (data (i32.const 3136) "{\22content\22:[{\22type\22:\22resource\22,\22resource\22:{\22uri\22:\22test://embedded-resource\22,\22mimeType\22:\22text/plain\22,\22text\22:\22This is an embedded resource content.\22}}]}")
  ;; tool name test_multiple_content_types: 27 bytes at 3296
  (data (i32.const 3296) "test_multiple_content_types")
  ;; result of test_multiple_content_types: 357 bytes at 3328
  (data (i32.const 3328) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22Multiple content types test:\22},{\22type\22:\22image\22,\22data\22:\22iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==\22,\22mimeType\22:\22image/png\22},{\22type\22:\22resource\22,\22resource\22:{\22uri\22:\22test://mixed-content-resource\22,\22mimeType\22:\22application/json\22,\22text\22:\22{\5c\22test\5c\22:\5c\22data\5c\22,\5c\22value\5c\22:123}\22}}]}")
  ;; tool name test_tool_with_logging: 22 bytes at 3696
  (data (i32.const 3696) "test_tool_with_logging")
  ;; result of test_tool_with_logging: 78 bytes at 3728
  (data (i32.const 3728) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22Tool with logging executed successfully\22}]}")
  ;; tool name test_error_handling: 19 bytes at 3808
  (data (i32.const 3808) "test_error_handling")
  ;; result of test_error_handling: 106 bytes at 3840
  (data (i32.const 3840) "{\22isError\22:true,\22content\22:[{\22type\22:\22text\22,\22text\22:\22This tool intentionally returns an error for testing\22}]}")
  ;; tool name test_tool_with_progress: 23 bytes at 3952
  (data (i32.const 3952) "test_tool_with_progress")
  ;; result of test_tool_with_progress: 79 bytes at 3984
  (data (i32.const 3984) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22Tool with progress executed successfully\22}]}")
  ;; tool name json_schema_2020_12_tool: 24 bytes at 4064
  (data (i32.const 4064) "json_schema_2020_12_tool")
  ;; result of json_schema_2020_12_tool: 70 bytes at 4096
  (data (i32.const 4096) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22JSON Schema 2020-12 tool called\22}]}")
  ;; result for an unknown tool name: 66 bytes at 4176
  (data (i32.const 4176) "{\22isError\22:true,\22content\22:[{\22type\22:\22text\22,\22text\22:\22unknown tool\22}]}")
  ;; log line: 22 bytes at 4256
  (data (i32.const 4256) "Tool execution started")
  ;; log line: 20 bytes at 4288
  (data (i32.const 4288) "Tool processing data")
  ;; log line: 24 bytes at 4320
  (data (i32.const 4320) "Tool execution completed")

  ;; --- resources (mcpwasm_read) ----------------------------------------------------------
  ;; resource URI: 18 bytes at 4352
  (data (i32.const 4352) "test://static-text")
  ;; contents of test://static-text: 125 bytes at 4384
  (data (i32.const 4384) "{\22contents\22:[{\22uri\22:\22test://static-text\22,\22mimeType\22:\22text/plain\22,\22text\22:\22This is the content of the static text resource.\22}]}")
  ;; resource URI: 20 bytes at 4512
  (data (i32.const 4512) "test://static-binary")
  ;; contents of test://static-binary (the PNG of test_image_content): 174 bytes at 4544
  (data (i32.const 4544) "{\22contents\22:[{\22uri\22:\22test://static-binary\22,\22mimeType\22:\22image/png\22,\22blob\22:\22iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==\22}]}")
  ;; template test://template/{id}/data: the part before {id}: 16 bytes at 4720
  (data (i32.const 4720) "test://template/")
  ;; template: the part after {id}: 5 bytes at 4736
  (data (i32.const 4736) "/data")
  ;; template contents, piece 1; then the URI: 21 bytes at 4752
  (data (i32.const 4752) "{\22contents\22:[{\22uri\22:\22")
  ;; template contents, piece 2; then the id (inside a JSON string inside a JSON string): 50 bytes at 4784
  (data (i32.const 4784) "\22,\22mimeType\22:\22application/json\22,\22text\22:\22{\5c\22id\5c\22:\5c\22")
  ;; template contents, piece 3; then the id again: 49 bytes at 4848
  (data (i32.const 4848) "\5c\22,\5c\22templateTest\5c\22:true,\5c\22data\5c\22:\5c\22Data for ID: ")
  ;; template contents, piece 4 (end): 7 bytes at 4912
  (data (i32.const 4912) "\5c\22}\22}]}")
  ;; error: unknown resource (-32002): 44 bytes at 4928
  (data (i32.const 4928) "{\22error\22:\22resource not found\22,\22code\22:-32002}")

  ;; --- prompts (mcpwasm_prompt) ----------------------------------------------------------
  ;; prompt name: 18 bytes at 4976
  (data (i32.const 4976) "test_simple_prompt")
  ;; messages of test_simple_prompt: 102 bytes at 5008
  (data (i32.const 5008) "{\22messages\22:[{\22role\22:\22user\22,\22content\22:{\22type\22:\22text\22,\22text\22:\22This is a simple prompt for testing.\22}}]}")
  ;; prompt name: 26 bytes at 5120
  (data (i32.const 5120) "test_prompt_with_arguments")
  ;; argument name: 4 bytes at 5152
  (data (i32.const 5152) "arg1")
  ;; argument name: 4 bytes at 5168
  (data (i32.const 5168) "arg2")
  ;; test_prompt_with_arguments messages, piece 1; then arg1: 90 bytes at 5184
  (data (i32.const 5184) "{\22messages\22:[{\22role\22:\22user\22,\22content\22:{\22type\22:\22text\22,\22text\22:\22Prompt with arguments: arg1='")
  ;; piece 2; then arg2: 9 bytes at 5280
  (data (i32.const 5280) "', arg2='")
  ;; piece 3 (end): 6 bytes at 5296
  (data (i32.const 5296) "'\22}}]}")
  ;; prompt name: 34 bytes at 5312
  (data (i32.const 5312) "test_prompt_with_embedded_resource")
  ;; argument name: 11 bytes at 5360
  (data (i32.const 5360) "resourceUri")
  ;; test_prompt_with_embedded_resource messages, piece 1; then resourceUri: 76 bytes at 5376
  (data (i32.const 5376) "{\22messages\22:[{\22role\22:\22user\22,\22content\22:{\22type\22:\22resource\22,\22resource\22:{\22uri\22:\22")
  ;; piece 2 (end): 173 bytes at 5456
  (data (i32.const 5456) "\22,\22mimeType\22:\22text/plain\22,\22text\22:\22Embedded resource content for testing.\22}}},{\22role\22:\22user\22,\22content\22:{\22type\22:\22text\22,\22text\22:\22Please process the embedded resource above.\22}}]}")
  ;; prompt name: 22 bytes at 5632
  (data (i32.const 5632) "test_prompt_with_image")
  ;; messages of test_prompt_with_image: 269 bytes at 5664
  (data (i32.const 5664) "{\22messages\22:[{\22role\22:\22user\22,\22content\22:{\22type\22:\22image\22,\22data\22:\22iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==\22,\22mimeType\22:\22image/png\22}},{\22role\22:\22user\22,\22content\22:{\22type\22:\22text\22,\22text\22:\22Please analyze the image above.\22}}]}")
  ;; error: missing or malformed prompt argument (-32602): 62 bytes at 5936
  (data (i32.const 5936) "{\22error\22:\22missing or malformed prompt argument\22,\22code\22:-32602}")
  ;; error: unknown prompt (-32602): 40 bytes at 6000
  (data (i32.const 6000) "{\22error\22:\22unknown prompt\22,\22code\22:-32602}")
  ;; error: no memory for the answer (-32603): 39 bytes at 6048
  (data (i32.const 6048) "{\22error\22:\22out of memory\22,\22code\22:-32603}")

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  (func (export "mcpwasm_describe") (result i64)
    (i64.const 68719479331) (; ptr 16, len 2595 ;))

  ;; --- memory ------------------------------------------------------------------------------

  ;; $ensure: grows memory so that [0, end) is addressable; 0 if it cannot.
  (func $ensure (param $end i32) (result i32)
    (local $have i32)
    (local.set $have (i32.mul (memory.size) (i32.const 65536)))
    (if (i32.le_u (local.get $end) (local.get $have)) (then (return (i32.const 1))))
    (i32.ne (memory.grow (i32.div_u (i32.add (i32.sub (local.get $end) (local.get $have)) (i32.const 65535))
                                    (i32.const 65536)))
            (i32.const -1)))

  ;; One input region at 65536 (page 1 on); grow memory to fit.
  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (if (i32.eqz (call $ensure (i32.add (i32.const 65536) (local.get $n))))
      (then (return (i32.const 0))))
    (global.set $in_end (i32.add (i32.const 65536) (local.get $n)))
    (i32.const 65536))

  ;; $begin: starts building an answer of at most max bytes after the input region; returns
  ;; its start, or 0 if memory cannot grow that far.
  (func $begin (param $max i32) (result i32)
    (local $start i32)
    (local.set $start (i32.and (i32.add (global.get $in_end) (i32.const 15)) (i32.const -16)))
    (if (i32.eqz (call $ensure (i32.add (local.get $start) (local.get $max))))
      (then (return (i32.const 0))))
    (global.set $w (local.get $start))
    (local.get $start))

  ;; $put: appends the bytes (src, len) to the answer.
  (func $put (param $src i32) (param $len i32)
    (memory.copy (global.get $w) (local.get $src) (local.get $len))
    (global.set $w (i32.add (global.get $w) (local.get $len))))

  ;; $put_packed: appends the bytes of a packed (ptr << 32) | len region.
  (func $put_packed (param $r i64)
    (call $put (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))) (i32.wrap_i64 (local.get $r))))

  ;; $end: the packed region of the answer that started at start.
  (func $end (param $start i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $start)) (i64.const 32))
            (i64.extend_i32_u (i32.sub (global.get $w) (local.get $start)))))

  ;; --- bytes and JSON ----------------------------------------------------------------------

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

  ;; $byte: the byte at p, or -1 if p is at or past end.
  (func $byte (param $p i32) (param $end i32) (result i32)
    (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
    (i32.load8_u (local.get $p)))

  ;; $skip_ws: the first position at or after p (before end) that is not JSON whitespace.
  (func $skip_ws (param $p i32) (param $end i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (local.set $c (call $byte (local.get $p) (local.get $end)))
        (br_if $done (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x20))    ;; space
                                              (i32.eq (local.get $c) (i32.const 0x09)))   ;; \t
                                      (i32.or (i32.eq (local.get $c) (i32.const 0x0a))    ;; \n
                                              (i32.eq (local.get $c) (i32.const 0x0d)))))) ;; \r
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  ;; $str_end: given p just after the opening quote of a JSON string, the position of its
  ;; closing quote (escapes skipped), or -1 if the string does not end before end.
  (func $str_end (param $p i32) (param $end i32) (result i32)
    (local $c i32)
    (block $fail
      (loop $next
        (br_if $fail (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.eq (local.get $c) (i32.const 0x22)) (then (return (local.get $p)))) ;; "
        (local.set $p (i32.add (local.get $p)
                               (select (i32.const 2) (i32.const 1) (i32.eq (local.get $c) (i32.const 0x5c))))) ;; \ skips one more
        (br $next)))
    (i32.const -1))

  ;; $arg: in the JSON object of strings (args, alen) — the prompt arguments — the value of
  ;; member key, as the packed region of its still-escaped body (what is between the quotes;
  ;; copied as is into a JSON string it means the same string). -1 if absent or malformed.
  (func $arg (param $args i32) (param $alen i32) (param $key i32) (param $klen i32) (result i64)
    (local $p i32) (local $end i32) (local $k i32) (local $kend i32) (local $v i32) (local $vend i32)
    (local.set $end (i32.add (local.get $args) (local.get $alen)))
    (local.set $p (call $skip_ws (local.get $args) (local.get $end)))
    (if (i32.ne (call $byte (local.get $p) (local.get $end)) (i32.const 0x7b)) ;; {
      (then (return (i64.const -1))))
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (loop $member
      ;; "key" (a "}" here, as in {}, ends the search too)
      (local.set $p (call $skip_ws (local.get $p) (local.get $end)))
      (if (i32.ne (call $byte (local.get $p) (local.get $end)) (i32.const 0x22)) ;; "
        (then (return (i64.const -1))))
      (local.set $k (i32.add (local.get $p) (i32.const 1)))
      (local.set $kend (call $str_end (local.get $k) (local.get $end)))
      (if (i32.eq (local.get $kend) (i32.const -1)) (then (return (i64.const -1))))
      ;; :
      (local.set $p (call $skip_ws (i32.add (local.get $kend) (i32.const 1)) (local.get $end)))
      (if (i32.ne (call $byte (local.get $p) (local.get $end)) (i32.const 0x3a)) ;; :
        (then (return (i64.const -1))))
      ;; "value"
      (local.set $p (call $skip_ws (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
      (if (i32.ne (call $byte (local.get $p) (local.get $end)) (i32.const 0x22)) ;; "
        (then (return (i64.const -1))))
      (local.set $v (i32.add (local.get $p) (i32.const 1)))
      (local.set $vend (call $str_end (local.get $v) (local.get $end)))
      (if (i32.eq (local.get $vend) (i32.const -1)) (then (return (i64.const -1))))
      (if (call $eq (local.get $k) (i32.sub (local.get $kend) (local.get $k)) (local.get $key) (local.get $klen))
        (then
          (return (i64.or (i64.shl (i64.extend_i32_u (local.get $v)) (i64.const 32))
                          (i64.extend_i32_u (i32.sub (local.get $vend) (local.get $v)))))))
      ;; "," and the next member, or the end
      (local.set $p (call $skip_ws (i32.add (local.get $vend) (i32.const 1)) (local.get $end)))
      (if (i32.eq (call $byte (local.get $p) (local.get $end)) (i32.const 0x2c)) ;; ,
        (then
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $member))))
    (i64.const -1))

  ;; $uri_safe: 1 if every byte of (p, n) is an RFC 3986 unreserved character or "%", so that
  ;; it needs no escaping even inside a JSON string inside a JSON string.
  (func $uri_safe (param $p i32) (param $n i32) (result i32)
    (local $end i32) (local $c i32)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.eqz (i32.or
              (i32.or (i32.and (i32.ge_u (local.get $c) (i32.const 0x30)) (i32.le_u (local.get $c) (i32.const 0x39)))  ;; 0-9
                      (i32.and (i32.ge_u (local.get $c) (i32.const 0x41)) (i32.le_u (local.get $c) (i32.const 0x5a)))) ;; A-Z
              (i32.or (i32.and (i32.ge_u (local.get $c) (i32.const 0x61)) (i32.le_u (local.get $c) (i32.const 0x7a)))  ;; a-z
                      (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (i32.eq (local.get $c) (i32.const 0x2e)))  ;; - .
                              (i32.or (i32.eq (local.get $c) (i32.const 0x5f))                                           ;; _
                                      (i32.or (i32.eq (local.get $c) (i32.const 0x7e)) (i32.eq (local.get $c) (i32.const 0x25)))))))) ;; ~ %
          (then (return (i32.const 0))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (i32.const 1))

  ;; --- tools -------------------------------------------------------------------------------

  (func (export "mcpwasm_call") (param $name i32) (param $nlen i32) (param $args i32) (param $alen i32) (result i64)
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 2624) (i32.const 16)) ;; test_simple_text
      (then
        (return (i64.const 11338713661522) (; ptr 2640, len 82 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 2736) (i32.const 18)) ;; test_image_content
      (then
        (return (i64.const 11888469475487) (; ptr 2768, len 159 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 2928) (i32.const 18)) ;; test_audio_content
      (then
        (return (i64.const 12713103196303) (; ptr 2960, len 143 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 3104) (i32.const 22)) ;; test_embedded_resource
      (then
        (return (i64.const 13469017440406) (; ptr 3136, len 150 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 3296) (i32.const 27)) ;; test_multiple_content_types
      (then
        (return (i64.const 14293651161445) (; ptr 3328, len 357 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 3696) (i32.const 22)) ;; test_tool_with_logging
      (then
        (drop (call $log (i32.const 1) (i32.const 4256) (i32.const 22))) ;; info: Tool execution started
        (drop (call $log (i32.const 1) (i32.const 4288) (i32.const 20))) ;; info: Tool processing data
        (drop (call $log (i32.const 1) (i32.const 4320) (i32.const 24))) ;; info: Tool execution completed
        (return (i64.const 16011638079566) (; ptr 3728, len 78 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 3808) (i32.const 19)) ;; test_error_handling
      (then
        (return (i64.const 16492674416746) (; ptr 3840, len 106 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 3952) (i32.const 23)) ;; test_tool_with_progress
      (then
        (drop (call $progress (f64.const 0) (f64.const 100) (i32.const 0) (i32.const 0)))
        (drop (call $progress (f64.const 50) (f64.const 100) (i32.const 0) (i32.const 0)))
        (drop (call $progress (f64.const 100) (f64.const 100) (i32.const 0) (i32.const 0)))
        (return (i64.const 17111149707343) (; ptr 3984, len 79 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 4064) (i32.const 24)) ;; json_schema_2020_12_tool
      (then
        (return (i64.const 17592186044486) (; ptr 4096, len 70 ;))))
    (i64.const 17935783428162) (; ptr 4176, len 66 ;))

  ;; --- resources ---------------------------------------------------------------------------

  (func (export "mcpwasm_read") (param $uri i32) (param $ulen i32) (result i64)
    (local $id i32) (local $idlen i32) (local $start i32)
    (if (call $eq (local.get $uri) (local.get $ulen) (i32.const 4352) (i32.const 18)) ;; test://static-text
      (then
        (return (i64.const 18829136625789) (; ptr 4384, len 125 ;))))
    (if (call $eq (local.get $uri) (local.get $ulen) (i32.const 4512) (i32.const 20)) ;; test://static-binary
      (then
        (return (i64.const 19516331393198) (; ptr 4544, len 174 ;))))
    ;; test://template/{id}/data: a non-empty id of URI-safe characters
    (if (i32.gt_u (local.get $ulen) (i32.const 21 (; 16 + 5 ;)))
      (then
        (local.set $id (i32.add (local.get $uri) (i32.const 16)))
        (local.set $idlen (i32.sub (local.get $ulen) (i32.const 21 (; 16 + 5 ;))))
        (if (i32.and (i32.and (call $eq (local.get $uri) (i32.const 16) (i32.const 4720) (i32.const 16)) ;; test://template/
                              (call $eq (i32.add (local.get $id) (local.get $idlen)) (i32.const 5)
                                        (i32.const 4736) (i32.const 5))) ;; /data
                     (call $uri_safe (local.get $id) (local.get $idlen)))
          (then
            ;; the pieces, the URI and the id twice: at most pieces + 3 * ulen bytes
            (local.set $start (call $begin (i32.add (i32.const 127 (; 21 + 50 + 49 + 7 ;))
                                                    (i32.mul (local.get $ulen) (i32.const 3)))))
            (if (i32.eqz (local.get $start)) (then (return (i64.const 25975962206247) (; ptr 6048, len 39 ;))))
            (call $put (i32.const 4752) (i32.const 21)) ;; {"contents":[{"uri":"
            (call $put (local.get $uri) (local.get $ulen))
            (call $put (i32.const 4784) (i32.const 50)) ;; ","mimeType":"application/json","text":"{\"id\":\"
            (call $put (local.get $id) (local.get $idlen))
            (call $put (i32.const 4848) (i32.const 49)) ;; \",\"templateTest\":true,\"data\":\"Data for ID: <id>
            (call $put (local.get $id) (local.get $idlen))
            (call $put (i32.const 4912) (i32.const 7)) ;; \"}"}]}
            (return (call $end (local.get $start)))))))
    (i64.const 21165598834732) (; ptr 4928, len 44 ;))

  ;; --- prompts -----------------------------------------------------------------------------

  (func (export "mcpwasm_prompt") (param $name i32) (param $nlen i32) (param $args i32) (param $alen i32) (result i64)
    (local $v1 i64) (local $v2 i64) (local $start i32)
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 4976) (i32.const 18)) ;; test_simple_prompt
      (then
        (return (i64.const 21509196218470) (; ptr 5008, len 102 ;))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 5120) (i32.const 26)) ;; test_prompt_with_arguments
      (then
        (local.set $v1 (call $arg (local.get $args) (local.get $alen) (i32.const 5152) (i32.const 4))) ;; arg1
        (local.set $v2 (call $arg (local.get $args) (local.get $alen) (i32.const 5168) (i32.const 4))) ;; arg2
        (if (i32.or (i64.eq (local.get $v1) (i64.const -1)) (i64.eq (local.get $v2) (i64.const -1)))
          (then (return (i64.const 25494925869118) (; ptr 5936, len 62 ;))))
        ;; the pieces and both values (together shorter than the arguments)
        (local.set $start (call $begin (i32.add (i32.const 105 (; 90 + 9 + 6 ;)) (local.get $alen))))
        (if (i32.eqz (local.get $start)) (then (return (i64.const 25975962206247) (; ptr 6048, len 39 ;))))
        (call $put (i32.const 5184) (i32.const 90)) ;; ...Prompt with arguments: arg1='
        (call $put_packed (local.get $v1))
        (call $put (i32.const 5280) (i32.const 9)) ;; ', arg2='
        (call $put_packed (local.get $v2))
        (call $put (i32.const 5296) (i32.const 6)) ;; '"}}]}
        (return (call $end (local.get $start)))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 5312) (i32.const 34)) ;; test_prompt_with_embedded_resource
      (then
        (local.set $v1 (call $arg (local.get $args) (local.get $alen) (i32.const 5360) (i32.const 11))) ;; resourceUri
        (if (i64.eq (local.get $v1) (i64.const -1)) (then (return (i64.const 25494925869118) (; ptr 5936, len 62 ;))))
        (local.set $start (call $begin (i32.add (i32.const 249 (; 76 + 173 ;)) (local.get $alen))))
        (if (i32.eqz (local.get $start)) (then (return (i64.const 25975962206247) (; ptr 6048, len 39 ;))))
        (call $put (i32.const 5376) (i32.const 76)) ;; ...{"type":"resource","resource":{"uri":"
        (call $put_packed (local.get $v1))
        (call $put (i32.const 5456) (i32.const 173)) ;; ","mimeType":"text/plain",... then a text message
        (return (call $end (local.get $start)))))
    (if (call $eq (local.get $name) (local.get $nlen) (i32.const 5632) (i32.const 22)) ;; test_prompt_with_image
      (then
        (return (i64.const 24326694764813) (; ptr 5664, len 269 ;))))
    (i64.const 25769803776040) (; ptr 6000, len 40 ;))
)
