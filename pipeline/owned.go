package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/realpath"
	"github.com/synth-data/synth/release"
)

// synth deletes only what it can prove it wrote: the files a release's
// manifest lists (with the content it lists), the files its work dir's
// publish log lists (written before each file is placed), temporaries of
// those files, and its own work dir, marked by run.json. Anything else in
// an out dir belongs to someone else and is never touched: --force on a
// folder holding such a file is refused, naming it.

// publishLogName lists, in the work dir, every file finalisation is about
// to place in the out dir, so a finalisation that was killed midway can be
// cleaned up or replaced without guessing.
const publishLogName = "published.jsonl"

// lockName is the lock file in the work dir; it holds the owner's pid.
const lockName = "lock"

type published struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// tempPattern matches export's temporaries (".NAME.tmp-123") and place's
// links (".NAME.tmp-link"); group 1 is the file they will become.
var tempPattern = regexp.MustCompile(`^\.(.+)\.tmp-(?:[0-9]+|link)$`)

// owned is what synth may delete in an out dir.
type owned struct {
	out      string            // the out dir as the user named it, for messages
	root     string            // what out really names: every look and delete goes there
	manifest bool              // manifest.json is a synth manifest
	work     bool              // the work dir is synth's (holds a valid run.json)
	workFP   string            // the fingerprint of the run the work dir is for
	files    map[string]string // slash path → sha256 it must have ("" for any)
	dirSet   map[string]bool
}

// readOwned works out what in out synth wrote.
func readOwned(out string) (*owned, error) {
	// A link named as the out dir is judged by the folder it leads to:
	// walking the link itself would see nothing and let --force write
	// over that folder's files.
	root, err := realpath.Resolve(out)
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	o := &owned{out: out, root: root, files: map[string]string{}}
	if m, err := release.ReadManifest(out); err == nil && m.Fingerprint != "" {
		o.manifest = true
		for _, f := range m.Files {
			o.files[f.Path] = f.SHA256
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "not a valid manifest") {
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	work := filepath.Join(root, workDirName)
	if info, err := os.Lstat(work); err != nil || !info.IsDir() {
		return o, nil // a work dir is a folder synth made, never a link
	}
	if raw, err := limitio.ReadRegular(filepath.Join(work, "run.json"), limitio.SmallFile); err == nil {
		var rf runFile
		if json.Unmarshal(raw, &rf) == nil && rf.Fingerprint != "" {
			o.work, o.workFP = true, rf.Fingerprint
		}
	}
	if !o.work {
		return o, nil
	}
	logged, err := readPublishLog(work)
	if err != nil {
		return nil, err
	}
	for _, p := range logged {
		if _, listed := o.files[p.Path]; !listed {
			o.files[p.Path] = p.SHA256
		}
	}
	return o, nil
}

func readPublishLog(work string) ([]published, error) {
	raw, err := limitio.ReadRegular(filepath.Join(work, publishLogName), limitio.SmallFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []published
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() {
		var p published
		// A line cut short by a crash is the last one, and its file was
		// never placed: skipping it loses nothing.
		if json.Unmarshal(sc.Bytes(), &p) == nil && filepath.IsLocal(filepath.FromSlash(p.Path)) {
			out = append(out, p)
		}
	}
	return out, sc.Err()
}

// ForeignError names the first thing in an out dir that synth did not write.
type ForeignError struct {
	Flag, Out, Path, Why string
	// Real is the folder Out leads to when Out is a link.
	Real string
}

func (e *ForeignError) Error() string {
	out := e.Out
	if e.Real != "" {
		out = fmt.Sprintf("%s (a link to %s)", e.Out, e.Real)
	}
	return fmt.Sprintf("%s %s holds %s, which %s; synth deletes only what it wrote itself, so it will not replace this folder: move that away, or choose another %s",
		e.Flag, out, filepath.Join(e.Out, filepath.FromSlash(e.Path)), e.Why, e.Flag)
}

// foreign returns the first path in the out dir that synth cannot prove it
// wrote, or nil when everything there is synth's.
func (o *owned) foreign(flag string) error {
	var found *ForeignError
	err := filepath.WalkDir(o.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == o.root {
			return nil
		}
		rel, err := filepath.Rel(o.root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		why := o.why(rel, d)
		if why == "" {
			if d.IsDir() && rel == workDirName {
				return filepath.SkipDir
			}
			return nil
		}
		found = &ForeignError{Flag: flag, Out: o.out, Path: rel, Why: why, Real: o.linkedTo()}
		return fs.SkipAll
	})
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, o.out, err)
	}
	if found != nil {
		return found
	}
	return nil
}

// linkedTo is the folder the out dir leads to when it is a link.
func (o *owned) linkedTo() string {
	if info, err := os.Lstat(o.out); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return o.root
	}
	return ""
}

