package tau2

import (
	_ "embed"
	"fmt"
	"io/fs"
	"slices"
	"testing/fstest"
)

// The tools arrays τ²-bench shows the agent, as testdata/tau2_tools.py
// builds them from τ²'s tool code the way τ²'s Tool does (a pydantic
// model of the signature, descriptions from the docstring; titles, $defs
// and the anyOf of "FlightInfo | dict" included), each function with
// the "x-kind" of its @is_tool type.

//go:embed retail_tools.json
var retailTools []byte

//go:embed airline_tools.json
var airlineTools []byte

// RetailTools returns the tools.json of τ²'s retail domain (16 tools, in
// the order τ²'s RetailTools defines them). The caller owns the copy.
func RetailTools() []byte { return slices.Clone(retailTools) }

// AirlineTools returns the tools.json of τ²'s airline domain (14 tools).
func AirlineTools() []byte { return slices.Clone(airlineTools) }

// PackFS is a built-in pack's files with tools.json added: the pack runs
// on this package's handlers and takes its tools from here, so its
// tools.json is the handler set's own and cannot drift from it. fsys
// must not hold a tools.json of its own; if it does, or cannot be read,
// every file of the result fails to open with that error, which loading
// the pack reports.
func PackFS(fsys fs.FS, spec []byte) fs.FS {
	out := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if p == toolsFile {
			return fmt.Errorf("the built-in pack has its own %s; its tools come from its handler set", toolsFile)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		out[p] = &fstest.MapFile{Data: data, Mode: 0o444}
		return nil
	})
	if err != nil {
		return brokenFS{err}
	}
	out[toolsFile] = &fstest.MapFile{Data: spec, Mode: 0o444}
	return out
}

// brokenFS fails every Open with the error that made it.
type brokenFS struct{ err error }

func (b brokenFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: b.err}
}

// toolsFile is the name a pack's tools array has.
const toolsFile = "tools.json"
