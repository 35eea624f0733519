package verify_test

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// A disclosure is one write of a disclose rule's tool in a verified
// row, with where its figure stands: the proposal before the yes and the
// agent's report after the write.
type disclosure struct {
	rule  pack.Rule
	value float64 // the figure, signed as the blueprint records it
	// back is whether the figure is money back to the customer, as the
	// row (which verifies) says it.
	back     bool
	proposal int
	report   int
}

// inVerifiedRows runs f on the verified rows of retail and airline, 500
// of each (40 with -short), each domain a subtest.
func inVerifiedRows(t *testing.T, f func(t *testing.T, n int, d *domain.Domain, v *verify.Verifier, eps []episode)) {
	n := 500
	if testing.Short() {
		n = 40
	}
	for _, dom := range []string{"retail", "airline"} {
		t.Run(dom, func(t *testing.T) {
			d, v, eps := rows(t, dom, n)
			f(t, n, d, v, eps)
		})
	}
}

// rows simulates a run's first n blueprints of a built-in domain with the
// embedded engine, as synth run makes them: each must verify.
func rows(t *testing.T, domain string, n int) (*domain.Domain, *verify.Verifier, []episode) {
	t.Helper()
	k := domain + "/" + strconv.Itoa(n)
	madeMu.Lock()
	defer madeMu.Unlock()
	if m, ok := made[k]; ok {
		return m.d, m.v, m.eps
	}
	d, v, eps := simulate(t, domain, n)
	made[k] = madeRows{d, v, eps}
	return d, v, eps
}

// made keeps the rows each tamper test asks for, so three tests of a
// domain simulate it once.
var (
	madeMu sync.Mutex
	made   = map[string]madeRows{}
)

type madeRows struct {
	d   *domain.Domain
	v   *verify.Verifier
	eps []episode
}

