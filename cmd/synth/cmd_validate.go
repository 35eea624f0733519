package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/internal/termtext"
)

func cmdValidate(ctx context.Context, args []string, stdout io.Writer, b *bounder) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	workers := fs.Int("workers", 0, "rows checked at once (default: CPU count)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	mem := &memoryFlag{n: defaultBound()}
	fs.Var(mem, "max-memory", "memory bound of the check, which runs the release's own Starlark code (e.g. 16GiB; Linux)")
	dir, err := parseWithDir(fs, args)
	if err != nil {
		return err
	}
	if b != nil {
		return b.run(ctx, append([]string{"validate"}, args...), mem.n, "the release "+dir, stdout)
	}
	v, err := audit.Validator{Workers: *workers}.Validate(ctx, dir)
	if err != nil {
		return err
	}
	if *asJSON {
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

// cmdAudit runs the verbs of package audit; main's switch has one case
// for both.
func cmdAudit(ctx context.Context, verb string, args []string, stdout io.Writer, b *bounder) error {
	if verb == "report" {
		return cmdReport(ctx, args, stdout)
	}
	return cmdValidate(ctx, args, stdout, b)
}
