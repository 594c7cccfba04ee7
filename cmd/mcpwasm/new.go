package main

import (
	"context"
	"errors"
	"io"
)

func newProject(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	return ExitUsage, errors.New("not yet")
}
