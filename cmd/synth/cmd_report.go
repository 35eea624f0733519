package main

import (
	"context"
	"io"
)

func cmdReport(ctx context.Context, args []string, stdout io.Writer) error { return nil }
