package airline

import (
	"embed"
	"io/fs"
)

// Name is the domain's name, as --domain takes it.
const Name = "airline"

//go:embed domain.yaml tools.json handlers.star generator.star policy.md
var files embed.FS

// FS serves the pack's files (domain.yaml, tools.json, handlers.star,
// generator.star, policy.md) at its root, ready for pack.Load.
func FS() fs.FS { return files }
