package pipeline

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/release"
)

// jsonlSink streams JSON lines into a gzip file published atomically.
// gzip without a name or time in its header keeps output byte-identical.
type jsonlSink struct {
	kind  string
	split string
	rel   string
	af    *export.AtomicFile
	sum   hash.Hash
	gz    *gzip.Writer
	rows  int64
	size  countWriter
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func newJSONLSink(dir, rel string) (*jsonlSink, error) {
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	af, err := export.CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	s := &jsonlSink{rel: rel, af: af, sum: sha256.New()}
	gz, err := gzip.NewWriterLevel(io.MultiWriter(af, s.sum, &s.size), gzip.DefaultCompression)
	if err != nil {
		af.Abort()
		return nil, err
	}
	s.gz = gz
	return s, nil
}

func (s *jsonlSink) write(line []byte) error {
	if _, err := s.gz.Write(line); err != nil {
		return fmt.Errorf("write %s: %w", s.rel, err)
	}
	if _, err := s.gz.Write([]byte{'\n'}); err != nil {
		return fmt.Errorf("write %s: %w", s.rel, err)
	}
	s.rows++
	return nil
}

func (s *jsonlSink) commit() (release.FileEntry, error) {
	if err := s.gz.Close(); err != nil {
		s.af.Abort()
		return release.FileEntry{}, fmt.Errorf("write %s: %w", s.rel, err)
	}
	if err := s.af.Commit(); err != nil {
		return release.FileEntry{}, fmt.Errorf("write %s: %w", s.rel, err)
	}
	return release.FileEntry{Path: s.rel, Rows: s.rows, SHA256: hex.EncodeToString(s.sum.Sum(nil)), Bytes: s.size.n}, nil
}

func (s *jsonlSink) abort() { s.af.Abort() }
