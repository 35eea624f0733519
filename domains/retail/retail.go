package retail

import (
	"embed"
	"io/fs"
)

// Name is the domain's name, as used by --domain.
const Name = "retail"

//go:embed domain.yaml tools.json generator.star policy.md
var files embed.FS

// FS returns the pack's files.
func FS() fs.FS { return files }
