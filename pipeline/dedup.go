package pipeline

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// Duplicate removal. Every verified dialogue gets an exact key and two
// MinHash signatures: one over word 3-grams of its user turns, one over
// its tool calls (each call, and each pair of consecutive calls). At
// finalisation, in blueprint order, a dialogue is an exact duplicate of an
// earlier one with the same key, and a near duplicate of an earlier one it
// shares at least two locality-sensitive bands with in both signatures (4
// bands of 4 hashes: likely above Jaccard 0.9, rare below 0.5). The earlier twin
// is kept. The tables (open addressing, at most 2^22 slots each, about
// 120 MB in all) are sized for the run and never grow past that, so memory
// is bounded whatever -n: beyond about a million dialogues a crowded probe
// window may forget an old entry, and a far-apart duplicate can then go
// unnoticed.

const (
	sigHashes = 16
	sigBands  = 4
	bandRows  = sigHashes / sigBands
	// minBandHits: a near duplicate shares at least two bands of each
	// signature: about 84% likely at Jaccard 0.9, 2% at 0.5. One band
	// would flag short, template-like dialogues of the same customer.
	minBandHits = 2
)

// signature is what dedup needs of one dialogue.
type signature struct {
	Index int64
	ID    string
	Split string
	Exact uint64
	User  [sigHashes]uint32
	Tools [sigHashes]uint32
}

func minhash(tokens []uint64) [sigHashes]uint32 {
	var sig [sigHashes]uint32
	for i := range sig {
		sig[i] = ^uint32(0)
	}
	for _, t := range tokens {
		for i := range sig {
			if h := uint32(release.Mix(t ^ uint64(i)*0x9e3779b97f4a7c15)); h < sig[i] {
				sig[i] = h
			}
		}
	}
	return sig
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// signTrajectory computes a dialogue's dedup signature.
func signTrajectory(index int, id, split string, tr *record.Trajectory) signature {
	exact := fnv.New64a()
	var user []string
	var calls []uint64
	for _, m := range tr.Messages {
		switch m.Role {
		case "user":
			user = append(user, words(m.Content)...)
			exact.Write([]byte("u\x00" + m.Content + "\x00"))
		case "assistant":
			for _, c := range m.ToolCalls {
				exact.Write([]byte("c\x00" + c.Function.Name + "\x00" + c.Function.Arguments + "\x00"))
				calls = append(calls, release.StringHash(c.Function.Name+"("+c.Function.Arguments+")"))
			}
		}
	}
	var ut []uint64
	for i := 0; i+3 <= len(user); i++ {
		ut = append(ut, release.StringHash(user[i]+" "+user[i+1]+" "+user[i+2]))
	}
	if len(ut) == 0 {
		ut = append(ut, release.StringHash(strings.Join(user, " ")))
	}
	tt := append([]uint64(nil), calls...)
	for i := 0; i+1 < len(calls); i++ {
		tt = append(tt, calls[i]*31+calls[i+1])
	}
	if len(tt) == 0 {
		tt = append(tt, 0)
	}
	return signature{Index: int64(index), ID: id, Split: split, Exact: exact.Sum64(), User: minhash(ut), Tools: minhash(tt)}
}

func (s signature) bands(sig [sigHashes]uint32, kind byte) [sigBands]uint64 {
	var out [sigBands]uint64
	for b := range out {
		h := fnv.New64a()
		h.Write([]byte{kind, byte(b)})
		var buf [4]byte
		for _, x := range sig[b*bandRows : (b+1)*bandRows] {
			binary.LittleEndian.PutUint32(buf[:], x)
			h.Write(buf[:])
		}
		out[b] = h.Sum64()
	}
	return out
}

// writeSignature appends a signature in a compact binary form.
func writeSignature(w io.Writer, s signature) error {
	buf := make([]byte, 0, 8+2+len(s.ID)+1+len(s.Split)+8+8*sigHashes)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(s.Index))
	buf = binary.LittleEndian.AppendUint16(buf, uint16(len(s.ID)))
	buf = append(buf, s.ID...)
	buf = append(buf, byte(len(s.Split)))
	buf = append(buf, s.Split...)
	buf = binary.LittleEndian.AppendUint64(buf, s.Exact)
	for _, x := range s.User {
		buf = binary.LittleEndian.AppendUint32(buf, x)
	}
	for _, x := range s.Tools {
		buf = binary.LittleEndian.AppendUint32(buf, x)
	}
	_, err := w.Write(buf)
	return err
}