func simulate(t *testing.T, domain string, n int) (*domain.Domain, *verify.Verifier, []episode) {
	t.Helper()
	cfg := pipeline.Defaults()
	cfg.Domain, cfg.Seed = domain, 3
	d, err := domains.Load(domain, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := pipeline.Generator(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	v := verify.ForDomain(d, sch)
	ctx := context.Background()
	var out []episode
	for i := range n {
		bp, err := gen.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := embedded.Simulate(ctx, d, bp, cfg.MaxTurns)
		if err != nil {
			t.Fatal(err)
		}
		if vd := v.Verify(ctx, bp, tr); !vd.Passed {
			// The clean twin of every tampered row must pass.
			t.Errorf("blueprint %d: the oracle's row fails %s: %s", i, vd.Failed().Name, vd.Failed().Reason)
			continue
		}
		out = append(out, episode{bp, tr})
	}
	return d, v, out
}

// disclosures lists, for each successful write of a disclose rule's
// tool, the figure its proposal states, taken from the blueprint's
// outputs of the matching ground-truth write.
func disclosures(d *domain.Domain, e episode) []disclosure {
	var out []disclosure
	done := map[string]int{} // successful writes of a tool so far
	for i, m := range e.tr.Messages {
		for _, c := range m.ToolCalls {
			if d.Tools.Kind(c.Function.Name) != record.KindWrite {
				continue
			}
			res := e.tr.Messages[resultOf(e.tr, c.ID)].Content
			if strings.HasPrefix(res, "Error") {
				continue
			}
			k := done[c.Function.Name]
			done[c.Function.Name]++
			goal := verify.NthGoal(e.bp, c.Function.Name, k)
			for _, r := range d.Model.Rules {
				if r.Kind != pack.RuleDisclose || r.Tool != c.Function.Name {
					continue
				}
				for _, o := range e.bp.Outputs {
					x, err := strconv.ParseFloat(o.Value, 64)
					if o.Goal != goal || !slices.Contains(r.Figures, o.Name) || err != nil {
						continue
					}
					p := lastAgentTextBefore(e.tr, lastUserBefore(e.tr, i))
					rep := firstAgentTextAfter(e.tr, i)
					if p < 0 || rep < 0 || len(figureSentences(e.tr.Messages[p].Content, x)) == 0 {
						continue
					}
					_, said := withoutFigure(e.tr.Messages[p].Content, x)
					back := verify.SaysRefund(said) && !verify.SaysCharge(said)
					out = append(out, disclosure{rule: r, value: x, back: back, proposal: p, report: rep})
				}
			}
		}
	}
	return out
}

func lastAgentTextBefore(tr *record.Trajectory, i int) int {
	for j := i - 1; j >= 0; j-- {
		if tr.Messages[j].Role == "assistant" && tr.Messages[j].Content != "" {
			return j
		}
	}
	return -1
}

func firstAgentTextAfter(tr *record.Trajectory, i int) int {
	for j := i + 1; j < len(tr.Messages); j++ {
		if tr.Messages[j].Role == "assistant" && tr.Messages[j].Content != "" {
			return j
		}
	}
	return -1
}

var amount = regexp.MustCompile(`\$?\d[\d,]*(?:\.\d+)?`)

// states reports whether a sentence holds the figure's magnitude.
func states(s string, x float64) bool {
	for _, n := range amount.FindAllString(s, -1) {
		got, err := strconv.ParseFloat(strings.NewReplacer("$", "", ",", "").Replace(n), 64)
		if err == nil && math.Abs(got-math.Abs(x)) < 0.005 {
			return true
		}
	}
	return false
}

// figureSentences are the indexes of the sentences of text that state x.
func figureSentences(text string, x float64) []int {
	var out []int
	for i, s := range verify.SentencesOf(text) {
		if states(s, x) {
			out = append(out, i)
		}
	}
	return out
}

// withoutFigure is text without the sentences that state x, and those
// sentences.
func withoutFigure(text string, x float64) (rest, said string) {
	var keep, drop []string
	for _, s := range verify.SentencesOf(text) {
		if states(s, x) {
			drop = append(drop, strings.TrimSpace(s))
		} else {
			keep = append(keep, s)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "")), strings.Join(drop, " ")
}

// money says an amount as the agent does.
func money(x float64) string {
	x = math.Abs(x)
	if x == math.Trunc(x) {
		return "$" + strconv.FormatFloat(x, 'f', 0, 64)
	}
	return "$" + strconv.FormatFloat(x, 'f', 2, 64)
}

// A tamper changes only how one write's figure is said.
type tamper struct {
	name string
	// applies tells whether the tamper means anything for the figure
	// (a direction for a figure of zero does not).
	applies func(ds disclosure) bool
	edit    func(tr *record.Trajectory, ds disclosure)
}

func tampers() []tamper {
	always := func(disclosure) bool { return true }
	moves := func(ds disclosure) bool { return ds.value != 0 }
	replace := func(tr *record.Trajectory, ds disclosure, with string) {
		rest, _ := withoutFigure(tr.Messages[ds.proposal].Content, ds.value)
		tr.Messages[ds.proposal].Content = with + " " + rest
	}
	return []tamper{
		{"figure removed before the yes", always, func(tr *record.Trajectory, ds disclosure) {
			tr.Messages[ds.proposal].Content, _ = withoutFigure(tr.Messages[ds.proposal].Content, ds.value)
		}},
		{"figure moved after the yes", always, func(tr *record.Trajectory, ds disclosure) {
			rest, said := withoutFigure(tr.Messages[ds.proposal].Content, ds.value)
			tr.Messages[ds.proposal].Content = rest
			tr.Messages[ds.report].Content = said + " " + tr.Messages[ds.report].Content
		}},
		{"figure changed to a wrong one", always, func(tr *record.Trajectory, ds disclosure) {
			m := &tr.Messages[ds.proposal]
			wrong := money(math.Abs(ds.value) + 17)
			for _, i := range figureSentences(m.Content, ds.value) {
				ss := verify.SentencesOf(m.Content)
				ss[i] = amount.ReplaceAllStringFunc(ss[i], func(n string) string {
					if states(n, ds.value) {
						return wrong
					}
					return n
				})
				m.Content = strings.Join(ss, "")
			}
		}},
		{"direction flipped", moves, func(tr *record.Trajectory, ds disclosure) {
			if ds.back {
				replace(tr, ds, "You'll be charged "+money(ds.value)+" for this.")
			} else {
				replace(tr, ds, "You'll be refunded "+money(ds.value)+" for this.")
			}
		}},
		{"direction removed", moves, func(tr *record.Trajectory, ds disclosure) {
			replace(tr, ds, "The figure for this is "+money(ds.value)+".")
		}},
	}
}

// TestDiscloseTampering: in verified rows of retail and airline, each
// way of saying a write's figure wrong (not before the yes, after it,
// a wrong amount, the wrong or no direction) fails that write's
// disclose rule by name, and the row as it was passes.
func TestDiscloseTampering(t *testing.T) {
	ctx := context.Background()
	inVerifiedRows(t, func(t *testing.T, n int, d *domain.Domain, v *verify.Verifier, eps []episode) {
		type count struct{ applied, rejected int }
		counts := map[string]*count{}
		for _, e := range eps {
			replayedAsGold(t, d, v, e)
			for _, ds := range disclosures(d, e) {
				name := verify.RuleCheck(ds.rule)
				for _, tp := range tampers() {
					if !tp.applies(ds) {
						continue
					}
					c := counts[tp.name]
					if c == nil {
						c = &count{}
						counts[tp.name] = c
					}
					c.applied++
					tr := clone(t, e.tr)
					tp.edit(tr, ds)
					vd := v.Verify(ctx, e.bp, tr)
					if ck := checkNamed(vd, name); ck != nil && !ck.Passed {
						c.rejected++
						continue
					}
					t.Errorf("%s, blueprint %d, message %d: %s passes\nproposal: %s", tp.name, e.bp.Index, ds.proposal, name, tr.Messages[ds.proposal].Content)
				}
			}
		}
		for _, tp := range tampers() {
			if c := counts[tp.name]; c != nil {
				t.Logf("%s: %d of %d tampered writes fail their disclose rule (%d verified rows of %d)", tp.name, c.rejected, c.applied, len(eps), n)
			}
		}
		if len(counts) == 0 {
			t.Fatalf("no write with a disclosed figure in %d rows", len(eps))
		}
	})
}

func checkNamed(v record.Verdict, name string) *record.Check {
	for i := range v.Checks {
		if v.Checks[i].Name == name {
			return &v.Checks[i]
		}
	}
	return nil
}

// replayedAsGold: the figures the verifier computes from the replayed
// writes of an oracle's row are the ground truth's, write by write (the
// oracle does what the task asks), so a check that holds a dialogue to
// them holds it to what the writes did.
func replayedAsGold(t *testing.T, d *domain.Domain, v *verify.Verifier, e episode) {
	t.Helper()
	var want [][]string
	done := map[string]int{}
	for _, m := range e.tr.Messages {
		for _, c := range m.ToolCalls {
			tool := c.Function.Name
			if d.Tools.Kind(tool) != record.KindWrite || len(d.Model.Disclosed(tool)) == 0 || strings.HasPrefix(e.tr.Messages[resultOf(e.tr, c.ID)].Content, "Error") {
				continue
			}
			goal := verify.NthGoal(e.bp, tool, done[tool])
			done[tool]++
			var fs []string
			for _, o := range e.bp.Outputs {
				if o.Goal == goal && slices.Contains(d.Model.Disclosed(tool), o.Name) {
					fs = append(fs, o.Name+"="+o.Value)
				}
			}
			want = append(want, fs)
		}
	}
	if got := v.ReplayedFigures(context.Background(), e.bp, e.tr); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("blueprint %d: the replay's figures %v, the ground truth's %v", e.bp.Index, got, want)
	}
}
