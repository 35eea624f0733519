// Package tools runs a domain's typed tools against per-episode copy-on-write state.
package tools
