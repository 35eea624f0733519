package pack

import (
	"context"
	"fmt"
	"io/fs"
	"os"

	"go.starlark.net/starlark"

	"github.com/synth-data/synth/tools"
)

// Load reads, validates and compiles a pack with DefaultLimits. The seed
// feeds a generator; a db.json pack ignores it. Any problem fails the
// load with a Problems error listing all of them.
func Load(ctx context.Context, fsys fs.FS, seed uint64) (*Pack, error) {
	return LoadLimits(ctx, fsys, seed, DefaultLimits())
}

// LoadDir loads the pack in a folder. Its files are read through an
// os.Root, so a symbolic link leading outside the folder (to
// /proc/self/environ, to /) is refused: a pack's files end up in every
// training row's system message and in the release.
func LoadDir(ctx context.Context, dir string, seed uint64) (*Pack, error) {
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
	p, err := Load(ctx, root.FS(), seed)
	if err != nil {
		return nil, fmt.Errorf("domain pack %s: %w", dir, err)
	}
	return p, nil
}

// LoadLimits is Load with explicit sandbox limits.
func LoadLimits(ctx context.Context, fsys fs.FS, seed uint64, lim Limits) (*Pack, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := check(ctx, fsys, seed, lim)
	if err := ctx.Err(); err != nil {
		// A cancelled generator shows up as a problem; say why instead.
		return nil, err
	}
	if len(c.problems) > 0 {
		return nil, Problems(c.problems)
	}
	return c.build()
}

// build turns a checked pack into a toolkit and a base.
func (c *checker) build() (*Pack, error) {
	keys := make(map[string]string, len(c.man.Collections))
	for name, col := range c.man.Collections {
		keys[name] = col.Key
	}
	sb := newSandbox(c.lim, keys)
	list := make([]*tools.Tool, 0, len(c.tools))
	for _, td := range c.tools {
		fn, ok := c.handlers[td.name].(*starlark.Function)
		if !ok {
			return nil, fmt.Errorf("tool %s: no handler function (validation should have caught this)", td.name)
		}
		list = append(list, &tools.Tool{
			Name:        td.name,
			Description: td.desc,
			Kind:        td.kind,
			Parameters:  td.params,
			Handler:     sb.handler(td.name, fn),
		})
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
		Files:    c.packFiles(),
	}, nil
}
