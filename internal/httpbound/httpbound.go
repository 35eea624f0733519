package httpbound

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Bounds of a server's connections.
const (
	// ReadTimeout is the default time a request, headers and body, may
	// take to arrive: synth's requests are kilobytes.
	ReadTimeout = 30 * time.Second
	// HeaderTimeout bounds the headers alone.
	HeaderTimeout = 10 * time.Second
	// IdleTimeout ends a kept-alive connection no request came on.
	IdleTimeout = 2 * time.Minute
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes = 64 << 10
)

// Server is an http.Server for h with synth's bounds; read is the time a
// whole request may take to arrive (0 for ReadTimeout). Responses are not
// bounded in time: a step of synth serve may wait on a model.
func Server(h http.Handler, read time.Duration, errorLog *log.Logger) *http.Server {
	if read <= 0 {
		read = ReadTimeout
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(HeaderTimeout, read),
		ReadTimeout:       read,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          errorLog,
	}
}

// ShutdownGrace is how long requests in flight may run on once the
// context of Serve ends.
const ShutdownGrace = 10 * time.Second

// Serve serves hs on ln until ctx ends, then gives the requests in flight
// ShutdownGrace to finish before closing them; stopped runs once the
// server no longer takes requests. It closes ln.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, logger *slog.Logger, stopped func()) error {
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		logger.Warn("requests still running after the grace period; closing", "grace", ShutdownGrace)
		_ = hs.Close()
	}
	if stopped != nil {
		stopped()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	}
	return nil
}
