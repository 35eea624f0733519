package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/internal/termtext"
)

type validateOpts struct {
	workers int
	asJSON  bool
	mem     memoryFlag
}

func validateVerb(o *validateOpts) *verb {
	v := newVerb("validate", "DIR", "the release folder", 1, 1, "re-check a release, every row re-verified",
		"Needs no config: every file against the manifest (bytes, sha256, rows), every SFT row re-verified with the release's own domain and its labels recomputed, "+
			"every DPO pair re-simulated, no blueprint in two splits. Exits 1 naming file, row and reason for each defect; warnings are listed but do not fail it.")
	v.fs.IntVar(&o.workers, "workers", 0, "rows checked at once (default: the CPU count)")
	v.fs.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	o.mem = memoryFlag{n: defaultBound()}
	v.fs.Var(&o.mem, "max-memory", "memory bound of the check, which runs the release's own Starlark code: `SIZE` such as 16GiB (default 8GiB, or three quarters of the memory if less; Linux)")
	return v
}

func cmdValidate(ctx context.Context, e env, args []string) error {
	var o validateOpts
	pos, err := validateVerb(&o).parse(args, e.stdout)
	if err != nil {
		return err
	}
	dir, stdout := pos[0], e.stdout
	if e.b != nil {
		return e.b.run(ctx, append([]string{"validate"}, args...), o.mem.n, "the release "+dir, stdout)
	}
	v, err := audit.Validator{Workers: o.workers}.Validate(ctx, dir)
	if err != nil {
		return err
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(v)
	} else {
		// Defects quote ids and reasons read from the release.
		err = v.WriteText(termtext.Writer(stdout))
	}
	if err != nil {
		return err
	}
	if !v.OK() {
		return fmt.Errorf("%s has %d defects (listed above)", dir, len(v.Defects))
	}
	return nil
}
