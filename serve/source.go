package serve

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/realpath"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// env is a loaded domain with its verifier and where its blueprints
// come from: a release's blueprints/ files, or the generator synth run
// builds for a config.
type env struct {
	d     *domain.Domain
	ver   *verify.Verifier
	tools engine.ToolChoice
	// gen makes blueprint i of a run (by seed and index); nil for a release.
	gen *blueprints.Generic
	// bps are a release's blueprints by id.
	bps map[string]*record.Blueprint
}

// offered is the OpenAI tools array a blueprint's policy is given: the
// tools its rows carry (--tools of the run or the release).
func (e *env) offered(bp *record.Blueprint) json.RawMessage {
	if e.tools.All() {
		return json.RawMessage(e.d.Tools.OpenAI())
	}
	return json.RawMessage(e.d.Tools.OpenAIOf(e.tools.Offered(e.d.Tools, bp)))
}

// envs caches loaded domains: a domain is loaded once for all its
// sessions, and at most limit of them are kept (the least recently used
// goes; its sessions keep their own reference).
type envs struct {
	mu    sync.Mutex
	limit int
	byKey map[string]*envEntry
	order []string // least recently used first
}

type envEntry struct {
	once sync.Once
	env  *env
	err  error
}

func newEnvs(limit int) *envs {
	return &envs{limit: max(limit, 1), byKey: map[string]*envEntry{}}
}

// get returns the env under key, loading it with load the first time.
// A failed load is not kept, so a fixed pack loads on the next try.
func (c *envs) get(key string, load func() (*env, error)) (*env, error) {
	c.mu.Lock()
	e, ok := c.byKey[key]
	if !ok {
		e = &envEntry{}
		c.byKey[key] = e
	}
	c.order = append(slices.DeleteFunc(c.order, func(k string) bool { return k == key }), key)
	for len(c.order) > c.limit {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
	c.mu.Unlock()
	e.once.Do(func() { e.env, e.err = load() })
	if e.err != nil {
		c.mu.Lock()
		if c.byKey[key] == e {
			delete(c.byKey, key)
			c.order = slices.DeleteFunc(c.order, func(k string) bool { return k == key })
		}
		c.mu.Unlock()
	}
	return e.env, e.err
}

// verifier builds a domain's verifier, as synth run does.
func verifier(d *domain.Domain) (*verify.Verifier, error) {
	sch, err := schemas.Compile()
	if err != nil {
		return nil, fmt.Errorf("record schemas: %w", err)
	}
	return verify.ForDomain(d, sch), nil
}

// local resolves a path a request names (a release or a pack folder)
// inside the server's root: a client may name only what the server was
// started to share.
func (s *Server) local(field, p string) (string, error) {
	if s.opts.Root == "" {
		return "", &reqError{field, fmt.Sprintf("%q: this server shares no folders (start synth serve with --root DIR)", p)}
	}
	root, err := filepath.Abs(s.opts.Root)
	if err != nil {
		return "", err
	}
	abs := filepath.Clean(filepath.Join(root, p))
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	}
	// Judged by what the path really names: a link under the root that
	// leads out of it (to $HOME, to /) does not share what it leads to.
	if _, in := realpath.Within(root, abs); !in {
		return "", &reqError{field, fmt.Sprintf("%q is outside the served root %s; name a folder under it", p, root)}
	}
	return abs, nil
}

// fromRelease finds a blueprint of a release by id.
func (s *Server) fromRelease(ctx context.Context, dir, id string) (*env, *record.Blueprint, error) {
	abs, err := s.local("release", dir)
	if err != nil {
		return nil, nil, err
	}
	e, err := s.envs.get("release\x00"+abs, func() (*env, error) { return loadRelease(abs) })
	if err != nil {
		return nil, nil, &reqError{"release", err.Error()}
	}
	bp, ok := e.bps[id]
	if !ok {
		return nil, nil, &reqError{"blueprint_id", fmt.Sprintf("%q is not a blueprint of the release %s (its blueprints/ files list %d)", id, dir, len(e.bps))}
	}
	return e, bp, nil
}

