//go:build !unix

package main

import "context"

func writeErrorsOnBrokenPipe() (stop func()) { return func() {} }

func watchStopSignals(ctx context.Context, k *killSwitch) {}
