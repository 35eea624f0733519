package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// NoRow is Defect.Row for a defect of a whole file or of the release.
const NoRow = -1

// Defect is one thing wrong with a release.
type Defect struct {
	// File is the release file at fault, relative and slash-separated
	// (manifest.json for the manifest itself).
	File string `json:"file"`
	// Row is the 0-based row of a Parquet file or the 0-based line of a
	// JSON-lines file, or NoRow.
	Row int `json:"row"`
	// ID is the row's id or blueprint id, when there is one.
	ID string `json:"id,omitempty"`
	// Check names what failed: sha256, rows, unlisted, schema, split,
	// verify/state, tool_result, dpo, ...
	Check  string `json:"check"`
	Reason string `json:"reason"`
}

// String renders a defect as one line: where, then what.
func (d Defect) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Row != NoRow {
		if strings.HasSuffix(d.File, ".jsonl.gz") {
			fmt.Fprintf(&b, " line %d", d.Row+1)
		} else {
			fmt.Fprintf(&b, " row %d", d.Row)
		}
	}
	if d.ID != "" {
		fmt.Fprintf(&b, " (%s)", d.ID)
	}
	fmt.Fprintf(&b, ": %s: %s", d.Check, d.Reason)
	return b.String()
}

// Validation is the outcome of re-checking a release.
type Validation struct {
	Dir        string        `json:"dir"`
	Files      int           `json:"files"`      // files the manifest lists
	Blueprints int           `json:"blueprints"` // blueprint lines read
	SFTRows    int           `json:"sft_rows"`   // SFT rows re-verified
	DPOPairs   int           `json:"dpo_pairs"`  // DPO pairs re-simulated
	Rejected   int           `json:"rejected"`   // rejected dialogues re-verified
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Unverified is set when the rows were checked against the manifest
	// and the schemas only: the release's domain is not this synth's.
	Unverified bool     `json:"rows_not_reverified,omitempty"`
	Defects    []Defect `json:"defects"`
	// Warnings are worth a look but do not fail a release: the same
	// generic opening line in two splits, for instance.
	Warnings []Defect `json:"warnings,omitempty"`
}

// OK reports whether the release has no defect.
func (v *Validation) OK() bool { return len(v.Defects) == 0 }

// Rows is the number of data rows re-checked: SFT rows, DPO pairs and
// rejected dialogues.
func (v *Validation) Rows() int { return v.SFTRows + v.DPOPairs + v.Rejected }

// RowsPerSecond is the validation throughput over Rows.
func (v *Validation) RowsPerSecond() float64 {
	if v.Elapsed <= 0 {
		return 0
	}
	return float64(v.Rows()) / v.Elapsed.Seconds()
}