// why says why rel is not synth's, or "" when it is.
func (o *owned) why(rel string, d fs.DirEntry) string {
	switch {
	case rel == workDirName && d.IsDir():
		if o.work || onlyLock(filepath.Join(o.root, workDirName)) {
			return ""
		}
		return "is not a synth work folder (it has no valid run.json)"
	case d.Type()&fs.ModeSymlink != 0:
		return "is a symbolic link (synth never makes one)"
	case d.IsDir():
		if o.dirs()[rel] {
			return "" // removed only once empty
		}
		return "is a folder synth did not make"
	case !d.Type().IsRegular():
		return "is not a regular file"
	case rel == "manifest.json":
		if o.manifest {
			return ""
		}
		return "is not a synth manifest"
	}
	if sum, ok := o.files[rel]; ok {
		if sum == "" {
			return ""
		}
		got, err := fileSHA(filepath.Join(o.root, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Sprintf("cannot be read (%v)", err)
		}
		if got != sum {
			return "was changed after synth wrote it"
		}
		return ""
	}
	dir, base := filepath.Split(filepath.FromSlash(rel))
	if m := tempPattern.FindStringSubmatch(base); m != nil {
		if _, ok := o.files[filepath.ToSlash(filepath.Join(dir, m[1]))]; ok {
			return ""
		}
	}
	return "synth did not write"
}

// dirs are the folders that hold synth's files.
func (o *owned) dirs() map[string]bool {
	if o.dirSet == nil {
		o.dirSet = map[string]bool{}
		for p := range o.files {
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				o.dirSet[d] = true
			}
		}
	}
	return o.dirSet
}

// clear deletes everything synth wrote in the out dir, keeping the lock.
// The manifest goes last, so a clear that is interrupted can be redone: what
// it had not deleted yet is still provably synth's.
func (o *owned) clear(flag string) error {
	if err := o.foreign(flag); err != nil {
		return err
	}
	var dirs []string
	err := filepath.WalkDir(o.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(o.root, p)
		switch {
		case p == o.root:
			return nil
		case filepath.ToSlash(rel) == workDirName:
			return filepath.SkipDir
		case d.IsDir():
			dirs = append(dirs, p)
			return nil
		case filepath.ToSlash(rel) == "manifest.json":
			return nil
		}
		return os.Remove(p)
	})
	if err != nil {
		return fmt.Errorf("%s %s: remove the old release: %w", flag, o.out, err)
	}
	if err := clearWork(filepath.Join(o.root, workDirName)); err != nil {
		return fmt.Errorf("%s %s: %w", flag, o.out, err)
	}
	// Deepest first; a folder that is not empty is someone's and stays.
	slices.Reverse(dirs)
	for _, d := range dirs {
		os.Remove(d)
	}
	if err := os.Remove(filepath.Join(o.root, "manifest.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %s: %w", flag, o.out, err)
	}
	return nil
}

// onlyLock reports whether a work dir holds nothing but a lock: one that
// lockOut made just now.
func onlyLock(work string) bool {
	entries, err := os.ReadDir(work)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), lockName) {
			return false
		}
	}
	return true
}

// clearWork empties the work dir but for the lock its owner holds.
func clearWork(work string) error {
	entries, err := os.ReadDir(work)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == lockName {
			continue
		}
		if err := os.RemoveAll(filepath.Join(work, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// removeStale deletes, after a release was finalised, what an earlier
// interrupted finalisation placed that the new manifest does not list, and
// temporaries of listed files.
func removeStale(out string, m *release.Manifest) error {
	keep := map[string]bool{"manifest.json": true}
	for _, f := range m.Files {
		keep[f.Path] = true
	}
	logged, err := readPublishLog(filepath.Join(out, workDirName))
	if err != nil {
		return err
	}
	for _, p := range logged {
		if keep[p.Path] {
			continue
		}
		if err := os.Remove(filepath.Join(out, filepath.FromSlash(p.Path))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	ours := map[string]bool{}
	for p := range keep {
		ours[p] = true
	}
	for _, p := range logged {
		ours[p.Path] = true
	}
	dirs := map[string]bool{}
	for p := range ours {
		dirs[filepath.Dir(filepath.FromSlash(p))] = true
	}
	for dir := range dirs {
		entries, err := os.ReadDir(filepath.Join(out, dir))
		if err != nil {
			continue
		}
		for _, e := range entries {
			m := tempPattern.FindStringSubmatch(e.Name())
			if m == nil || !e.Type().IsRegular() || !ours[filepath.ToSlash(filepath.Join(dir, m[1]))] {
				continue
			}
			if err := os.Remove(filepath.Join(out, dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// checkTarget refuses out dirs that cannot be meant: the file system
// root, a folder right below it (/home, /tmp, /usr), the home folder and
// the folders above it.
func checkTarget(flag, out string) error {
	if out == "" {
		return fmt.Errorf("%s is empty: give the folder to write the release to", flag)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, out, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	refuse := func(what string) error {
		return fmt.Errorf("%s %s is %s; give a folder of its own for the release (e.g. %s)", flag, out, what, filepath.Join("out", "release"))
	}
	parent := filepath.Dir(abs)
	switch {
	case parent == abs:
		return refuse("the file system root")
	case filepath.Dir(parent) == parent:
		return refuse("a top-level system folder")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if h, err := filepath.EvalSymlinks(home); err == nil {
			home = h
		}
		if rel, err := filepath.Rel(abs, home); err == nil && filepath.IsLocal(rel) || abs == home {
			return refuse("your home folder or a folder above it")
		}
	}
	return nil
}
