// Package suggest finds the known name closest to a misspelt one, for the
// "did you mean" of an error: a pack's unknown key or handler, a run
// config's unknown key, a command's unknown flag or verb. One rule
// everywhere, so every message suggests alike. JSONFields lists the keys a
// Go struct decodes, the known words of a document's keys.
package suggest