// WriteText prints the validation for people: a summary, then every
// defect on a line of its own.
func (v *Validation) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "release     %s\n", v.Dir)
	fmt.Fprintf(&b, "files       %d listed\n", v.Files)
	fmt.Fprintf(&b, "blueprints  %d\n", v.Blueprints)
	verified, simulated := "re-verified", "re-simulated and re-verified"
	if v.Unverified {
		verified = "read, not re-verified (see the warning)"
	}
	fmt.Fprintf(&b, "sft rows    %d %s\n", v.SFTRows, verified)
	if v.Unverified {
		simulated = verified
	}
	fmt.Fprintf(&b, "dpo pairs   %d %s\n", v.DPOPairs, simulated)
	if v.Rejected > 0 {
		fmt.Fprintf(&b, "rejected    %d %s\n", v.Rejected, verified)
	}
	fmt.Fprintf(&b, "time        %s (%.0f rows/s)\n\n", v.Elapsed.Round(time.Millisecond), v.RowsPerSecond())
	if len(v.Warnings) > 0 {
		fmt.Fprintf(&b, "%d warnings (they do not fail the release):\n", len(v.Warnings))
		kinds := map[string]int{}
		for _, d := range v.Warnings {
			b.WriteString("  " + d.String() + "\n")
			kinds[d.Check]++
		}
		for _, k := range slices.Sorted(maps.Keys(kinds)) {
			if why := warningMeaning(k); why != "" {
				fmt.Fprintf(&b, "%s: %s\n", k, why)
			}
		}
		b.WriteString("\n")
	}
	switch {
	case v.OK() && len(v.Warnings) > 0:
		fmt.Fprintf(&b, "OK: no defects (%d warnings, explained above)\n", len(v.Warnings))
	case v.OK():
		b.WriteString("OK: no defects\n")
	default:
		fmt.Fprintf(&b, "%d defects:\n", len(v.Defects))
		for _, d := range v.Defects {
			b.WriteString("  " + d.String() + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// warningMeaning says, for a kind of warning, whether it matters and
// what to do, so a reader of "OK: no defects" after a list of warnings
// knows what to make of them.
func warningMeaning(kind string) string {
	switch kind {
	case "near_duplicate":
		return "the customer opens a dialogue in one split with the words of one in another. " +
			"Openings are generic (\"Can I return an item?\") and say nothing of the task; the tasks themselves " +
			"(the user instructions) are compared too, and one repeated across splits is a defect. Nothing to do, " +
			"unless an evaluation must not see a training dialogue's first line: then drop those rows from its split."
	case "domain":
		return "this synth no longer has the domain the release was made on, so its rows were read but not " +
			"re-verified. Validate it with the synth version that made it to re-verify them."
	}
	return ""
}

// Validator re-checks releases. The zero value is ready to use.
type Validator struct {
	// Workers bounds the rows checked at once; 0 means GOMAXPROCS.
	Workers int
}

// Validate re-checks the release in dir using nothing but the release
// and synth's built-in domains: the manifest against the files, the
// schema of every Parquet file, every SFT row against the full verifier
// and a replay of its tool calls, every DPO pair by re-simulating its
// rejected side, and the split assignment.
//
// Defects of the release are reported in the Validation; the error is
// for what stops the check itself (dir missing, ctx cancelled).
func (vr Validator) Validate(ctx context.Context, dir string) (*Validation, error) {
	start := time.Now()
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: give a release folder", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder: give a release folder", dir)
	}
	s := newState(dir, vr.Workers)
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	out := &Validation{Dir: dir, Blueprints: len(s.bps), SFTRows: s.sftRows, DPOPairs: s.dpoRows, Rejected: s.rejectedRows, Unverified: s.dom == nil}
	if s.doc != nil {
		out.Files = len(s.doc.m.Files)
	}
	out.Defects = s.defects.sorted()
	out.Warnings = s.warnings.sorted()
	out.Elapsed = time.Since(start)
	return out, nil
}

// defectList collects defects from concurrent workers.
type defectList struct {
	mu   sync.Mutex
	list []Defect
}

func (l *defectList) add(file string, row int, id, check, format string, args ...any) {
	d := Defect{File: file, Row: row, ID: id, Check: check, Reason: fmt.Sprintf(format, args...)}
	l.mu.Lock()
	l.list = append(l.list, d)
	l.mu.Unlock()
}

func (l *defectList) sorted() []Defect {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.list)
	slices.SortStableFunc(out, func(a, b Defect) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Row, b.Row), cmp.Compare(a.Check, b.Check), cmp.Compare(a.Reason, b.Reason))
	})
	return slices.CompactFunc(out, func(a, b Defect) bool { return a == b })
}

// state is one validation run. The fields above defects are filled in
// before the row workers start and only read by them, except unreadable,
// which only the goroutine feeding the workers writes; those below mu
// are shared by the workers.
type state struct {
	dir      string
	workers  int
	doc      *manifestDoc
	maxTurns int
	seed     maphash.Seed // of the message digests
	dom      *domain.Domain
	ver      *verify.Verifier
	// labels checks that each pair's rejected side shows its label.
	labels *dpo.LabelChecker
	// sums holds the sha256 of every listed file as found on disk.
	sums       map[string]string
	bps        map[string]*bpInfo
	failures   map[string]*failureRecord
	rejected   []*rejectedRecord
	dups       []*duplicateRecord
	unreadable map[string]bool // kinds with a file that could not be read whole
	// sftIncomplete is unreadable[kindSFT] once the SFT pass is over,
	// for the DPO workers: the DPO producer writes unreadable meanwhile.
	sftIncomplete bool
	// digests says whether SFT rows need message digests: only DPO
	// pairs are compared with them.
	digests bool

	defects, warnings defectList

	mu           sync.Mutex
	sft          map[string]*sftSeen // by blueprint id
	sftIDs       map[string]bool
	dpoIDs       map[string]bool
	firsts       map[string][]firstSeen // by normalized text
	sftRows      int
	sftBySplit   map[string]int
	dpoRows      int
	rejectedRows int
}

func newState(dir string, workers int) *state {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &state{
		dir: dir, workers: workers, maxTurns: defaultMaxTurns, seed: maphash.MakeSeed(),
		sums: map[string]string{}, bps: map[string]*bpInfo{}, failures: map[string]*failureRecord{},
		unreadable: map[string]bool{},
		sft:        map[string]*sftSeen{}, sftIDs: map[string]bool{}, dpoIDs: map[string]bool{},
		firsts: map[string][]firstSeen{}, sftBySplit: map[string]int{},
	}
}

func (s *state) path(rel string) string { return filepath.Join(s.dir, filepath.FromSlash(rel)) }

