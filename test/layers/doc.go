// Package layers holds the rule that imports run one way: a stage never
// imports one after it, so data flows config → blueprint → episode →
// trajectory → verdict → row → file and a package can be read knowing
// only those above it; and that the contracts (release, verify, credit,
// engine, domain, dpo) depend on no built-in domain and no engine
// implementation, however indirectly. It also holds the tree to one rule
// of hygiene: no merge conflict markers in any source or document.
package layers
