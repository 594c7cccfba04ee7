package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwasm/mcpwasm/internal/atomicfile"
	"github.com/mcpwasm/mcpwasm/internal/hypermcp"
)

// importCmd is `mcpwasm import hyper-mcp CONFIG`: it converts a hyper-mcp configuration into
// an mcpwasm one (stdout, or -o FILE) and prints on stderr what each guest is granted and
// what was not carried over.
func importCmd(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the mcpwasm config to this file (it must not exist) instead of stdout")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return ExitUsage, err
	}
	if len(pos) != 2 || pos[0] != "hyper-mcp" {
		return ExitUsage, errors.New("want: mcpwasm import hyper-mcp CONFIG.json (or .yaml)")
	}
	src := pos[1]
	var yamlFormat bool
	switch strings.ToLower(filepath.Ext(src)) {
	case ".json":
	case ".yaml", ".yml":
		yamlFormat = true
	case ".toml":
		return ExitUsage, fmt.Errorf("%s: TOML hyper-mcp configs are not read; convert it to JSON or YAML first", src)
	default:
		return ExitUsage, fmt.Errorf("%s: want a .json, .yaml or .yml hyper-mcp config", src)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return ExitError, err
	}
	r, err := hypermcp.Convert(data, yamlFormat)
	if err != nil {
		return ExitError, fmt.Errorf("%s: %w", src, err)
	}
	b, err := r.Marshal()
	if err != nil {
		return ExitError, err
	}
	if *out == "" {
		if _, err := stdout.Write(b); err != nil {
			return ExitError, err
		}
	} else {
		if _, err := os.Stat(*out); err == nil {
			return ExitError, fmt.Errorf("%s exists; not overwriting it", *out)
		}
		if err := atomicfile.WriteFile(*out, b, 0o600); err != nil {
			return ExitError, err
		}
	}
	fmt.Fprint(stderr, r.Summary())
	return ExitOK, nil
}
