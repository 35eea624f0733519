// Package httpbound holds the bounds of every HTTP server synth runs
// (synth serve, synth emulate): how long a client may take to send a
// request's headers and its body, how long an idle connection is kept,
// and how large the headers may be. Without them a client that sends one
// byte a second, or opens connections and sends nothing, holds a
// connection and its goroutine for good; a few hundred such clients take
// the server down. Bodies are bounded by each handler, which knows its
// requests (http.MaxBytesReader).
package httpbound

import (
	"log"
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