// loadRelease loads a release's domain (a built-in by name, else the
// pack it ships in domain/, as synth validate does) and its blueprints.
func loadRelease(dir string) (*env, error) {
	m, err := release.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a synth release: %w", dir, err)
	}
	d, older, err := domains.OfRelease(dir, m.Domain.Name, m.Domain.Version, m.Seed)
	if err != nil {
		return nil, fmt.Errorf("the domain of %s: %w", dir, err)
	}
	if older {
		return nil, fmt.Errorf("%s was made on the built-in %s %s and this synth has %s %s, which builds another database; serve it with synth %s",
			dir, d.Name, m.Domain.Version, d.Name, d.Version, m.SynthVersion)
	}
	mode, _ := m.Config["tools"].(string)
	tc, err := engine.ParseTools(mode)
	if err != nil {
		return nil, fmt.Errorf("%s manifest config.tools: %w", dir, err)
	}
	ver, err := verifier(d)
	if err != nil {
		return nil, err
	}
	e := &env{d: d, ver: ver, tools: tc, bps: map[string]*record.Blueprint{}}
	for _, f := range m.Files {
		if !strings.HasPrefix(f.Path, "blueprints/") || !strings.HasSuffix(f.Path, ".jsonl.gz") {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return nil, fmt.Errorf("%s manifest lists %q, a path outside the release", dir, f.Path)
		}
		if err := readBlueprints(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Rows, e.bps); err != nil {
			return nil, err
		}
	}
	if len(e.bps) == 0 {
		return nil, fmt.Errorf("%s lists no blueprints/ files in its manifest", dir)
	}
	return e, nil
}

// readBlueprints adds the blueprints of one gzipped JSONL file of a
// release, reading no more than the rows its manifest lists, each line
// within limitio.Line, and only a regular file: the release is a
// client's to name, and a small file can expand without end.
func readBlueprints(path string, rows int64, into map[string]*record.Blueprint) error {
	f, err := limitio.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	br := bufio.NewReaderSize(zr, 1<<16)
	for n := int64(1); ; n++ {
		line, err := limitio.ReadLine(br, limitio.Line)
		if len(line) > 0 {
			if n > rows {
				return fmt.Errorf("%s holds more than the %d blueprints its manifest lists", path, rows)
			}
			var bp record.Blueprint
			if err := json.Unmarshal(line, &bp); err != nil {
				return fmt.Errorf("%s blueprint %d: %w", path, n, err)
			}
			into[bp.ID] = &bp
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s blueprint %d: %w", path, n, err)
		}
	}
}

// fromSeed makes blueprint index of a run of the server's config with
// domain and seed: the blueprint synth run --domain D --seed S makes at
// that index.
func (s *Server) fromSeed(ctx context.Context, domain string, seed uint64, index int) (*env, *record.Blueprint, error) {
	if index < 0 || index >= pipeline.MaxN {
		return nil, nil, &reqError{"index", fmt.Sprintf("%d: want 0 to %d", index, pipeline.MaxN-1)}
	}
	src := domain
	if !slices.Contains(domains.Names(), domain) {
		abs, err := s.local("domain", domain)
		if err != nil {
			return nil, nil, &reqError{"domain", fmt.Sprintf("%q is not a built-in domain (%s) and not a pack folder this server shares: %v",
				domain, strings.Join(domains.Names(), ", "), err)}
		}
		src = abs
	}
	e, err := s.envs.get("run\x00"+src+"\x00"+strconv.FormatUint(seed, 10), func() (*env, error) {
		cfg := s.opts.Config
		cfg.Domain, cfg.Seed = src, seed
		d, err := domains.Load(src, seed)
		if err != nil {
			return nil, err
		}
		gen, err := pipeline.Generator(cfg, d)
		if err != nil {
			return nil, err
		}
		mode := cfg.Tools
		if mode == "" {
			mode = engine.DefaultTools(len(d.Tools.Tools()))
		}
		tc, err := engine.ParseTools(mode)
		if err != nil {
			return nil, err
		}
		ver, err := verifier(d)
		if err != nil {
			return nil, err
		}
		return &env{d: d, ver: ver, tools: tc, gen: gen}, nil
	})
	if err != nil {
		return nil, nil, &reqError{"domain", err.Error()}
	}
	bp, err := e.gen.Generate(ctx, index)
	if err != nil {
		return nil, nil, fmt.Errorf("blueprint %d of %s seed %d: %w", index, domain, seed, err)
	}
	return e, bp, nil
}
