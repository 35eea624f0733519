// Package domain is the contract every stage reads a domain through: the
// Domain type (a pack compiled into its model, with the files a release
// ships) and FromPack, which makes one of a loaded pack.
//
// It knows no domain by name. The registry of built-in domains, which
// embeds their folders and the Go handlers they run on, is package
// domains; keeping the type apart lets the verifier, the credit labels,
// the engines and the release format take a Domain without depending on
// any built-in one.
package domain
