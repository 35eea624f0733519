package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixtureRelease writes a tiny release by hand: three dialogues and two
// pairs whose text exercises escaping. It does not depend on the
// generator, so the golden report changes only when the report does.
func fixtureRelease(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	const policy = "You are a retail agent. Follow the policy."
	call := func(id, name, args string) record.Message {
		return record.Message{Role: "assistant", ToolCalls: []record.ToolCall{{ID: id, Type: "function", Function: record.FunctionCall{Name: name, Arguments: args}}}}
	}
	result := func(id, name, content string) record.Message {
		return record.Message{Role: "tool", ToolCallID: id, Name: name, Content: content}
	}
	say := func(role, text string) record.Message { return record.Message{Role: role, Content: text} }
	dialogue := func(n int, extra ...record.Message) []record.Message {
		msgs := []record.Message{say("system", policy), say("user", "Hi, I'd like to cancel an order.")}
		msgs = append(msgs,
			call("abcdefgh"+string(rune('0'+n)), "find_user_id_by_email", `{"email":"ana@example.com"}`),
			result("abcdefgh"+string(rune('0'+n)), "find_user_id_by_email", "ana_lopez_1234"),
			say("assistant", "Thanks, Ana. Which order?"))
		return append(msgs, extra...)
	}
	rows := []struct {
		split string
		row   export.SFTRow
	}{
		{"train", export.SFTRow{ID: "fx-1", BlueprintID: "fx-1", Domain: "retail", Tools: "[]", NWrites: 1, NReads: 3, Evidence: []int32{3}, Behavior: "upfront", Engine: "embedded",
			Labels: json.RawMessage(`{"chain_length":3,"progress":3,"coverage":1,"pivotal":-1,"correcting":-1,"outcome":1,"steps":[],"turns":[` +
				`{"message":2,"class":"read","gold":"read"},{"message":4,"class":"ask","gold":"ask"},{"message":6,"class":"read","gold":"read"},` +
				`{"message":8,"class":"confirm","gold":"confirm"},{"message":10,"class":"write","gold":"write"},{"message":12,"class":"inform","gold":"inform"}]}`),
			Messages: dialogue(1, say("user", `Order #W1 — and <script>alert("x")</script> & "quotes"`),
				call("qwertyui1", "get_order_details", `{"order_id":"#W1"}`),
				result("qwertyui1", "get_order_details", `{"order_id":"#W1","status":"pending","total":12.5}`),
				say("assistant", "Order #W1 is pending, total $12.50. Cancel it?"), say("user", "Yes."),
				call("zxcvbnma1", "cancel_pending_order", `{"order_id":"#W1","reason":"no longer needed"}`),
				result("zxcvbnma1", "cancel_pending_order", `{"status":"cancelled"}`),
				say("assistant", "Done: #W1 is cancelled."))}},
		{"train", export.SFTRow{ID: "fx-2", BlueprintID: "fx-2", Domain: "retail", Tools: "[]", Behavior: "minimal", Engine: "embedded",
			Labels: json.RawMessage(`{"chain_length":2,"progress":2,"coverage":1,"pivotal":-1,"correcting":-1,"outcome":1,"steps":[],"turns":[` +
				`{"message":2,"class":"read","gold":"read"},{"message":4,"class":"ask","gold":"read"},{"message":6,"class":"inform","gold":"inform"}]}`),
			Messages: dialogue(2, say("user", "Just checking the status."), say("assistant", "It is delivered."))}},
		{"test", export.SFTRow{ID: "fx-3", BlueprintID: "fx-3", Domain: "retail", Tools: "[]", NWrites: 2, NReads: 9, Evidence: []int32{4, 5}, Behavior: "typos", Engine: "embedded",
			Messages: dialogue(3, say("user", "thx"), say("assistant", "Bye!"))}},
	}
	sft, err := export.NewWriter(dir, "sft", export.SFTSchema(), export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := sft.WriteSFT(r.split, r.row); err != nil {
			t.Fatal(err)
		}
	}
	files, err := sft.Close()
	if err != nil {
		t.Fatal(err)
	}
	dpo, err := export.NewWriter(dir, "dpo", export.DPOSchema(), export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"wrong_target", "stops_early", "wrong_target"} {
		msgs := rows[0].row.Messages
		if err := dpo.WriteDPO("train", export.DPORow{ID: "fx-1-" + f, BlueprintID: "fx-1", Domain: "retail", Prompt: msgs[:2], Chosen: msgs[2:3], Rejected: msgs[2:3], Tools: "[]", Failure: f}); err != nil {
			t.Fatal(err)
		}
	}
	more, err := dpo.Close()
	if err != nil {
		t.Fatal(err)
	}
	m := release.Manifest{
		SynthVersion: "0.0.0-fixture", Seed: 7,
		Config: map[string]any{"domain": "retail", "n": 3, "seed": 7, "dpo": true, "writes": "0-2"},
		Domain: release.DomainInfo{Name: "retail", Version: "1.0.0", StateHash: strings.Repeat("ab", 32)},
		Counts: release.Counts{Blueprints: 4, Simulated: 4, Verified: 3, Rejected: 1, SFTRows: 3, BySplit: map[string]int{"train": 2, "test": 1}, DPOPairs: 3},
		Checks: map[string]*release.CheckStats{
			"record_schema": {Passed: 4}, "tool_schema": {Passed: 4}, "state": {Passed: 3, Failed: 1}, "ending": {Passed: 4},
			"<b>custom</b>": {Passed: 1, Failed: 1},
		},
	}
	for _, f := range append(files, more...) {
		m.Files = append(m.Files, release.FileEntry{Path: f.Path, Split: f.Split, Rows: f.Rows, SHA256: f.SHA256, Bytes: f.Bytes})
	}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportGolden(t *testing.T) {
	var b bytes.Buffer
	if err := (Reporter{}).Write(context.Background(), fixtureRelease(t), &b); err != nil {
		t.Fatal(err)
	}
	got := b.Bytes()
	path := filepath.Join("testdata", "report.golden.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./audit -run TestReportGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the report differs from %s; if the change is intended, rerun with -update and review the diff", path)
	}
}

func TestReportEscapesAndIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := (Reporter{}).Write(context.Background(), fixtureRelease(t), &b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{`<script>alert`, `<b>custom</b>`, "http://", "https://", "<link", "<img", "@import", "url("} {
		// The SVG namespace is an identifier, not a request.
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	for _, good := range []string{`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`, `&lt;b&gt;custom&lt;/b&gt;`, `id="chart-writes"`, `id="chart-failures"`, "cancel_pending_order", "3 of 3 shown"} {
		if !strings.Contains(page, good) {
			t.Errorf("the page lacks %q", good)
		}
	}
	if n := strings.Count(page, "<script>"); n != 1 {
		t.Errorf("%d script elements, want the page's own one", n)
	}
}

func TestReportRowsLimit(t *testing.T) {
	var b bytes.Buffer
	if err := (Reporter{Rows: 1}).Write(context.Background(), fixtureRelease(t), &b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), `<details class="dialogue"`); n != 1 {
		t.Errorf("%d dialogues shown, want 1", n)
	}
}

func TestReportDamagedRelease(t *testing.T) {
	dir := fixtureRelease(t)
	p := filepath.Join(dir, "sft", "train-00000-of-00001.parquet")
	if err := os.WriteFile(p, []byte("PAR1 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := (Reporter{}).Write(context.Background(), dir, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "sft/train-00000-of-00001.parquet") {
		t.Errorf("damaged file: %v", err)
	}
	if err := (Reporter{}).Write(context.Background(), t.TempDir(), &bytes.Buffer{}); err == nil {
		t.Error("no error for a folder without a release")
	}
}

func TestHistogramLayout(t *testing.T) {
	c := histogram("x", "X", "values", "rows", map[int]int{0: 4, 1: 10, 3: 2}, 20)
	if len(c.Bars) != 4 {
		t.Fatalf("%d bars for values 0..3, want 4 (gaps included)", len(c.Bars))
	}
	if c.Bars[2].H != 0 || c.Bars[2].Value != "" {
		t.Errorf("value 2 never occurs but has a bar of height %v", c.Bars[2].H)
	}
	for _, b := range c.Bars {
		if b.X < c.PlotX || b.X+b.W > c.PlotX+c.PlotW || b.Y < c.PlotY-0.001 || b.Y+b.H > c.PlotY+c.PlotH+0.001 {
			t.Errorf("bar %s at (%v,%v) %vx%v lies outside the plot", b.Label, b.X, b.Y, b.W, b.H)
		}
	}
	if c.Bars[1].H <= c.Bars[0].H {
		t.Error("a larger count has a shorter bar")
	}
	wide := histogram("y", "Y", "values", "rows", map[int]int{3: 1, 97: 1}, 12)
	if len(wide.Bars) > 12 || wide.Bars[0].Label != "0–9" {
		t.Errorf("values 3..97 in at most 12 bars: %d bars, first %q", len(wide.Bars), wide.Bars[0].Label)
	}
	if empty := histogram("z", "Z", "", "rows", nil, 10); len(empty.Bars) != 0 || empty.Caption != "no data" {
		t.Errorf("empty histogram: %+v", empty)
	}
}

// TestHbarsFitLongNames: a policy rule's long name fits left of its bar:
// the label column and the chart widen instead of the name running off
// the chart's left edge, and such a chart takes a row of its own.
func TestHbarsFitLongNames(t *testing.T) {
	long := "rule:from_customer:default_address_from_customer"
	c := hbars("checks", "Checks", "", []hbarItem{{label: "state", value: 1, text: "100%"}, {label: long, value: 0.5, text: "50%"}}, 1)
	for _, b := range c.Bars {
		// Labels are right-aligned at LX; at 11px sans-serif a character
		// is at most about 6.4 units wide.
		if start := b.LX - float64(len(b.Label))*6.4; start < 0 {
			t.Errorf("label %q starts at x=%.1f, outside the chart", b.Label, start)
		}
		if b.X+b.W > float64(c.Width) || b.VX > float64(c.Width)-hbarValues+b.W+6.001 {
			t.Errorf("bar %q reaches past the chart's width %d", b.Label, c.Width)
		}
	}
	if !c.Wide || c.Width <= chartW {
		t.Errorf("a chart with a %d-character label is %d wide, Wide %v", len(long), c.Width, c.Wide)
	}
	if short := hbars("x", "X", "", []hbarItem{{label: "state", value: 1, text: "1"}}, 1); short.Wide || short.Width != chartW {
		t.Errorf("short labels: width %d, Wide %v", short.Width, short.Wide)
	}
}

func TestBucketWidthAndScale(t *testing.T) {
	for _, c := range []struct{ span, bars, want int }{{6, 20, 1}, {20, 20, 1}, {21, 20, 2}, {95, 12, 10}, {1000, 12, 100}, {1, 0, 1}} {
		if got := bucketWidth(c.span, c.bars); got != c.want {
			t.Errorf("bucketWidth(%d, %d) = %d, want %d", c.span, c.bars, got, c.want)
		}
	}
	for _, c := range []struct{ top, step, ymax int }{{0, 1, 1}, {3, 1, 3}, {157, 50, 200}, {83, 50, 100}, {12, 5, 15}} {
		if step, ymax := niceScale(c.top); step != c.step || ymax != c.ymax {
			t.Errorf("niceScale(%d) = %d, %d; want %d, %d", c.top, step, ymax, c.step, c.ymax)
		}
	}
}

// TestReportInChromium opens a report of a real release in Debian's
// headless Chromium through test/report/check_report.mjs. It needs node,
// /usr/bin/chromium and `npm ci --prefix test/report`; without them it
// skips, unless SYNTH_REQUIRE_BROWSER=1 makes that a failure (CI).
// SYNTH_REPORT_SCREENSHOT keeps the screenshot at a path of your choice.
func TestReportInChromium(t *testing.T) {
	missing := func(what string) {
		t.Helper()
		if os.Getenv("SYNTH_REQUIRE_BROWSER") == "1" {
			t.Fatalf("SYNTH_REQUIRE_BROWSER=1 but %s", what)
		}
		t.Skipf("skipping the browser check: %s", what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		missing(chromium + " is missing (apt-get install -y chromium)")
	}
	scripts := filepath.Join("..", "test", "report")
	if _, err := os.Stat(filepath.Join(scripts, "node_modules", "playwright-core")); err != nil {
		missing("playwright-core is not installed (npm ci --prefix test/report)")
	}

	dir := makeRelease(t, 60)
	report := filepath.Join(dir, "report.html")
	f, err := os.Create(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := (Reporter{}).Write(context.Background(), dir, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	shot := os.Getenv("SYNTH_REPORT_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "report.png")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, filepath.Join(scripts, "check_report.mjs"), report, shot).CombinedOutput()
	if err != nil {
		t.Fatalf("check_report.mjs: %v\n%s", err, out)
	}
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("%s is not a screenshot (%d bytes)", shot, len(png))
	}
	t.Logf("%s", bytes.TrimSpace(out))
}
