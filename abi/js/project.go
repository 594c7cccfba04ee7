package js

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// lockfile is the projects' package-lock.json with the package named lockName: esbuild,
// quickjs-wasi, zod, the MCP TypeScript SDK and TypeScript at the versions of Dependencies.
//
//go:embed package-lock.json
var lockfile string

const lockName = "mcpwasm-guest"

// Dependencies are a project's devDependencies, pinned exactly (the lockfile holds the same).
// @modelcontextprotocol/sdk is the v1 line the shim follows, there for its types only (an
// editor's and `npm run check`'s): the build points its imports at mcpwasm/sdk.js, so it is
// never bundled. typescript runs `npm run check` (tsc --noEmit).
var Dependencies = map[string]string{"@modelcontextprotocol/sdk": "1.32.2", "@types/node": "22.20.7", "esbuild": "0.28.2", "quickjs-wasi": "3.7.0", "typescript": "7.0.2", "zod": "4.6.7"}

// TSConfig is a project's tsconfig.json: what `npm run check` (tsc --noEmit) and an editor
// check the server script with. A JavaScript project is checked too (allowJs, checkJs), less
// strictly.
func TSConfig(lang string) []byte {
	opts := `    "target": "es2023",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true,
    "types": ["node"]
`
	include := `"*.ts"`
	if lang == "js" {
		opts = strings.Replace(opts, `"strict": true`, `"allowJs": true,
    "checkJs": true`, 1)
		include = `"*.js"`
	}
	return []byte("{\n  \"compilerOptions\": {\n" + opts + "  },\n  \"include\": [" + include + "]\n}\n")
}

// PackageJSON is a project's package.json: its name, its build script for entry and the pinned
// dependencies. What the guest asks for is read off its files by the build unless the
// package.json lists it ("mcpwasm": {"requests": {…}}).
func PackageJSON(name, entry string) []byte {
	type pkg struct {
		Name            string            `json:"name"`
		Version         string            `json:"version"`
		Private         bool              `json:"private"`
		Type            string            `json:"type"`
		Scripts         map[string]string `json:"scripts"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	b, _ := json.MarshalIndent(pkg{
		Name: name, Version: "0.1.0", Private: true, Type: "module",
		Scripts:         map[string]string{"build": fmt.Sprintf("node mcpwasm/build.mjs %s %s.wasm", entry, name), "check": "tsc --noEmit -p ."},
		DevDependencies: Dependencies,
	}, "", "  ")
	return append(b, '\n')
}

// Lockfile is package-lock.json for a project named name.
func Lockfile(name string) []byte {
	return []byte(strings.ReplaceAll(lockfile, `"name": "`+lockName+`"`, `"name": "`+name+`"`))
}

// Project returns the files of a new JavaScript ("js") or TypeScript ("ts") guest project
// named name, by path: package.json and its lockfile, the server script with one tool
// (name), mcpwasm/ (Shim, SDK, Build), README.md and .gitignore.
func Project(lang, name string) (map[string][]byte, error) {
	var entry, server string
	switch lang {
	case "ts":
		entry, server = "server.ts", serverTS
	case "js":
		entry, server = "server.js", serverJS
	default:
		return nil, fmt.Errorf("unknown JavaScript language %q (want js or ts)", lang)
	}
	r := strings.NewReplacer("NAME", name, "ENTRY", entry)
	files := map[string][]byte{
		"package.json":      PackageJSON(name, entry),
		"package-lock.json": Lockfile(name),
		"tsconfig.json":     TSConfig(lang),
		entry:               []byte(r.Replace(server)),
		"README.md":         []byte(r.Replace(readme)),
		".gitignore":        []byte("node_modules/\n/" + name + ".wasm\n"),
	}
	for p, b := range Files() {
		files["mcpwasm/"+p] = b
	}
	return files, nil
}

const serverTS = `// NAME — an MCP server written for the TypeScript SDK, built by mcpwasm into one sandboxed
// NAME.wasm (npm ci && npm run build). The SDK imports are pointed at mcpwasm's shim by the
// build, so this file also runs unchanged under Node with the real SDK.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "NAME", version: "0.1.0" });

server.registerTool(
  "NAME",
  { description: "Greets someone by name", inputSchema: { name: z.string().min(1).describe("who to greet") } },
  async ({ name }: { name: string }) => ({ content: [{ type: "text", text: ` + "`hello, ${name}`" + ` }] }),
);

await server.connect(new StdioServerTransport());
`

const serverJS = `// NAME — an MCP server written for the TypeScript SDK, built by mcpwasm into one sandboxed
// NAME.wasm (npm ci && npm run build). The SDK imports are pointed at mcpwasm's shim by the
// build, so this file also runs unchanged under Node with the real SDK.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "NAME", version: "0.1.0" });

server.registerTool(
  "NAME",
  { description: "Greets someone by name", inputSchema: { name: z.string().min(1).describe("who to greet") } },
  async ({ name }) => ({ content: [{ type: "text", text: ` + "`hello, ${name}`" + ` }] }),
);

await server.connect(new StdioServerTransport());
`

const readme = "# NAME\n\n" +
	"An mcpwasm guest written for the MCP TypeScript SDK, with one tool, `NAME`. Created by `mcpwasm new`.\n\n" +
	"```sh\n" +
	"npm ci                      # esbuild, quickjs-wasi (the engine), zod, and for types the SDK and TypeScript, from package-lock.json\n" +
	"npm run check               # tsc --noEmit: ENTRY against the SDK's types (never bundled)\n" +
	"npm run build               # NAME.wasm: the engine + ENTRY, bundled, in one file\n" +
	"mcpwasm serve NAME.wasm\n" +
	"mcpwasm call NAME '{\"name\":\"Ada\"}' -- mcpwasm serve NAME.wasm\n" +
	"```\n\n" +
	"The build (mcpwasm/build.mjs) points the SDK's server imports at mcpwasm/sdk.js and Node's\n" +
	"built-ins with a sandbox meaning (path, url, util, events, stream, fs, os, crypto, …) at\n" +
	"mcpwasm/node/; one without (node:net, child_process, …) is a stub that throws on use, listed\n" +
	"as a warning (--strict fails the build). fetch, process.env, node:fs, crypto, timers and\n" +
	"console work through the operator's grants; extra.signal aborts when the client cancels a call or its time limit nears. What the guest\n" +
	"asks for is read off ENTRY (fetch → net \"*:*\" (any host and port granted), process.env.API_KEY → env API_KEY,\n" +
	"node:fs/promises → fs: the directories its absolute paths name, …; the build\n" +
	"prints it); to list it yourself, add \"mcpwasm\": {\"requests\": {\"net\": [\"api.example.com\"]}}\n" +
	"to package.json.\n"
