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
