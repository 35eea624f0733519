package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// TestValidate makes one release and checks that validate passes it,
// catches each kind of damage done to copies of it, and accounts for
// deduplication. One release for all keeps the suite fast under -race.
func TestValidate(t *testing.T) {
	base := makeRelease(t, 100)
	t.Run("fresh release", func(t *testing.T) { testFreshRelease(t, copyRelease(t, base)) })
	t.Run("damage", func(t *testing.T) {
		if testing.Short() {
			t.Skip("long and single-threaded: make test (-short, -race) leaves it to make test-long")
		}
		testCatchesDamage(t, base)
	})
	t.Run("deduplicated release", func(t *testing.T) { testDeduplicatedRelease(t, copyRelease(t, base)) })
}

func testFreshRelease(t *testing.T, dir string) {
	v, err := (Validator{}).Validate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range v.Defects {
		t.Errorf("defect in a fresh release: %s", d)
	}
	m := readManifest(t, dir)
	if v.SFTRows != m.Counts.SFTRows || v.DPOPairs != m.Counts.DPOPairs || v.Blueprints != m.Counts.Blueprints || v.Files != len(m.Files) {
		t.Errorf("checked %d rows, %d pairs, %d blueprints, %d files; the release has %+v and %d files", v.SFTRows, v.DPOPairs, v.Blueprints, v.Files, m.Counts, len(m.Files))
	}
	if v.DPOPairs == 0 {
		t.Error("the test release has no DPO pairs to re-check")
	}
	// A report written into the release must not make it invalid.
	if err := os.WriteFile(filepath.Join(dir, "report.html"), []byte("<p>x</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err = (Validator{Workers: 1}).Validate(context.Background(), dir); err != nil || !v.OK() {
		t.Errorf("with a report.html beside it: %v %v", err, v.Defects)
	}
}

// damage is a deliberately damaged release and what validate must say.
type damage struct {
	name string
	// do damages the release in dir and returns the defects expected.
	do func(t *testing.T, dir string) []want
}

type want struct {
	file, check string
	row         int    // NoRow: any row
	id          string // "": any id
	reason      string // a substring of the reason, "" for any
}

func testCatchesDamage(t *testing.T, base string) {
	cases := []damage{
		{"flipped byte in a Parquet file", func(t *testing.T, dir string) []want {
			p := filepath.Join(dir, sftFile("train"))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0x5a
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return []want{{file: sftFile("train"), check: "sha256", row: NoRow, reason: "the manifest says"}}
		}},
		{"flipped byte in a DPO file", func(t *testing.T, dir string) []want {
			p := filepath.Join(dir, dpoFile("train"))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/3] ^= 0x5a
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return []want{{file: dpoFile("train"), check: "sha256", row: NoRow}}
		}},
		{"edited tool result, manifest updated", func(t *testing.T, dir string) []want {
			rows := readSFT(t, dir, "train")
			k, msg := 3, -1
			for i, m := range rows[k].Messages {
				if m.Role == "tool" && strings.ContainsAny(m.Content, "0123456789") {
					msg = i
					break
				}
			}
			if msg < 0 {
				t.Fatal("no tool result with a digit to edit")
			}
			c := rows[k].Messages[msg].Content
			i := strings.IndexAny(c, "0123456789")
			rows[k].Messages[msg].Content = c[:i] + string('0'+(c[i]-'0'+1)%10) + c[i+1:]
			rewriteSFT(t, dir, "train", rows)
			relist(t, dir, sftFile("train"), -1)
			return []want{{file: sftFile("train"), check: "tool_result", row: k, id: rows[k].ID, reason: "differs from re-running its call"}}
		}},
		{"recovery row trains on its mistake, manifest updated", func(t *testing.T, dir string) []want {
			split, rows, k := recoveryRow(t, dir)
			for i := range rows[k].Messages {
				rows[k].Messages[i].Weight = nil
			}
			rewriteSFT(t, dir, split, rows)
			relist(t, dir, sftFile(split), -1)
			return []want{{file: sftFile(split), check: "weight", row: k, id: rows[k].ID, reason: "recovery's mistake"}}
		}},
		{"weight on a turn that is no mistake, manifest updated", func(t *testing.T, dir string) []want {
			rows := readSFT(t, dir, "train")
			k := 2
			if rows[k].Kind == record.KindRecovery {
				k = 1
			}
			msg := slices.IndexFunc(rows[k].Messages, func(m record.Message) bool { return m.Role == "assistant" })
			rows[k].Messages[msg].Weight = new(int)
			rewriteSFT(t, dir, "train", rows)
			relist(t, dir, sftFile("train"), -1)
			return []want{{file: sftFile("train"), check: "weight", row: k, id: rows[k].ID, reason: "only a recovery row's mistake"}}
		}},
		{"edited labels, manifest updated", func(t *testing.T, dir string) []want {
			rows := readSFT(t, dir, "train")
			k := 4
			var l credit.Labels
			if err := json.Unmarshal(rows[k].Labels, &l); err != nil {
				t.Fatal(err)
			}
			// The first read gets the credit of its write.
			for i := range l.Turns {
				if l.Turns[i].Class == credit.ClassRead {
					l.Turns[i].Progress++
					break
				}
			}
			raw, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			rows[k].Labels = raw
			rows[k+1].Labels = nil
			rewriteSFT(t, dir, "train", rows)
			relist(t, dir, sftFile("train"), -1)
			return []want{
				{file: sftFile("train"), check: "labels", row: k, id: rows[k].ID, reason: "differ from the ones the blueprint gives"},
				{file: sftFile("train"), check: "labels", row: k + 1, id: rows[k+1].ID, reason: "no labels"},
			}
		}},
		{"dropped row, manifest not updated", func(t *testing.T, dir string) []want {
			rows := readSFT(t, dir, "train")
			rewriteSFT(t, dir, "train", append(rows[:5:5], rows[6:]...))
			return []want{
				{file: sftFile("train"), check: "sha256", row: NoRow},
				{file: sftFile("train"), check: "rows", row: NoRow, reason: "the manifest says"},
			}
		}},
		{"dropped row, manifest updated", func(t *testing.T, dir string) []want {
			rows := readSFT(t, dir, "train")
			dropped := rows[5]
			rewriteSFT(t, dir, "train", append(rows[:5:5], rows[6:]...))
			relist(t, dir, sftFile("train"), int64(len(rows)-1))
			return []want{
				{file: "manifest.json", check: "counts", row: NoRow, reason: "sft_rows"},
				{file: "blueprints/train-00000-of-00001.jsonl.gz", check: "coverage", row: NoRow, id: dropped.BlueprintID, reason: "no SFT row and no rejected"},
				{file: dpoFile("train"), check: "dpo", row: NoRow, reason: "has no SFT row"},
			}
		}},
		{"changed schema", func(t *testing.T, dir string) []want {
			rows := readSFT(t, dir, "validation")
			writeOtherSchema(t, filepath.Join(dir, filepath.FromSlash(sftFile("validation"))), rows)
			relist(t, dir, sftFile("validation"), -1)
			return []want{{file: sftFile("validation"), check: "schema", row: NoRow, reason: "n_writes"}}
		}},
		{"leaked split", func(t *testing.T, dir string) []want {
			m := readManifest(t, dir)
			// A split is written only when it has rows, and which rows a
			// small release's test split gets depends on its data.
			into := "test"
			if m.Counts.BySplit[into] == 0 {
				into = "validation"
			}
			train, other := readSFT(t, dir, "train"), readSFT(t, dir, into)
			moved := train[7]
			rewriteSFT(t, dir, "train", append(train[:7:7], train[8:]...))
			rewriteSFT(t, dir, into, append(other, moved))
			relist(t, dir, sftFile("train"), int64(len(train)-1))
			relist(t, dir, sftFile(into), int64(len(other)+1))
			m.Counts.BySplit["train"]--
			m.Counts.BySplit[into]++
			writeManifest(t, dir, m)
			return []want{{file: sftFile(into), check: "split", row: len(other), id: moved.ID, reason: "its blueprint in train"}}
		}},
		{"stray files", func(t *testing.T, dir string) []want {
			for _, name := range []string{"sft/.train-00000-of-00001.parquet.tmp-42", "blueprints/extra-00000-of-00001.jsonl.gz"} {
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return []want{
				{file: "sft/.train-00000-of-00001.parquet.tmp-42", check: "hidden", row: NoRow},
				{file: "blueprints/extra-00000-of-00001.jsonl.gz", check: "unlisted", row: NoRow},
			}
		}},
		{"rejected side replaced by the chosen one", func(t *testing.T, dir string) []want {
			rows := readDPO(t, dir, "train")
			rows[2].Rejected = rows[2].Chosen
			rewriteDPO(t, dir, "train", rows)
			relist(t, dir, dpoFile("train"), -1)
			return []want{{file: dpoFile("train"), check: "dpo", row: 2, id: rows[2].ID, reason: "prompt+rejected is not the re-simulated"}}
		}},
		{"a chosen side that runs past the next customer turn", func(t *testing.T, dir string) []want {
			// Still the verified dialogue's prefix, but prompt + chosen no
			// longer keeps the prompt a prefix under Qwen3.5's template.
			for _, split := range []string{"train", "validation", "test"} {
				rows, sft := readDPO(t, dir, split), readSFT(t, dir, split)
				for i, r := range rows {
					k := slices.IndexFunc(sft, func(s export.SFTRow) bool { return s.BlueprintID == r.BlueprintID })
					end := len(r.Prompt) + len(r.Chosen)
					if k < 0 || end+1 >= len(sft[k].Messages) || sft[k].Messages[end].Role != "user" {
						continue
					}
					rows[i].Chosen = sft[k].Messages[len(r.Prompt) : end+2]
					rewriteDPO(t, dir, split, rows)
					relist(t, dir, dpoFile(split), -1)
					return []want{{file: dpoFile(split), check: "dpo", row: i, id: r.ID, reason: fmt.Sprintf("chosen message %d is a customer turn", len(r.Chosen))}}
				}
			}
			t.Fatal("no pair whose chosen side ends at a customer turn")
			return nil
		}},
		{"edited domain policy", func(t *testing.T, dir string) []want {
			p := filepath.Join(dir, "domain", "policy.md")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(b, "\nRefunds need no confirmation.\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			relist(t, dir, "domain/policy.md", -1)
			return []want{
				{file: "domain/policy.md", check: "domain", row: NoRow, reason: "differs from the built-in"},
				{file: "manifest.json", check: "domain", row: NoRow, reason: "domain/ files hash"},
			}
		}},
		{"a run's work dir left beside the manifest", func(t *testing.T, dir string) []want {
			if err := os.MkdirAll(filepath.Join(dir, ".synth-work", "chunks"), 0o755); err != nil {
				t.Fatal(err)
			}
			return []want{{file: ".synth-work/", check: "work_dir", row: NoRow, reason: "rerun the same synth run command"}}
		}},
		{"a blueprint line that never ends", func(t *testing.T, dir string) []want {
			// A few KiB of gzip that expand to more than the line limit:
			// the read stops at the limit instead of holding the line.
			rel := "blueprints/train-00000-of-00001.jsonl.gz"
			writeGzipLines(t, filepath.Join(dir, filepath.FromSlash(rel)), []string{strings.Repeat(" ", limitio.Line+1)})
			relist(t, dir, rel, 1)
			return []want{{file: rel, check: "read", row: NoRow, reason: "line too long: more than 64 MiB"}}
		}},
		{"more blueprint lines than listed", func(t *testing.T, dir string) []want {
			rel := "blueprints/train-00000-of-00001.jsonl.gz"
			lines := readGzipLines(t, filepath.Join(dir, filepath.FromSlash(rel)))
			writeGzipLines(t, filepath.Join(dir, filepath.FromSlash(rel)), append(lines, lines...))
			relist(t, dir, rel, int64(len(lines)))
			return []want{{file: rel, check: "read", row: NoRow, reason: fmt.Sprintf("more than the %d lines the manifest lists", len(lines))}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyRelease(t, base)
			wants := c.do(t, dir)
			v, err := (Validator{}).Validate(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if v.OK() {
				t.Fatal("validate found no defect")
			}
			for _, w := range wants {
				if !hasDefect(v, w) {
					t.Errorf("no defect %+v among:\n%s", w, defectLines(v))
				}
			}
		})
	}
}

// recoveryRow finds a recovery row of the release: its split, the
// split's rows and its index there.
func recoveryRow(t *testing.T, dir string) (string, []export.SFTRow, int) {
	t.Helper()
	for _, split := range []string{"train", "validation", "test"} {
		rows := readSFT(t, dir, split)
		if k := slices.IndexFunc(rows, func(r export.SFTRow) bool { return r.Kind == record.KindRecovery }); k >= 0 {
			return split, rows, k
		}
	}
	t.Fatal("the release has no recovery row")
	return "", nil, -1
}

func hasDefect(v *Validation, w want) bool {
	for _, d := range v.Defects {
		if d.File == w.file && strings.HasPrefix(d.Check, w.check) && (w.row == NoRow || d.Row == w.row) &&
			(w.id == "" || d.ID == w.id) && strings.Contains(d.Reason, w.reason) {
			return true
		}
	}
	return false
}

func defectLines(v *Validation) string {
	var b strings.Builder
	for _, d := range v.Defects {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}

// writeOtherSchema writes rows' scalar columns under an SFT schema whose
// n_writes is int64: the same names, one type changed, as a hand-made
// shard might have.
func writeOtherSchema(t *testing.T, path string, rows []export.SFTRow) {
	t.Helper()
	fields := export.SFTSchema().Fields()
	for i := range fields {
		if fields[i].Name == "n_writes" {
			fields[i].Type = arrow.PrimitiveTypes.Int64
		}
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		str := map[string]string{"id": r.ID, "blueprint_id": r.BlueprintID, "domain": r.Domain, "tools": r.Tools, "behavior": r.Behavior, "engine": r.Engine}
		for i, f := range schema.Fields() {
			switch fb := b.Field(i).(type) {
			case *array.StringBuilder:
				fb.Append(str[f.Name])
			case *array.Int64Builder:
				fb.Append(int64(r.NWrites))
			case *array.Int32Builder:
				fb.Append(r.NReads)
			default:
				fb.AppendNull()
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateNotARelease(t *testing.T) {
	if _, err := (Validator{}).Validate(context.Background(), filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("no error for a missing folder")
	}
	v, err := (Validator{}).Validate(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Defects) != 1 || v.Defects[0].File != "manifest.json" {
		t.Errorf("empty folder: %v", v.Defects)
	}
}

func TestValidateCancelled(t *testing.T) {
	dir := fixtureRelease(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Validator{}).Validate(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled validation returned %v", err)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"  Can I RETURN an item?!  ": "can i return an item",
		"I'd   like\tto\nexchange.":  "id like to exchange",
		"$4.27 — refund":             "427 refund",
		"":                           "",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// testDeduplicatedRelease removes one dialogue the way synth's dedup
// does (its SFT row, DPO pair and failure record go; a duplicate record
// and the counts say so) and expects a clean bill: validate must account
// for duplicates, not mistake them for dropped rows.
func testDeduplicatedRelease(t *testing.T, dir string) {
	rows := readSFT(t, dir, "train")
	gone, kept := rows[4], rows[1]
	rewriteSFT(t, dir, "train", append(rows[:4:4], rows[5:]...))
	relist(t, dir, sftFile("train"), int64(len(rows)-1))

	pairs := readDPO(t, dir, "train")
	var left []export.DPORow
	failure := ""
	for _, p := range pairs {
		if p.BlueprintID == gone.BlueprintID {
			failure = p.Failure
			continue
		}
		left = append(left, p)
	}
	if failure == "" {
		t.Fatalf("blueprint %s has no DPO pair", gone.BlueprintID)
	}
	rewriteDPO(t, dir, "train", left)
	relist(t, dir, dpoFile("train"), int64(len(left)))

	const proofs = "rejected/dpo_failures-00000-of-00001.jsonl.gz"
	lines := readGzipLines(t, filepath.Join(dir, proofs))
	var keptLines []string
	for _, l := range lines {
		if !strings.Contains(l, `"blueprint_id":"`+gone.BlueprintID+`"`) {
			keptLines = append(keptLines, l)
		}
	}
	writeGzipLines(t, filepath.Join(dir, proofs), keptLines)
	relist(t, dir, proofs, int64(len(keptLines)))

	keptIndex := -1
	for _, l := range readGzipLines(t, filepath.Join(dir, "blueprints/train-00000-of-00001.jsonl.gz")) {
		var bp struct {
			ID    string `json:"id"`
			Index int    `json:"index"`
		}
		if err := json.Unmarshal([]byte(l), &bp); err != nil {
			t.Fatal(err)
		}
		if bp.ID == kept.BlueprintID {
			keptIndex = bp.Index
		}
	}
	const dups = "rejected/duplicates.jsonl.gz"
	writeGzipLines(t, filepath.Join(dir, dups), []string{fmt.Sprintf(`{"id":%q,"split":"train","kept_blueprint_index":%d,"reason":"near"}`, gone.BlueprintID, keptIndex)})

	m := readManifest(t, dir)
	m.Files = append(m.Files, release.FileEntry{Path: dups})
	m.Counts.SFTRows--
	m.Counts.BySplit["train"]--
	m.Counts.DPOPairs--
	m.DPO.Pairs--
	m.DPO.ByFailure[failure]--
	m.DPO.BySplit["train"]--
	m.Counts.Duplicates = map[string]int{"exact": 0, "near": 1}
	writeManifest(t, dir, m)
	relist(t, dir, dups, 1)

	v, err := (Validator{}).Validate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() {
		t.Errorf("a deduplicated release has defects:\n%s", defectLines(v))
	}
}

// TestValidateRejected checks a release whose short turn limit makes
// most dialogues fail: each rejected dialogue must fail again, for the
// recorded reason, and the DPO pairs replay under the release's own
// max_turns.
func TestValidateRejected(t *testing.T) {
	dir := makeReleaseWith(t, 30, func(c *pipeline.Config) { c.MaxTurns = 4 })
	v, err := (Validator{}).Validate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() || v.Rejected == 0 {
		t.Fatalf("%d rejected re-verified; defects:\n%s", v.Rejected, defectLines(v))
	}

	const file = "rejected/rejected-00000-of-00001.jsonl.gz"
	lines := readGzipLines(t, filepath.Join(dir, file))
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	rec["check"] = "turns"
	raw, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines[0] = string(raw)
	writeGzipLines(t, filepath.Join(dir, file), lines)
	relist(t, dir, file, -1)
	if v, err = (Validator{}).Validate(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if !hasDefect(v, want{file: file, check: "rejected", row: 0, reason: "the record says turns"}) {
		t.Errorf("a rejected record with the wrong check passes:\n%s", defectLines(v))
	}
}

// TestHostileManifest: a manifest that is not a plain file, or larger
// than any release's, is refused without being read whole.
func TestHostileManifest(t *testing.T) {
	cases := map[string]func(t *testing.T, path string){
		"a link to a secret": func(t *testing.T, path string) {
			secret := filepath.Join(t.TempDir(), "environ")
			if err := os.WriteFile(secret, []byte(`{"synth_version": "OPENAI_API_KEY=sk-secret"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, path); err != nil {
				t.Fatal(err)
			}
		},
		"larger than the limit": func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(limitio.Manifest + 1); err != nil {
				t.Fatal(err)
			}
		},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["a device"] = func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			make(t, filepath.Join(dir, "manifest.json"))
			v, err := (Validator{}).Validate(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if !hasDefect(v, want{file: "manifest.json", check: "manifest", row: NoRow, reason: "not a synth release"}) {
				t.Fatalf("defects:\n%s", defectLines(v))
			}
			if strings.Contains(defectLines(v), "sk-secret") {
				t.Errorf("validate quotes the file a link points at:\n%s", defectLines(v))
			}
			if err := (Reporter{}).Write(context.Background(), dir, io.Discard); err == nil {
				t.Error("report read the manifest")
			}
		})
	}
}

// TestOlderBuiltinDomain: a release made on an older version of a
// built-in domain (synth 0.3's retail, whose database was Go code) is
// read and checked against its manifest, and says, as a warning, that its
// rows could not be re-verified; it is not failed for this synth's
// different database.
func TestOlderBuiltinDomain(t *testing.T) {
	v, err := (Validator{}).Validate(context.Background(), filepath.Join("..", "export", "testdata", "v1", "release"))
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() || !v.Unverified {
		t.Fatalf("ok %v, unverified %v, defects %v", v.OK(), v.Unverified, v.Defects)
	}
	found := false
	for _, w := range v.Warnings {
		found = found || strings.Contains(w.Reason, "built-in retail 1.0.0") && strings.Contains(w.Reason, "not re-verified")
	}
	if !found {
		t.Errorf("no warning says the rows were not re-verified: %v", v.Warnings)
	}
	var b strings.Builder
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), " re-verified\n") {
		t.Errorf("the summary claims re-verified rows:\n%s", b.String())
	}
}

// TestValidateMistakeFrom: a recovery row whose flawed agent announces
// its near-miss pick turns before the proposal the customer turns down
// weighs the announcement 0 too, and validate, which replays the
// oracle's dialogue to find where the row departs from it, fails a row
// that trains on it, whether its labels admit it or not.
func TestValidateMistakeFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("makes and validates a release of its own")
	}
	base := makeReleaseWith(t, 12, func(c *pipeline.Config) {
		c.Domain, c.DPO = "airline", false
		c.SetOption("recovery_share", 1)
	})
	// early finds a recovery row whose mistake starts before its pivotal
	// proposal, and its labels.
	early := func(t *testing.T, dir string) (string, []export.SFTRow, int, credit.Labels) {
		for _, split := range []string{"train", "validation", "test"} {
			rows := readSFT(t, dir, split)
			for k, r := range rows {
				var l credit.Labels
				if err := json.Unmarshal(r.Labels, &l); err != nil {
					t.Fatal(err)
				}
				if r.Kind == record.KindRecovery && l.MistakeFrom >= 0 && l.MistakeFrom < l.Pivotal {
					return split, rows, k, l
				}
			}
		}
		t.Fatal("no recovery row whose mistake starts before the turned-down proposal")
		return "", nil, -1, credit.Labels{}
	}
	cases := []struct {
		name   string
		damage func(rows []export.SFTRow, k int, l credit.Labels) want
	}{
		{"fresh", nil},
		{"the announcement trains", func(rows []export.SFTRow, k int, l credit.Labels) want {
			rows[k].Messages[l.MistakeFrom].Weight = nil
			return want{check: "weight", reason: fmt.Sprintf("message %d is the recovery's mistake", l.MistakeFrom)}
		}},
		{"labels that start the mistake at the proposal", func(rows []export.SFTRow, k int, l credit.Labels) want {
			for i := l.MistakeFrom; i < l.Pivotal; i++ {
				rows[k].Messages[i].Weight = nil
			}
			l.MistakeFrom = l.Pivotal
			raw, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			rows[k].Labels = raw
			return want{check: "labels", reason: `"mistake_from"`}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRelease(t, base)
			split, rows, k, l := early(t, dir)
			var w want
			if tc.damage != nil {
				w = tc.damage(rows, k, l)
				w.file, w.row, w.id = sftFile(split), k, rows[k].ID
				rewriteSFT(t, dir, split, rows)
				relist(t, dir, sftFile(split), -1)
			}
			v, err := (Validator{}).Validate(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.damage == nil && len(v.Defects) > 0:
				t.Fatalf("defects in a fresh release:\n%s", defectLines(v))
			case tc.damage != nil && !hasDefect(v, w):
				t.Fatalf("want %+v; defects:\n%s", w, defectLines(v))
			}
		})
	}
}

// TestWarningsExplained: warnings are said not to fail the release, each
// kind says whether it matters and what to do, and the verdict counts
// them instead of reading as if there were none.
func TestWarningsExplained(t *testing.T) {
	v := &Validation{Dir: "rel", Warnings: []Defect{
		{File: "sft/test-00000-of-00001.parquet", Row: 3, ID: "a", Check: "near_duplicate", Reason: "first user message \"hi\" (test) is, normalized, that of b in train (sft/train-00000-of-00001.parquet row 9)"},
		{File: "sft/test-00000-of-00001.parquet", Row: 5, ID: "c", Check: "near_duplicate", Reason: "first user message \"hello\" (test) is, normalized, that of d in train (sft/train-00000-of-00001.parquet row 2)"},
	}}
	var b strings.Builder
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"2 warnings (they do not fail the release):\n",
		"near_duplicate: the customer opens a dialogue in one split with the words of one in another.",
		"Nothing to do, unless an evaluation must not see a training dialogue's first line",
		"OK: no defects (2 warnings, explained above)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate's text lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "near_duplicate: the customer") != 1 {
		t.Errorf("the explanation is not said once:\n%s", out)
	}
}
