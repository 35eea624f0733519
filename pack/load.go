package pack

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"github.com/synth-data/synth/tools"
)

// Options are what loading a pack needs besides its files.
type Options struct {
	// Limits bound the sandbox; the zero value means DefaultLimits.
	Limits Limits
	// Builtins are the Go handler sets a pack may name instead of a
	// Starlark file ("handlers: builtin:tau2-retail"), by name.
	Builtins map[string]HandlerSet
	// Databases read a db.json for the built-in handler set of the same
	// name: they hold it to the data model the handlers implement and
	// return it as the handlers expect it. Packs on other handlers, and
	// generated databases, are read as plain JSON.
	Databases map[string]DatabaseReader
}

// DatabaseReader turns a db.json into a database, or says which fields
// of it do not match the model.
type DatabaseReader func(data []byte) (map[string]map[string]any, error)

// HandlerSet is a built-in set of Go handlers, one per tool name: for
// domains whose tools must be fast or must match another implementation
// exactly. The pack still declares the tools in tools.json.
type HandlerSet map[string]tools.Handler

// BuiltinPrefix marks a handlers entry that names a built-in set.
const BuiltinPrefix = "builtin:"

func (o Options) limits() Limits {
	if o.Limits == (Limits{}) {
		return DefaultLimits()
	}
	return o.Limits
}

// Load reads, validates and compiles a pack. The seed feeds a generator;
// a db.json pack ignores it. Any problem fails the load with a Problems
// error listing all of them.
func Load(ctx context.Context, fsys fs.FS, seed uint64, opts Options) (*Pack, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := check(ctx, fsys, seed, opts)
	if err := ctx.Err(); err != nil {
		// A cancelled generator shows up as a problem; say why instead.
		return nil, err
	}
	if len(c.problems) > 0 {
		return nil, Problems(c.problems)
	}
	return c.build()
}

// LoadDir loads the pack in a folder. Its files are read through an
// os.Root, so a symbolic link leading outside the folder (to
// /proc/self/environ, to /) is refused: a pack's files end up in every
// training row's system message and in the release.
func LoadDir(ctx context.Context, dir string, seed uint64, opts Options) (*Pack, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("domain pack %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("domain pack %s: not a folder (a pack is a folder holding %s)", dir, ManifestFile)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("domain pack %s: %w", dir, err)
	}
	defer root.Close()
	p, err := Load(ctx, root.FS(), seed, opts)
	if err != nil {
		return nil, fmt.Errorf("domain pack %s: %w", dir, err)
	}
	return p, nil
}

// build turns a checked pack into a toolkit and a base.
func (c *checker) build() (*Pack, error) {
	sb := newSandbox(c.lim, maps.Clone(c.man.Collections))
	list := make([]*tools.Tool, 0, len(c.tools))
	for _, td := range c.tools {
		h := c.builtin[td.name]
		if h == nil {
			fn, ok := c.handlers[td.name].(*starlark.Function)
			if !ok {
				return nil, fmt.Errorf("tool %s: no handler function (validation should have caught this)", td.name)
			}
			h = sb.handler(td.name, fn)
		}
		list = append(list, &tools.Tool{
			Name:        td.name,
			Description: td.desc,
			Kind:        td.kind,
			Parameters:  td.params,
			Handler:     h,
		})
	}
	computes := map[string]tools.Handler{}
	fns, _ := c.computeFns()
	for _, name := range c.computeNames() {
		if fn, ok := fns[name].(*starlark.Function); ok {
			computes[name] = sb.handler(name, fn)
		}
	}
	kit, err := tools.NewToolkit(list)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.man.Tools, err)
	}
	if c.db == nil {
		c.db = map[string]map[string]any{}
	}
	base, err := tools.NewBase(c.db)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.dbFile, err)
	}
	return &Pack{
		Manifest: c.man,
		Policy:   c.policy,
		Tools:    kit,
		Base:     base,
		Holdout:  c.holdout,
		Files:    c.packFiles(),
		Computes: computes,
		Allows:   c.allows(sb),
	}, nil
}

// computeNames are the functions the write hints' computed arguments
// (compute:NAME) name.
func (c *checker) computeNames() []string {
	var out []string
	for _, w := range c.man.Hints.Writes {
		for _, a := range w.Args {
			if name, ok := strings.CutPrefix(a.Source, "compute:"); ok && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}
