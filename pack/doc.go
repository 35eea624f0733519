// Package pack loads, validates and scaffolds domain packs: folders that define a domain with a manifest, OpenAI tools, sandboxed Starlark handlers, a database and a policy.
package pack