func readSignature(r io.Reader) (signature, error) {
	var s signature
	var head [10]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return s, err
	}
	s.Index = int64(binary.LittleEndian.Uint64(head[:8]))
	id := make([]byte, binary.LittleEndian.Uint16(head[8:]))
	if _, err := io.ReadFull(r, id); err != nil {
		return s, fmt.Errorf("truncated signature: %w", err)
	}
	s.ID = string(id)
	var n [1]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return s, fmt.Errorf("truncated signature: %w", err)
	}
	split := make([]byte, n[0])
	if _, err := io.ReadFull(r, split); err != nil {
		return s, fmt.Errorf("truncated signature: %w", err)
	}
	s.Split = string(split)
	rest := make([]byte, 8+8*sigHashes)
	if _, err := io.ReadFull(r, rest); err != nil {
		return s, fmt.Errorf("truncated signature: %w", err)
	}
	s.Exact = binary.LittleEndian.Uint64(rest)
	for i := range s.User {
		s.User[i] = binary.LittleEndian.Uint32(rest[8+4*i:])
		s.Tools[i] = binary.LittleEndian.Uint32(rest[8+4*sigHashes+4*i:])
	}
	return s, nil
}

// bandTable maps a band key to the first dialogue seen with it, in a
// fixed number of slots (a newer band may evict an older one).
type bandTable struct {
	keys []uint64
	idx  []int32 // ordinal of the dialogue in the table's run, +1 (0 = empty)
}

func newBandTable(entries int) *bandTable {
	n := 1 << 10
	for n < 2*entries && n < 1<<22 {
		n <<= 1
	}
	return &bandTable{keys: make([]uint64, n), idx: make([]int32, n)}
}

func (t *bandTable) slot(key uint64) int { return int(release.Mix(key) & uint64(len(t.keys)-1)) }

// probes bounds linear probing; only a table crowded past it forgets.
const probes = 16

// lookup returns the ordinal of the dialogue that first had key, or -1.
func (t *bandTable) lookup(key uint64) int {
	s := t.slot(key)
	for p := 0; p < probes; p++ {
		i := (s + p) & (len(t.keys) - 1)
		if t.idx[i] == 0 {
			return -1
		}
		if t.keys[i] == key {
			return int(t.idx[i] - 1)
		}
	}
	return -1
}

func (t *bandTable) insert(key uint64, ord int) {
	s := t.slot(key)
	for p := 0; p < probes; p++ {
		i := (s + p) & (len(t.keys) - 1)
		if t.idx[i] == 0 {
			t.keys[i], t.idx[i] = key, int32(ord+1)
			return
		}
		if t.keys[i] == key {
			return // keep the first
		}
	}
	// Crowded: the oldest entry of the probe window gives way.
	t.keys[s], t.idx[s] = key, int32(ord+1)
}

// deduper decides, in order, which dialogues duplicate an earlier one.
type deduper struct {
	exact, user, tools *bandTable
	index              []int64 // blueprint index by ordinal, to name the kept twin
}

func newDeduper(rows int) *deduper {
	return &deduper{exact: newBandTable(rows), user: newBandTable(sigBands * rows), tools: newBandTable(sigBands * rows)}
}

// Duplicate is a removed dialogue and the twin that was kept.
type Duplicate struct {
	ID        string `json:"id"`
	Split     string `json:"split"`
	KeptIndex int64  `json:"kept_blueprint_index"`
	Reason    string `json:"reason"` // exact or near
}

// check returns the duplicate record if s repeats an earlier dialogue;
// otherwise it remembers s.
func (d *deduper) check(s signature) *Duplicate {
	if o := d.exact.lookup(s.Exact); o >= 0 {
		return &Duplicate{ID: s.ID, Split: s.Split, KeptIndex: d.index[o], Reason: "exact"}
	}
	ub, tb := s.bands(s.User, 'u'), s.bands(s.Tools, 't')
	userHits, toolHits := map[int]int{}, map[int]int{}
	for _, k := range ub {
		if o := d.user.lookup(k); o >= 0 {
			userHits[o]++
		}
	}
	for _, k := range tb {
		if o := d.tools.lookup(k); o >= 0 {
			toolHits[o]++
		}
	}
	best := -1
	for o, n := range toolHits {
		if n >= minBandHits && userHits[o] >= minBandHits && (best < 0 || o < best) {
			best = o
		}
	}
	if best >= 0 {
		return &Duplicate{ID: s.ID, Split: s.Split, KeptIndex: d.index[best], Reason: "near"}
	}
	ord := len(d.index)
	d.index = append(d.index, s.Index)
	d.exact.insert(s.Exact, ord)
	for _, k := range ub {
		d.user.insert(k, ord)
	}
	for _, k := range tb {
		d.tools.insert(k, ord)
	}
	return nil
}

