package airline

import (
	"embed"
	"io/fs"

	"github.com/synth-data/synth/domains/tau2"
)

// Name is the domain's name, as --domain takes it.
const Name = "airline"

//go:embed domain.yaml generator.star policy.star policy.md
var files embed.FS

// FS serves the pack's files (domain.yaml, generator.star, policy.star,
// policy.md, and tools.json from the τ² airline handler set it runs on)
// at its root, ready for pack.Load.
func FS() fs.FS { return tau2.PackFS(files, tau2.AirlineTools()) }
