// Package httpbound holds the bounds of every HTTP server synth runs
// (synth serve, synth emulate): how long a client may take to send a
// request's headers and its body, how long an idle connection is kept,
// and how large the headers may be. Without them a client that sends one
// byte a second, or opens connections and sends nothing, holds a
// connection and its goroutine for good; a few hundred such clients take
// the server down. Bodies are bounded by each handler, which knows its
// requests (http.MaxBytesReader).
package httpbound
