package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/realpath"
)

type reportOpts struct {
	out   string
	rows  int
	force bool
}

func reportVerb(o *reportOpts) *verb {
	v := newVerb("report", "DIR", "the release folder", 1, 1, "write a self-contained HTML report of a release",
		"The page loads nothing from anywhere, so it opens offline. It is written beside the release, never into it, and never over a file unless --force.")
	v.fs.StringVar(&o.out, "o", "", "write the report to `FILE` (default: DIR-report.html, beside the release folder)")
	v.fs.IntVar(&o.rows, "rows", audit.DefaultReportRows, "dialogues to show")
	v.fs.BoolVar(&o.force, "force", false, "replace -o FILE if it exists")
	return v
}

func cmdReport(ctx context.Context, e env, args []string) error {
	var o reportOpts
	pos, err := reportVerb(&o).parse(args, e.stdout)
	if err != nil {
		return err
	}
	dir := pos[0]
	if o.out == "" {
		o.out = besideRelease(dir)
	}
	if err := outsideRelease(dir, o.out); err != nil {
		return err
	}
	if _, err := os.Lstat(o.out); err == nil && !o.force {
		return fmt.Errorf("-o %s already exists: give --force to replace it, or another -o", o.out)
	}
	if folder := filepath.Dir(o.out); !isDir(folder) {
		return fmt.Errorf("-o %s: the folder %s does not exist: make it, or give another -o", o.out, folder)
	}
	// Rendered before anything is written: a folder that is no release,
	// or a report that fails halfway, leaves no file behind.
	var page bytes.Buffer
	if err := (audit.Reporter{Rows: o.rows}).Write(ctx, dir, &page); err != nil {
		return err
	}
	if err := export.WriteFileAtomic(o.out, page.Bytes()); err != nil {
		return fmt.Errorf("-o %s: %w", o.out, err)
	}
	fmt.Fprintf(e.stdout, "wrote %s (open it in a browser)\n", o.out)
	return nil
}

// besideRelease is the report's default path: DIR-report.html next to
// the release folder, which stays as its manifest lists it.
func besideRelease(dir string) string {
	clean := filepath.Clean(dir)
	if base := filepath.Base(clean); base == "." || base == ".." || base == string(filepath.Separator) {
		if abs, err := filepath.Abs(clean); err == nil {
			clean = abs
		}
	}
	return clean + "-report.html"
}

// releaseNames are the names a release owns at its top: its manifest, its
// card, its data folders and the work dir of the run that makes it.
var releaseNames = []string{"manifest.json", "README.md", "sft", "dpo", "blueprints", "rejected", "domain", ".synth-work"}

// outsideRelease refuses a report path that is one of the release's own
// files or lies in one of its folders: the report replaces whatever is at
// its path, and a release's files must stay as its manifest lists them.
// Links on the way are resolved, so another spelling of the path is
// caught too.
func outsideRelease(dir, out string) error {
	inside, ok := realpath.Within(dir, out)
	if !ok {
		return nil
	}
	rel, err := realpath.Resolve(dir)
	if err != nil {
		return err
	}
	first, _, _ := strings.Cut(filepath.ToSlash(inside), "/")
	for _, name := range releaseNames {
		if inside == "." || strings.EqualFold(first, name) {
			return fmt.Errorf("-o %s is the release's own %s: synth report never writes over a release's files; give another -o (the default is %s)",
				out, filepath.ToSlash(filepath.Join(filepath.Base(rel), inside)), besideRelease(dir))
		}
	}
	return nil
}
