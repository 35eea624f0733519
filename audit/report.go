package audit

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"

	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/corpus"
	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/verify"
)

//go:embed report.html.tmpl
var reportHTML string

// page is parsed once; a parsed html/template is safe for concurrent
// execution and never changes. Its functions do the little arithmetic
// that placing axis labels needs.
var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"addf":  func(a, b float64) float64 { return a + b },
	"halff": func(a float64) float64 { return a / 2 },
	"pct":   func(a float64) float64 { return 100 * a },
}).Parse(reportHTML))

// DefaultReportRows is how many dialogues a report shows.
const DefaultReportRows = 200

// Reporter renders releases as one self-contained HTML page. The zero
// value is ready to use.
type Reporter struct {
	// Rows is how many dialogues the page shows; 0 means
	// DefaultReportRows.
	Rows int
}

// Write renders the release in dir: counts and config, plots of its
// distributions drawn as inline SVG, and its first dialogues as a chat.
// The page loads nothing: no scripts, styles, fonts or images from
// anywhere, so it opens the same offline, from a mail attachment or
// from a Hugging Face file view.
func (r Reporter) Write(ctx context.Context, dir string, w io.Writer) error {
	rows := r.Rows
	if rows <= 0 {
		rows = DefaultReportRows
	}
	raw, err := limitio.ReadRegular(filepath.Join(dir, "manifest.json"), limitio.Manifest)
	if err != nil {
		return fmt.Errorf("%s is not a synth release (no readable manifest.json): %w", dir, err)
	}
	doc, err := parseManifest(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "manifest.json"), err)
	}
	data, err := gather(ctx, dir, doc, rows)
	if err != nil {
		return err
	}
	// Rendering into a buffer first means a failed template leaves no
	// half page behind in w.
	var buf bytes.Buffer
	if err := page.Execute(&buf, data); err != nil {
		return fmt.Errorf("render the report of %s: %w", dir, err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// languageSample is how many rows the language measures read: the
// default of synth stats --language, so the two agree.
const languageSample = 1000

// reportData is everything the page shows.
type reportData struct {
	Title, Subtitle string
	Counts          []stat
	Config          []stat
	Notes           []string
	Charts          []*chart
	Policy          string
	// Language is corpus's measure of the first rows, as synth stats
	// --language gives it.
	Language     *corpus.Summary
	Dialogues    []dialogueView
	Shown, Total int
}

type stat struct{ Label, Value, Note string }

type dialogueView struct {
	ID, Split, Behavior, Engine string
	Writes, Reads, Evidence     string
	Messages                    []messageView
}

type messageView struct {
	Role, Content, Reasoning string
	Name, CallID             string
	Calls                    []callView
	IsPolicy                 bool // the release's policy, shown once at the top
	Preview                  string
	Size                     string
}

type callView struct{ ID, Name, Args string }

// distributions are counted from the rows themselves rather than taken
// from the manifest, so the plots show what the files hold.
type distributions struct {
	writes, evidence, msgs, calls map[int]int
	failures                      map[string]int
}

// splitRank puts train first: the first dialogues shown should be the
// ones people train on.
func splitRank(split string) int {
	switch split {
	case "train":
		return 0
	case "validation":
		return 1
	case "test":
		return 2
	}
	return 3
}

func gather(ctx context.Context, dir string, doc *manifestDoc, rows int) (*reportData, error) {
	m := doc.m
	data := &reportData{
		Title:    fmt.Sprintf("synth release · %s", m.Domain.Name),
		Subtitle: fmt.Sprintf("synth %s · domain %s %s · seed %d · state %s", m.SynthVersion, m.Domain.Name, m.Domain.Version, m.Seed, release.Short(m.Domain.StateHash)),
	}
	if len(doc.problems) > 0 {
		data.Notes = append(data.Notes, fmt.Sprintf("The manifest has %d problems; run synth validate on this release.", len(doc.problems)))
	}
	t := &sftTally{
		data:    data,
		dist:    distributions{writes: map[int]int{}, evidence: map[int]int{}, msgs: map[int]int{}, calls: map[int]int{}, failures: map[string]int{}},
		meter:   corpus.NewMeter(),
		labels:  release.NewCreditStats(),
		bySplit: map[string]int{},
		rows:    rows,
	}
	for _, e := range entriesOf(doc, kindSFT) {
		err := export.ScanSFT(filepath.Join(dir, filepath.FromSlash(e.Path)), func(r export.SFTRow) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			t.add(e.split, r)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, e.Path), err)
		}
	}
	if data.Total > 0 {
		sum := t.meter.Summary(5)
		data.Language = &sum
	}
	dpoPairs := 0
	dpoBySplit := map[string]int{}
	for _, e := range entriesOf(doc, kindDPO) {
		err := export.ScanDPO(filepath.Join(dir, filepath.FromSlash(e.Path)), func(r export.DPORow) error {
			dpoPairs++
			dpoBySplit[e.split]++
			t.dist.failures[r.Failure]++
			return ctx.Err()
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, e.Path), err)
		}
	}
	data.Shown = len(data.Dialogues)
	data.Policy = t.policy
	c := m.Counts
	data.Counts = []stat{
		{"blueprints", strconv.Itoa(c.Blueprints), ""},
		{"verified", strconv.Itoa(c.Verified), ""},
		{"rejected", strconv.Itoa(c.Rejected), ""},
		{"SFT rows", strconv.Itoa(data.Total), splitNote(t.bySplit)},
		{"DPO pairs", strconv.Itoa(dpoPairs), splitNote(dpoBySplit)},
		{"files", strconv.Itoa(len(m.Files)), ""},
	}
	for _, k := range slices.Sorted(maps.Keys(m.Config)) {
		v, err := json.Marshal(m.Config[k])
		if err != nil {
			return nil, fmt.Errorf("%s: config.%s: %w", filepath.Join(dir, "manifest.json"), k, err)
		}
		data.Config = append(data.Config, stat{Label: k, Value: strings.Trim(string(v), `"`)})
	}
	dist := t.dist
	data.Charts = []*chart{
		histogram("writes", "Writes per task", "write decisions in a task", "tasks", dist.writes, 20),
		histogram("reads", "Reads needed per write", "reads before a write's arguments are identifiable", "writes", dist.evidence, 20),
		passRates(m),
		histogram("messages", "Messages per dialogue", "messages, system prompt included", "dialogues", dist.msgs, 12),
		histogram("toolcalls", "Tool calls per dialogue", "tool calls", "dialogues", dist.calls, 12),
	}
	if dpoPairs > 0 {
		data.Charts = append(data.Charts, categories("failures", "DPO failure types", "taxonomy label of each pair's rejected side", "pairs", dist.failures))
	}
	if t.labels.Rows > 0 {
		addLabels(data, t.labels)
	}
	return data, nil
}