func (s *state) run(ctx context.Context) error {
	raw, err := limitio.ReadRegular(s.path("manifest.json"), limitio.Manifest)
	if err != nil {
		s.defects.add("manifest.json", NoRow, "", "manifest", "%s is not a synth release: %v", s.dir, err)
		return nil
	}
	if s.doc, err = parseManifest(raw); err != nil {
		s.defects.add("manifest.json", NoRow, "", "manifest", "%v", err)
		return nil
	}
	for _, p := range s.doc.problems {
		s.defects.add("manifest.json", NoRow, "", p.check, "%s", p.reason)
	}
	if n, err := maxTurns(s.doc.m); err == nil {
		s.maxTurns = n
	}

	// Hashing the files and building the domain are independent, and
	// each takes a while on a large release.
	g, gctx := errgroup.WithContext(ctx)
	var domErr error
	g.Go(func() error {
		domErr = s.loadDomain()
		return nil
	})
	g.Go(func() error { return s.checkFiles(gctx) })
	if err := g.Wait(); err != nil {
		return err
	}
	s.checkUnlisted()
	s.checkWorkDir()
	var older *olderDomain
	switch {
	case errors.As(domErr, &older):
		// Not a defect of the release: this synth no longer has the
		// domain it was made on.
		s.warnings.add("manifest.json", NoRow, "", "domain", "%v", older)
	case domErr != nil:
		s.defects.add("manifest.json", NoRow, "", "domain", "%v; rows cannot be re-verified", domErr)
	default:
		s.checkDomain()
	}
	s.readBlueprints()
	s.readFailures()
	s.readRejected()
	s.readDuplicates()
	s.digests = len(s.entries(kindDPO)) > 0
	if err := s.checkSFTFiles(ctx); err != nil {
		return err
	}
	s.sftIncomplete = s.unreadable[kindSFT]
	if err := s.checkDPOFiles(ctx); err != nil {
		return err
	}
	s.checkCounts()
	s.checkCoverage()
	s.checkInstructions()
	s.checkFirstMessages()
	return ctx.Err()
}

// olderDomain says a release was made on another version of a built-in
// domain than this synth's, whose database (generated in code) cannot
// be rebuilt from the release: its rows are checked against the manifest
// and the schemas, not re-verified.
type olderDomain struct{ name, release, now, synth string }

func (e *olderDomain) Error() string {
	return fmt.Sprintf("the release was made on the built-in %s %s, and this synth has %s %s, which builds another database: rows are checked against the manifest and the schemas but not re-verified; run synth validate of synth %s to re-verify them",
		e.name, e.release, e.name, e.now, e.synth)
}

// loadDomain builds the release's domain — a built-in by name, else the
// pack the release ships in domain/ — and the verifier on it.
func (s *state) loadDomain() error {
	m := s.doc.m
	d, older, err := domains.OfRelease(s.dir, m.Domain.Name, m.Domain.Version, m.Seed)
	if err != nil {
		return fmt.Errorf("domain %q: %w", m.Domain.Name, err)
	}
	if older {
		return &olderDomain{name: d.Name, release: m.Domain.Version, now: d.Version, synth: m.SynthVersion}
	}
	sch, err := schemas.Compile()
	if err != nil {
		return fmt.Errorf("record schemas: %w", err)
	}
	s.dom, s.ver = d, verify.ForDomain(d, sch)
	s.labels = dpo.NewLabelChecker(d, s.ver)
	return nil
}

// entries returns the manifest entries of a kind, in path order.
func (s *state) entries(kind string) []entry {
	var out []entry
	for _, e := range s.doc.entries {
		if e.kind == kind {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b entry) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

// fanOut runs produce, which hands units of work to send, and runs the
// work on s.workers goroutines. Work must report problems as defects:
// only produce can fail the whole run.
func (s *state) fanOut(ctx context.Context, produce func(ctx context.Context, send func(func()) error) error) error {
	g, gctx := errgroup.WithContext(ctx)
	jobs := make(chan func(), 4*s.workers)
	g.Go(func() error {
		defer close(jobs)
		return produce(gctx, func(work func()) error {
			select {
			case jobs <- work:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
	})
	for range s.workers {
		g.Go(func() error {
			for work := range jobs {
				// Keep draining after a cancellation so that the
				// producer never blocks, but stop doing the work.
				if gctx.Err() == nil {
					work()
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// guard turns a panic while checking one row into a defect of that row.
// The verifier and the simulator were written for the dialogues synth
// makes; a damaged row must not take the whole validation down.
func (s *state) guard(file string, row int, id string) {
	if p := recover(); p != nil {
		s.defects.add(file, row, id, "crash", "checking this row panicked: %v", p)
	}
}

// relErr renders an error with the release folder cut from its paths:
// defects already name their file relative to it.
func (s *state) relErr(err error) string {
	return strings.ReplaceAll(err.Error(), s.dir+string(filepath.Separator), "")
}

// readCheck names the check a reader error fails: a file that reads but
// holds other columns is a schema defect, anything else a damaged file.
func readCheck(err error) string {
	if strings.Contains(err.Error(), "not a synth ") {
		return "schema"
	}
	return "read"
}
