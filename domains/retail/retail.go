package retail

import (
	"embed"
	"io/fs"

	"github.com/synth-data/synth/domains/tau2"
)

// Name is the domain's name, as used by --domain.
const Name = "retail"

//go:embed domain.yaml generator.star policy.star policy.md
var files embed.FS

// FS returns the pack's files: its own, and tools.json from the τ²
// retail handler set it runs on.
func FS() fs.FS { return tau2.PackFS(files, tau2.RetailTools()) }