// entriesOf are the manifest's files of kind, by split, then path.
func entriesOf(doc *manifestDoc, kind string) []entry {
	var out []entry
	for _, e := range doc.entries {
		if e.kind == kind {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b entry) int {
		return cmp.Or(cmp.Compare(splitRank(a.split), splitRank(b.split)), cmp.Compare(a.Path, b.Path))
	})
	return out
}

// sftTally gathers what the report shows of the SFT rows: counts and
// distributions, the language sample, labels, the policy and the first
// dialogues.
type sftTally struct {
	data    *reportData
	dist    distributions
	meter   *corpus.Meter
	labels  *release.CreditStats
	bySplit map[string]int
	policy  string
	rows    int
}

func (t *sftTally) add(split string, r export.SFTRow) {
	data := t.data
	if data.Total < languageSample {
		t.meter.Add(r.Messages, r.Kind)
	}
	data.Total++
	t.bySplit[split]++
	t.dist.writes[int(r.NWrites)]++
	for _, v := range r.Evidence {
		t.dist.evidence[int(v)]++
	}
	t.dist.msgs[len(r.Messages)]++
	calls := 0
	for _, msg := range r.Messages {
		calls += len(msg.ToolCalls)
	}
	t.dist.calls[calls]++
	var l credit.Labels
	if r.Labels != nil && json.Unmarshal(r.Labels, &l) == nil {
		t.labels.Add(l, r.Engine)
	}
	if t.policy == "" && len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		t.policy = r.Messages[0].Content
	}
	if len(data.Dialogues) < t.rows {
		data.Dialogues = append(data.Dialogues, dialogue(split, r, t.policy))
	}
}

