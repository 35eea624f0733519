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

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains/airline"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/domains/tau2"
	"github.com/synth-data/synth/pack"
)

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
func Load(nameOrDir string, seed uint64) (*domain.Domain, error) {
	if fsys, ok := builtins()[nameOrDir]; ok {
		p, err := pack.Load(context.Background(), fsys, seed, PackOptions())
		if err != nil {
			return nil, fmt.Errorf("built-in domain %s: %w", nameOrDir, err)
		}
		return domain.FromPack(p)
	}
	if IsPackDir(nameOrDir) {
		p, err := pack.LoadDir(context.Background(), nameOrDir, seed, PackOptions())
		if err != nil {
			return nil, fmt.Errorf("--domain %s: %w", nameOrDir, err)
		}
		return domain.FromPack(p)
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

// OfRelease loads the domain a release in dir was made on: the built-in
// named name, else the pack the release ships in its domain/ folder.
// older reports a built-in whose version is not the release's, which
// builds another database than the release's rows were made on.
func OfRelease(dir, name, version string, seed uint64) (d *domain.Domain, older bool, err error) {
	src := name
	if !slices.Contains(Names(), src) && IsPackDir(filepath.Join(dir, "domain")) {
		src = filepath.Join(dir, "domain")
	}
	if d, err = Load(src, seed); err != nil {
		return nil, false, err
	}
	return d, src == name && d.Version != version, nil
}
