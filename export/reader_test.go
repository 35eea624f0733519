package export

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/synth-data/synth/record"
)

// validSFTFile returns the bytes of a small, valid sft file of two row
// groups. It is kept small because the fuzzer mutates and minimizes
// inputs byte by byte.
func validSFTFile(t testing.TB) []byte {
	t.Helper()
	dir := t.TempDir()
	short := func(i int) SFTRow {
		m := sampleMessages(i)
		return SFTRow{ID: "s", Messages: []record.Message{m[1], m[7], m[8]}, NWrites: 1, Evidence: []int32{2}, Tools: "[]"}
	}
	files := writeSFT(t, dir, Options{RowsPerGroup: 2}, map[string][]SFTRow{"train": {short(0), short(1), short(2)}})
	data, err := os.ReadFile(abs(dir, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestReaderErrors(t *testing.T) {
	valid := validSFTFile(t)
	dpoDir := t.TempDir()
	w, err := NewWriter(dpoDir, "dpo", DPOSchema(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteDPO("train", sampleDPO(0)); err != nil {
		t.Fatal(err)
	}
	dpoFiles, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	dpo, err := os.ReadFile(abs(dpoDir, dpoFiles[0]))
	if err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	// Valid magic at both ends around garbage: gets past the first check.
	framed := append(append([]byte("PAR1"), random...), append([]byte{0x10, 0, 0, 0}, "PAR1"...)...)

	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty file", nil, "not a readable Parquet file"},
		{"random bytes", random, "not a readable Parquet file"},
		{"random bytes with magic", framed, "not a readable Parquet file"},
		{"truncated footer", valid[:len(valid)-10], "not a readable Parquet file"},
		{"truncated in the middle", valid[:len(valid)/2], "not a readable Parquet file"},
		{"dpo file read as sft", dpo, "not a synth sft file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "train-00000-of-00001.parquet")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readSFT(path, checkedAlloc(t))
			if err == nil {
				t.Fatal("read succeeded")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one naming %s and containing %q", err, path, tt.want)
			}
		})
	}

	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "nope.parquet")
		if _, err := ReadDPO(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("error = %v, want one naming %s", err, path)
		}
	})
}

// FuzzReadSFT feeds damaged files to the reader: it must return an error
// or rows, never panic.
func FuzzReadSFT(f *testing.F) {
	valid := validSFTFile(f)
	f.Add(valid)
	for _, n := range []int{0, 4, 8, 100, len(valid) / 2, len(valid) - 8, len(valid) - 1} {
		f.Add(valid[:n])
	}
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadSFT(path); err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}

// TestReaderSurvivesDamage flips bytes of a valid file, mostly in the
// footer and page headers where arrow-go is fragile, and checks every read
// ends in rows or an error naming the file. It is a cheap, deterministic
// companion to FuzzReadSFT for runs without -fuzz.
func TestReaderSurvivesDamage(t *testing.T) {
	valid := validSFTFile(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "damaged.parquet")
	rng := rand.New(rand.NewPCG(7, 9))
	iterations := 400
	if testing.Short() {
		iterations = 50
	}
	for range iterations {
		data := append([]byte(nil), valid...)
		for range 1 + rng.IntN(8) {
			i := rng.IntN(len(data))
			if rng.IntN(2) == 0 {
				i = len(data) - 1 - rng.IntN(min(len(data), 3000))
			}
			data[i] = byte(rng.UintN(256))
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadSFT(path); err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not name the file: %v", err)
		}
	}
}

// TestReadsFormatV1 reads a release made by synth 0.3 (format version 1:
// struct messages, arguments and tools as JSON text), which validate,
// stats, report and merge must keep reading, and checks that its rows
// survive a rewrite in the current format unchanged.
func TestReadsFormatV1(t *testing.T) {
	for _, tt := range []struct {
		config string
		rows   int
	}{{"sft", 12}, {"dpo", 12}} {
		t.Run(tt.config, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("testdata", "v1", "release", tt.config, "*.parquet"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no fixture files (%v)", err)
			}
			mem := checkedAlloc(t)
			dir := t.TempDir()
			w, err := NewWriter(dir, tt.config, map[string]*arrow.Schema{"sft": SFTSchema(), "dpo": DPOSchema()}[tt.config], Options{Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			var old []any
			n, calls := 0, 0
			for _, f := range files {
				if tt.config == "sft" {
					rows, err := readSFT(f, mem)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range rows {
						for _, m := range r.Messages {
							for _, c := range m.ToolCalls {
								calls++
								if !json.Valid([]byte(c.Function.Arguments)) {
									t.Errorf("%s: arguments %q are not JSON", r.ID, c.Function.Arguments)
								}
							}
						}
						old = append(old, r)
						if err := w.WriteSFT("train", r); err != nil {
							t.Fatal(err)
						}
					}
					n += len(rows)
				} else {
					rows, err := readDPO(f, mem)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range rows {
						old = append(old, r)
						if err := w.WriteDPO("train", r); err != nil {
							t.Fatal(err)
						}
					}
					n += len(rows)
				}
			}
			if n != tt.rows {
				t.Errorf("%d rows, want %d", n, tt.rows)
			}
			if tt.config == "sft" && calls == 0 {
				t.Error("no tool calls read")
			}
			out, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			var again []any
			for _, f := range out {
				if tt.config == "sft" {
					rows, err := readSFT(abs(dir, f), mem)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range rows {
						again = append(again, r)
					}
				} else {
					rows, err := readDPO(abs(dir, f), mem)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range rows {
						again = append(again, r)
					}
				}
			}
			mustEqual(t, "rows after a rewrite in format 2", again, old)
		})
	}
}

// FuzzParseMessageJSON: stored message text never panics the decoder, and
// what decodes re-encodes to an object that decodes the same.
func FuzzParseMessageJSON(f *testing.F) {
	for _, m := range sampleMessages(1) {
		f.Add(string(AppendMessageJSON(nil, &m)))
	}
	f.Add(`{"role":"user","content":null}`)
	f.Add(`{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"x"}}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMessageJSON([]byte(s))
		if err != nil {
			return
		}
		again, err := ParseMessageJSON(AppendMessageJSON(nil, &m))
		if err != nil {
			t.Fatalf("re-encoded %+v does not decode: %v", m, err)
		}
		if len(again.ToolCalls) != len(m.ToolCalls) || again.Role != m.Role || again.Content != m.Content {
			t.Fatalf("round trip changed %+v into %+v", m, again)
		}
	})
}
