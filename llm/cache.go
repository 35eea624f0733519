package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// cacheVersion changes when the key or the entry format changes, so old
// entries are simply never found again.
const cacheVersion = "synth-llm-cache-v2\n"

// diskCache stores raw response JSON, one file per request key, under
// dir/ab/abcdef….json. Entries are published whole (written to a temp
// file, then linked into place) and the first entry published for a key
// wins, so every process and goroutine that asks the same request ends up
// with the same response, which is what makes a cached rerun identical.
type diskCache struct {
	dir string
}

func newDiskCache(dir string) (*diskCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("llm.cache %s: %w; set llm.cache to a writable directory, or %q", dir, err, CacheOff)
	}
	return &diskCache{dir: dir}, nil
}

// cacheKey hashes the base URL and the final wire body of a request. The
// body holds what decides the response (model, messages, tools, sampling,
// session id); the base URL tells two servers serving the same model name
// apart (a local vLLM and OpenAI, two quantisations). Headers and the key
// stay out: they identify the caller, not the answer.
func cacheKey(baseURL string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(cacheVersion))
	h.Write([]byte(strings.TrimRight(baseURL, "/") + "\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func (c *diskCache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// get returns a valid entry. found reports that a file exists, valid or
// not; a corrupt one is left for put to replace.
func (c *diskCache) get(key string) (resp openai.ChatCompletionResponse, found bool, err error) {
	raw, err := os.ReadFile(c.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return resp, false, nil
	}
	if err != nil {
		return resp, true, err
	}
	resp, err = decodeEntry(raw)
	return resp, true, err
}

// put publishes raw under key unless a valid entry is already there, and
// returns the response of the entry now in place: raw's, or the earlier
// writer's. A corrupt entry is replaced.
func (c *diskCache) put(key string, raw []byte) (resp openai.ChatCompletionResponse, err error) {
	final := c.path(key)
	sub := filepath.Dir(final)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return resp, err
	}
	tmp, err := os.CreateTemp(sub, ".tmp-*")
	if err != nil {
		return resp, err
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	// No fsync: a torn entry after a crash decodes as corrupt and is
	// fetched again, which costs one request, while an fsync per response
	// would cost milliseconds on every call.
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return resp, err
	}
	if err := tmp.Close(); err != nil {
		return resp, err
	}
	linkErr := os.Link(tmpName, final)
	if linkErr == nil {
		return decodeEntry(raw)
	}
	if errors.Is(linkErr, fs.ErrExist) {
		if prev, found, err := c.get(key); found && err == nil {
			return prev, nil
		}
	}
	// The entry is corrupt, or the file system has no hard links: replace.
	if err := os.Rename(tmpName, final); err != nil {
		return resp, err
	}
	return decodeEntry(raw)
}

// decodeEntry decodes a response the way go-openai decodes a live one
// (one JSON value from a stream), so a response served from the cache is
// the same value the live request returned, and checks it is usable.
func decodeEntry(raw []byte) (openai.ChatCompletionResponse, error) {
	var resp openai.ChatCompletionResponse
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&resp); err != nil {
		return openai.ChatCompletionResponse{}, fmt.Errorf("response is not valid JSON: %w", err)
	}
	if len(resp.Choices) == 0 {
		return openai.ChatCompletionResponse{}, errNoChoices
	}
	normalizeReasoning(&resp, raw)
	return resp, nil
}

var errNoChoices = errors.New("response has no choices")
