//go:build !unix

package main

import "context"

func watchStopSignals(ctx context.Context, k *killSwitch) {}
