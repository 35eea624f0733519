package domains

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/synth-data/synth/domains/airline"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/domains/tau2"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// Domain is a loaded domain, ready for a run: the pack compiled into the
// model the stages share. The verifier takes its rules from the same
// model (verify.ForDomain).
type Domain struct {
	Name    string
	Version string
	Policy  string
	Tools   *tools.Toolkit
	Base    *tools.Base
	// Files are the domain's defining files, shipped in a release's
	// domain/ folder so the release re-verifies on its own.
	Files map[string][]byte
	// HoldoutFile names the file of Files holding the tasks generation
	// must not reproduce ("" for none).
	HoldoutFile string
	// Model is the compiled pack: the generator builds tasks from it, the
	// engines the customer and the agent.
	Model *model.Model
}

// builtins are the built-in domains: packs in the format users write,
// embedded in the binary. Each is a package under domains/ that embeds
// its folder and names itself (Name, FS); building one in is a line here.
func builtins() map[string]fs.FS {
	return map[string]fs.FS{retail.Name: retail.FS(), airline.Name: airline.FS()}
}

// Names lists the built-in domains.
func Names() []string {
	return slices.Sorted(maps.Keys(builtins()))
}

// Load builds a domain for a seed: a built-in by name, or the pack in a
// directory (one holding domain.yaml).
func Load(nameOrDir string, seed uint64) (*Domain, error) {
	if fsys, ok := builtins()[nameOrDir]; ok {
		p, err := pack.Load(context.Background(), fsys, seed, PackOptions())
		if err != nil {
			return nil, fmt.Errorf("built-in domain %s: %w", nameOrDir, err)
		}
		return FromPack(p)
	}
	if IsPackDir(nameOrDir) {
		p, err := pack.LoadDir(context.Background(), nameOrDir, seed, PackOptions())
		if err != nil {
			return nil, fmt.Errorf("--domain %s: %w", nameOrDir, err)
		}
		return FromPack(p)
	}
	if strings.ContainsAny(nameOrDir, `/\`) || strings.HasPrefix(nameOrDir, ".") {
		return nil, fmt.Errorf("--domain %s: no %s in that directory; give a pack directory (synth domain init DIR makes one) or a built-in domain (%s)", nameOrDir, pack.ManifestFile, strings.Join(Names(), ", "))
	}
	return nil, fmt.Errorf("unknown domain %q: built-in domains are %s, or give a pack directory (--domain)", nameOrDir, strings.Join(Names(), ", "))
}

// PackOptions are the options every pack is loaded with: the Go handler
// sets built into synth, which packs name as handlers: builtin:NAME.
func PackOptions() pack.Options {
	return pack.Options{
		Builtins: tau2.HandlerSets(),
		Databases: map[string]pack.DatabaseReader{
			"tau2-retail":  tau2.ReadRetailDB,
			"tau2-airline": tau2.ReadAirlineDB,
		},
	}
}

// IsPackDir reports whether dir holds a pack manifest.
func IsPackDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, pack.ManifestFile))
	return err == nil && !st.IsDir()
}

// FromPack makes a domain of a loaded pack: its compiled model and the
// verification rules derived from it.
func FromPack(p *pack.Pack) (*Domain, error) {
	m, err := model.NewModel(context.Background(), p)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", p.Manifest.Name, err)
	}
	d := &Domain{
		Name:        m.Name,
		Version:     m.Version,
		Policy:      p.Policy,
		Tools:       p.Tools,
		Base:        p.Base,
		Files:       p.Files,
		HoldoutFile: p.Manifest.Holdout,
		Model:       m,
	}
	return d, nil
}

// OfRelease loads the domain a release in dir was made on: the built-in
// named name, else the pack the release ships in its domain/ folder.
// older reports a built-in whose version is not the release's, which
// builds another database than the release's rows were made on.
func OfRelease(dir, name, version string, seed uint64) (d *Domain, older bool, err error) {
	src := name
	if !slices.Contains(Names(), src) && IsPackDir(filepath.Join(dir, "domain")) {
		src = filepath.Join(dir, "domain")
	}
	if d, err = Load(src, seed); err != nil {
		return nil, false, err
	}
	return d, src == name && d.Version != version, nil
}