// findDuplicates reads every chunk's signatures in order and returns the
// removed dialogues, and per chunk the ids to drop.
func findDuplicates(chunkDirs []string, sums []*release.ChunkSummary) ([]Duplicate, map[int]map[string]bool, error) {
	rows := 0
	for _, s := range sums {
		rows += s.Counts.Verified
	}
	d := newDeduper(rows)
	var dups []Duplicate
	drop := map[int]map[string]bool{}
	for i, dir := range chunkDirs {
		f, err := limitio.OpenRegular(filepath.Join(dir, sigFileName))
		if err != nil {
			return nil, nil, fmt.Errorf("chunk %d: %w", i, err)
		}
		r := bufio.NewReader(f)
		for {
			s, err := readSignature(r)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return nil, nil, fmt.Errorf("%s: %w", filepath.Join(dir, sigFileName), err)
			}
			if dup := d.check(s); dup != nil {
				dups = append(dups, *dup)
				if drop[i] == nil {
					drop[i] = map[string]bool{}
				}
				drop[i][dup.ID] = true
			}
		}
		f.Close()
	}
	return dups, drop, nil
}

// dropRows rewrites the files of one chunk without the dropped dialogues
// (their SFT rows, DPO pairs and failure records) into tmp, and updates
// the chunk's summary to match. It returns the new source of each file.
func dropRows(chunkDir, tmp string, s *release.ChunkSummary, drop map[string]bool) (map[string]string, error) {
	src := map[string]string{}
	var kept []release.ChunkFile
	w := map[string]*export.Writer{}
	opts := export.Options{RowsPerFile: 1 << 30, MaxFileBytes: 1 << 40}
	var err error
	if w["sft"], err = export.NewWriter(tmp, "sft", export.SFTSchema(), opts); err != nil {
		return nil, err
	}
	if w["dpo"], err = export.NewWriter(tmp, "dpo", export.DPOSchema(), opts); err != nil {
		return nil, err
	}
	for _, f := range s.Files {
		path := filepath.Join(chunkDir, f.Name)
		switch f.Kind {
		case "sft":
			err = export.ScanSFT(path, func(r export.SFTRow) error {
				if drop[r.BlueprintID] {
					s.Counts.SFTRows--
					s.Counts.BySplit[f.Split]--
					return nil
				}
				return w["sft"].WriteSFT(f.Split, r)
			})
		case "dpo":
			err = export.ScanDPO(path, func(r export.DPORow) error {
				if drop[r.BlueprintID] {
					s.Counts.DPOPairs--
					if s.DPO != nil {
						s.DPO.Pairs--
						s.DPO.ByFailure[r.Failure]--
						s.DPO.BySplit[f.Split]--
						s.DPO.LengthRatio[dpo.LengthBucket(r.Chosen, r.Rejected)]--
						if export.AssistantOnly(&r) {
							s.DPO.AssistantOnly--
						}
					}
					return nil
				}
				return w["dpo"].WriteDPO(f.Split, r)
			})
		case "dpo_failures":
			var cf release.ChunkFile
			if cf, err = filterJSONL(path, tmp, f, drop); err == nil && cf.Rows > 0 {
				src[cf.Name] = filepath.Join(tmp, cf.Name)
				kept = append(kept, cf)
			}
		default:
			src[f.Name] = path
			kept = append(kept, f)
		}
		if err != nil {
			w["sft"].Abort()
			w["dpo"].Abort()
			return nil, fmt.Errorf("drop duplicates from %s: %w", path, err)
		}
	}
	for kind, wr := range w {
		files, err := wr.Close()
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			kept = append(kept, release.ChunkFile{Kind: kind, Split: f.Split, Name: f.Path, Rows: f.Rows, SHA256: f.SHA256, Bytes: f.Bytes})
			src[f.Path] = filepath.Join(tmp, filepath.FromSlash(f.Path))
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Name < kept[j].Name })
	s.Files = kept
	return src, nil
}

// filterJSONL copies a gzip JSON-lines file of DPO failure records
// without the records of dropped blueprints.
func filterJSONL(path, tmp string, f release.ChunkFile, drop map[string]bool) (release.ChunkFile, error) {
	in, err := os.Open(path)
	if err != nil {
		return release.ChunkFile{}, err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return release.ChunkFile{}, err
	}
	out, err := newJSONLSink(tmp, f.Name)
	if err != nil {
		return release.ChunkFile{}, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var rec struct {
			BlueprintID string `json:"blueprint_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			out.abort()
			return release.ChunkFile{}, err
		}
		if drop[rec.BlueprintID] {
			continue
		}
		if err := out.write(append([]byte(nil), sc.Bytes()...)); err != nil {
			out.abort()
			return release.ChunkFile{}, err
		}
	}
	if err := sc.Err(); err != nil {
		out.abort()
		return release.ChunkFile{}, err
	}
	e, err := out.commit()
	if err != nil {
		return release.ChunkFile{}, err
	}
	return release.ChunkFile{Kind: f.Kind, Split: f.Split, Name: f.Name, Rows: e.Rows, SHA256: e.SHA256, Bytes: e.Bytes}, nil
}