// addLabels shows what the rows' per-turn labels sum to: chain length,
// coverage, the mix of action classes and Gold Action Recall.
func addLabels(data *reportData, c *release.CreditStats) {
	data.Counts = append(data.Counts, stat{"label coverage", fmt.Sprintf("%.1f%%", 100*c.Coverage),
		fmt.Sprintf("%d of %d chain steps; %d of %d rows fully covered", c.CoveredSteps, c.ChainSteps, c.FullyCovered, c.Rows)})
	for _, e := range slices.Sorted(maps.Keys(c.Gold)) {
		g := c.Gold[e]
		data.Counts = append(data.Counts, stat{"gold action recall · " + e, fmt.Sprintf("%.1f%%", 100*g.Recall), fmt.Sprintf("%d of %d assistant turns", g.Matched, g.Turns)})
	}
	chain := map[int]int{}
	for k, v := range c.ChainLength {
		n, _ := strconv.Atoi(k)
		chain[n] += v
	}
	data.Charts = append(data.Charts,
		histogram("chain", "Chain length", "ground-truth actions per task", "tasks", chain, 20),
		categories("classes", "Action classes", "assistant turns by class, from the labels column", "turns", c.Classes))
}

// splitNote lists counts per split, train first.
func splitNote(counts map[string]int) string {
	names := slices.Sorted(maps.Keys(counts))
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(splitRank(a), splitRank(b)) })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, counts[n])
	}
	return strings.Join(parts, " · ")
}

// passRates charts the share of simulated dialogues that passed each
// check, in the order the verifier runs them.
func passRates(m *release.Manifest) *chart {
	names := verify.Checks()
	for _, n := range slices.Sorted(maps.Keys(m.Checks)) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var items []hbarItem
	for _, n := range names {
		cs := m.Checks[n]
		if cs == nil {
			continue
		}
		total := cs.Passed + cs.Failed
		rate := 0.0
		if total > 0 {
			rate = float64(cs.Passed) / float64(total)
		}
		items = append(items, hbarItem{label: n, value: rate, text: fmt.Sprintf("%.1f%% (%d/%d)", 100*rate, cs.Passed, total)})
	}
	return hbars("checks", "Pass rate per check", "share of simulated dialogues passing, from the manifest", items, 1)
}

// categories charts counts by name, largest first.
func categories(id, title, caption, unit string, counts map[string]int) *chart {
	names := slices.Sorted(maps.Keys(counts))
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(counts[b], counts[a]) })
	top := 0
	for _, n := range names {
		top = max(top, counts[n])
	}
	items := make([]hbarItem, 0, len(names))
	for _, n := range names {
		items = append(items, hbarItem{label: n, value: float64(counts[n]), text: plural(counts[n], unit)})
	}
	return hbars(id, title, caption, items, float64(top))
}

// dialogue turns a row into what the page shows of it.
func dialogue(split string, r export.SFTRow, policy string) dialogueView {
	ev := make([]string, len(r.Evidence))
	for i, v := range r.Evidence {
		ev[i] = strconv.Itoa(int(v))
	}
	d := dialogueView{ID: r.ID, Split: split, Behavior: r.Behavior, Engine: r.Engine,
		Writes: plural(int(r.NWrites), "writes"), Reads: plural(int(r.NReads), "reads"), Evidence: strings.Join(ev, ", ")}
	for _, m := range r.Messages {
		v := messageView{Role: m.Role, Content: m.Content, Reasoning: m.ReasoningContent, Name: m.Name, CallID: m.ToolCallID}
		switch m.Role {
		case "system":
			v.IsPolicy = m.Content == policy
		case "tool":
			v.Preview = preview(m.Content)
			v.Size = size(len(m.Content))
			v.Content = pretty(m.Content)
		}
		for _, c := range m.ToolCalls {
			v.Calls = append(v.Calls, callView{ID: c.ID, Name: c.Function.Name, Args: pretty(c.Function.Arguments)})
		}
		d.Messages = append(d.Messages, v)
	}
	return d
}

// pretty indents JSON text for reading, and leaves anything else as it is.
func pretty(s string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		return s
	}
	return b.String()
}

// plural counts things whose unit is given in the plural: "1 pair",
// "2 pairs".
func plural(n int, unit string) string {
	if n == 1 {
		unit = strings.TrimSuffix(unit, "s")
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 90 {
		return string(r[:90]) + "…"
	}
	return s
}

func size(n int) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f kB", float64(n)/1000)
}
