//go:build !unix

package main

import (
	"context"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/runtime"
)

func watchStopSignals(ctx context.Context, h *runtime.Host, logger *slog.Logger) {}
