package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// inspectConfig is `mcpwasm inspect --config FILE` without a guest: every guest of the
// config (OCI ones from the local store or registry, as serve gets them), with its tools,
// resources, prompts and effective grants, in config order. Then what serve would refuse
// to start with once the guests are loaded — tool names that clash (clashes.go), in serve's
// words — on stderr, with serve's exit code (ExitLoad): the description is printed in full
// first, since it is what shows which tools to rename.
func inspectConfig(ctx context.Context, hf *hostFlags, sf *shipFlags, asJSON bool, logger *slog.Logger, stdout, stderr io.Writer) (int, error) {
	specs, cfg, err := guestSpecs(ctx, sf, stderr, hf.config, nil, hf.limits(), hf.isolation, true) // isolation validated by the caller
	if err != nil {
		return ExitLoad, err
	}
	h, err := hf.host(ctx, logger)
	if err != nil {
		return ExitError, err
	}
	defer h.Close(context.Background())
	var servers []*serverInspect // whole-server guests (wasiservers.go), shown after the others
	var rest []guestSpec
	for _, sp := range specs {
		if sp.wasm == nil || !h.IsWASIServer(sp.wasm) {
			rest = append(rest, sp)
			continue
		}
		si, err := inspectServerOf(ctx, h, sp.wasm, sp.cfg, logger)
		if err != nil {
			return ExitLoad, fmt.Errorf("%s: %w", sp.entry, err)
		}
		servers = append(servers, si)
	}
	specs = rest
	gs, err := loadAll(ctx, h, specs, logger)
	if err != nil {
		return ExitLoad, err
	}
	outs := make([]inspectOutput, len(gs))
	for i, g := range gs {
		wasm := specs[i].wasm
		if wasm == nil && specs[i].path != "" {
			if wasm, err = os.ReadFile(specs[i].path); err != nil {
				return ExitLoad, err
			}
		}
		outs[i] = inspectResult(g, specs[i].cfg.Source, wasm, true)
	}
	if asJSON {
		all := make([]any, 0, len(outs)+len(servers))
		for i := range outs {
			all = append(all, &outs[i])
		}
		for _, si := range servers {
			all = append(all, si)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(all); err != nil {
			return ExitOK, err
		}
	} else {
		for i := range outs {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			writeInspect(stdout, &outs[i])
		}
		for i, si := range servers {
			if i > 0 || len(outs) > 0 {
				fmt.Fprintln(stdout)
			}
			writeServerInspect(stdout, si)
		}
	}
	if err := toolNameClashes(gs, cfg.Status, servers...); err != nil {
		return ExitLoad, err
	}
	return ExitOK, nil
}

// inspectResult is what inspect shows of a loaded guest; withGrants adds the grants.
func inspectResult(g *runtime.Guest, source string, wasm []byte, withGrants bool) inspectOutput {
	sum := sha256.Sum256(wasm)
	out := inspectOutput{Kind: g.Kind(), KindVersion: g.KindVersion(), Source: source, SHA256: hex.EncodeToString(sum[:]), Bytes: len(wasm), Manifest: *g.Manifest()}
	out.Name = g.Name() // the config may rename the guest
	if withGrants {
		out.Grants = map[string]toolGrants{}
		for _, t := range g.Manifest().Tools {
			granted, eff, _ := g.ToolGrants(t.Name)
			out.Grants[t.Name] = toolGrants{Granted: describeGrants(granted), Effective: describeGrants(eff)}
		}
		out.NotGranted = g.Ungranted()
	}
	return out
}

// writeInspectServed lists a guest's resources, resource templates and prompts (the human
// form showed tools only; --json had them).
func writeInspectServed(w io.Writer, o *inspectOutput) {
	titled := func(name, title string) string {
		if title != "" {
			return name + " — " + title
		}
		return name
	}
	resource := func(uri, name, title, mime, desc string) {
		fmt.Fprintf(w, "  %s  %s", uri, titled(name, title))
		if mime != "" {
			fmt.Fprintf(w, " (%s)", mime)
		}
		fmt.Fprintln(w)
		if desc != "" {
			fmt.Fprintf(w, "    %s\n", desc)
		}
	}
	if n := len(o.Resources); n > 0 {
		fmt.Fprintf(w, "resources (%d):\n", n)
		for _, r := range o.Resources {
			resource(r.URI, r.Name, r.Title, r.MIMEType, r.Description)
		}
	}
	if n := len(o.ResourceTemplates); n > 0 {
		fmt.Fprintf(w, "resource templates (%d):\n", n)
		for _, r := range o.ResourceTemplates {
			resource(r.URITemplate, r.Name, r.Title, r.MIMEType, r.Description)
		}
	}
	if n := len(o.Prompts); n > 0 {
		fmt.Fprintf(w, "prompts (%d):\n", n)
		for _, p := range o.Prompts {
			var args []string
			for _, a := range p.Arguments {
				if a.Required {
					args = append(args, a.Name)
				} else {
					args = append(args, a.Name+"?")
				}
			}
			fmt.Fprintf(w, "  %s\n", titled(p.Name+"("+strings.Join(args, ", ")+")", p.Title))
			if p.Description != "" {
				fmt.Fprintf(w, "    %s\n", p.Description)
			}
		}
	}
}
