package domains_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/domains/airline"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/verify"
)

// Every sentence of a built-in policy is enforced by a rule or listed,
// with why, as not machine-checkable.
func TestPolicyCovered(t *testing.T) {
	for name, fsys := range map[string]fs.FS{"retail": retail.FS(), "airline": airline.FS()} {
		p, err := pack.Load(context.Background(), fsys, 1, domains.PackOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Manifest.Rules) == 0 {
			t.Errorf("%s declares no rules", name)
		}
		for _, s := range pack.Uncovered(p.Policy, p.Manifest.Rules, p.Manifest.Unchecked) {
			t.Errorf("%s: no rule or unchecked entry covers %q", name, s)
		}
	}
}

// Each rule flaw breaks a rule of its kind in each built-in domain that
// has one, and the oracle's dialogue of the same blueprint passes: the
// rule is what tells them apart.
func TestRuleFlaws(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	ctx := context.Background()
	// Airline's tasks have no out-of-scope topics, so no transfer; retail
	// has no checks.
	flaws := map[string][]string{
		"retail": {agent.FlawUndisclosed, agent.FlawNoReminder, agent.FlawNoTransferMessage, agent.FlawAssumedArgument,
			agent.FlawNoOpWrite, agent.FlawUnrequestedWrite, agent.FlawSilentRefusal},
		"airline": {agent.FlawUndisclosed, agent.FlawNoReminder, agent.FlawAssumedArgument, agent.FlawNoOpWrite, agent.FlawUnrequestedWrite,
			agent.FlawSilentRefusal, agent.FlawUnchecked, agent.FlawMiscomputed},
	}
	for dom, kinds := range flaws {
		fx, err := testplay.NewFixture(dom, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range kinds {
			broken := 0
			for i := 0; i < 2000 && broken < 3; i++ {
				bp, err := fx.Gen.Generate(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				bad, fired, err := embedded.SimulateFlawed(ctx, fx.D, bp, 60, agent.Flaw{Kind: kind})
				if err != nil {
					t.Fatal(err)
				}
				if !fired {
					continue
				}
				verdict := fx.Ver.Verify(ctx, bp, bad)
				f := verdict.Failed()
				if f == nil && (kind == agent.FlawNoOpWrite || kind == agent.FlawMiscomputed || kind == agent.FlawUndisclosed) && bp.Behavior == "changes_mind" {
					// The customer changed its mind at the flawed proposal:
					// its new value replaced the wrong one, and the write
					// was proposed anew (with its figure: the flaw fires
					// once).
					continue
				}
				if kind == agent.FlawMiscomputed && !slices.ContainsFunc(verdict.Checks, func(c record.Check) bool {
					return !c.Passed && strings.HasPrefix(c.Name, verify.RulePrefix+pack.RuleComputed+":")
				}) {
					// The wrong value fails the state check first; the rule
					// must fail it on its own, as for a tool that took it.
					t.Errorf("%s %s: flaw %s passes every computed rule (%v)", dom, bp.ID, kind, f)
				}
				if f == nil && len(bad.Corrections) > 0 {
					// The customer asked for the figure: a caught mistake.
					f = &record.Check{Name: dpo.CheckCaught}
				}
				if f == nil || !dpo.Explains(kind, f.Name) {
					t.Errorf("%s %s: flaw %s fails %v, want a rule of its kind", dom, bp.ID, kind, f)
					continue
				}
				good, err := embedded.Simulate(ctx, fx.D, bp, 60)
				if err != nil {
					t.Fatal(err)
				}
				if v := fx.Ver.Verify(ctx, bp, good); !v.Passed {
					t.Errorf("%s %s: the oracle fails %v", dom, bp.ID, v.Failed())
				}
				broken++
			}
			if broken == 0 {
				t.Errorf("%s: flaw %s never fired in 2,000 blueprints", dom, kind)
			}
		}
	}
}

// Airline's compensation tasks: granted ones send the amount the policy
// sets for the reservation complained about (computed, never said by
// the customer), refused ones are on reservations it does not
// compensate; both carry the compensation situation.
func TestCompensationTasks(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	ctx := context.Background()
	fx, err := testplay.NewFixture("airline", 21)
	if err != nil {
		t.Fatal(err)
	}
	get := func(coll, key string) map[string]any {
		v, _ := fx.D.Base.Get(coll, key)
		obj, _ := v.(map[string]any)
		return obj
	}
	// owed mirrors the policy for one reservation: $100 a passenger for a
	// cancelled flight if the user is silver or gold, insured or in
	// business; 0 for none.
	owed := func(rid string) float64 {
		res := get("reservations", rid)
		user := get("users", res["user_id"].(string))
		cancelled := false
		for _, f := range res["flights"].([]any) {
			fl := f.(map[string]any)
			dates, _ := get("flights", fl["flight_number"].(string))["dates"].(map[string]any)
			day, _ := dates[fl["date"].(string)].(map[string]any)
			cancelled = cancelled || day["status"] == "cancelled"
		}
		if !cancelled || res["status"] != nil || user["membership"] == "regular" && res["cabin"] != "business" && res["insurance"] != "yes" {
			return 0
		}
		return 100 * float64(len(res["passengers"].([]any)))
	}
	// complained resolves the reservation a goal is about, as the agent
	// does: by its id, or among the user's reservations by the goal's
	// description.
	complained := func(bp *record.Blueprint, g record.Goal) string {
		if g.Target.ID != "" {
			return g.Target.ID
		}
		var cands []map[string]any
		for _, k := range get("users", bp.Persona.Known["user_id"])["reservations"].([]any) {
			cands = append(cands, get("reservations", k.(string)))
		}
		i, err := tools.ResolveKey(g.Target, cands, "reservation_id")
		if err != nil {
			t.Fatalf("%s: %v", bp.ID, err)
		}
		return cands[i]["reservation_id"].(string)
	}
	granted, refused := 0, 0
	for i := 0; i < 300; i++ {
		bp, err := fx.Gen.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		for gi, g := range bp.Goals {
			if g.Situation != "compensation" {
				continue
			}
			rid := complained(bp, g)
			if g.Kind == record.GoalRefuse {
				refused++
				if owed(rid) > 0 {
					t.Errorf("%s: refuses compensation for %s, which the policy compensates", bp.ID, rid)
				}
				continue
			}
			for _, a := range bp.Actions {
				if a.Goal != gi || a.Tool != "send_certificate" {
					continue
				}
				granted++
				var args struct {
					Amount float64 `json:"amount"`
				}
				_ = json.Unmarshal(a.Arguments, &args)
				if want := owed(rid); want == 0 || args.Amount != want {
					t.Errorf("%s: a certificate of $%g for %s, where the policy gives $%g", bp.ID, args.Amount, rid, want)
				}
			}
		}
	}
	if granted == 0 || refused == 0 {
		t.Errorf("%d granted and %d refused compensation tasks in 300 blueprints, want some of each", granted, refused)
	}
}

// TestCompensationSaidAsMoney: the agent proposes a granted certificate
// by the pack's words for the computed amount (say: "a ${value} travel
// certificate"), never as a bare "amount: 100".
func TestCompensationSaidAsMoney(t *testing.T) {
	fx, err := testplay.NewFixture("airline", 21)
	if err != nil {
		t.Fatal(err)
	}
	played, err := testplay.Play(fx.D, fx.Gen, 200)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, p := range played {
		proposal := ""
		for _, m := range p.TR.Messages {
			if m.Role == "assistant" && m.Content != "" {
				proposal = m.Content
			}
			for _, c := range m.ToolCalls {
				if c.Function.Name != "send_certificate" {
					continue
				}
				var args struct {
					Amount float64 `json:"amount"`
				}
				if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
					t.Fatalf("%s: send_certificate arguments %s: %v", p.BP.ID, c.Function.Arguments, err)
				}
				seen++
				want := fmt.Sprintf("a $%g travel certificate", args.Amount)
				if !strings.Contains(proposal, want) || strings.Contains(proposal, "amount:") {
					t.Errorf("%s: the proposal before send_certificate does not say %q: %q", p.BP.ID, want, proposal)
				}
			}
		}
	}
	if seen == 0 {
		t.Error("no send_certificate call in 200 airline dialogues")
	}
}

// TestComputedRefusal: a computed argument whose function fails (the
// fees test pack's late_fee refuses every loan that is not overdue)
// makes refusal tasks on the loans it fails for, which the agent refuses
// in the function's words without calling the write, and granted tasks
// on the others, which refund what it computes; every dialogue
// verifies.
func TestComputedRefusal(t *testing.T) {
	notOverdue := regexp.MustCompile(`(?i)loan (L[0-9]+) is not overdue`)
	fx, err := testplay.NewFixture("testdata/fees", 21)
	if err != nil {
		t.Fatal(err)
	}
	loan := func(id string) map[string]any {
		v, _ := fx.D.Base.Get("loans", id)
		obj, _ := v.(map[string]any)
		return obj
	}
	played, err := testplay.Play(fx.D, fx.Gen, 120)
	if err != nil {
		t.Fatal(err)
	}
	granted, refused := 0, 0
	for _, p := range played {
		if v := fx.Ver.Verify(t.Context(), p.BP, p.TR); !v.Passed {
			t.Errorf("%s fails %v", p.BP.ID, v.Failed())
		}
		for gi, g := range p.BP.Goals {
			if g.Kind == record.GoalRefuse && g.Intent == "refuse:refund_late_fee" {
				refused++
				// The loan the agent refuses, in late_fee's words (the
				// customer may describe it rather than name it).
				id := ""
				for _, m := range p.TR.Messages {
					if sm := notOverdue.FindStringSubmatch(m.Content); m.Role == "assistant" && sm != nil {
						id = sm[1]
					}
				}
				if id == "" || g.Target.ID != "" && id != g.Target.ID {
					t.Errorf("%s: the agent never says loan %q is not overdue", p.BP.ID, g.Target.ID)
					continue
				}
				if l := loan(id); l == nil || l["status"] == "overdue" {
					t.Errorf("%s: refuses the late fee of loan %s (%v), which has one", p.BP.ID, id, l)
				}
				for _, m := range p.TR.Messages {
					for _, c := range m.ToolCalls {
						if c.Function.Name == "refund_late_fee" && strings.Contains(c.Function.Arguments, `"`+id+`"`) {
							t.Errorf("%s: refund_late_fee called on loan %s, which late_fee refuses", p.BP.ID, id)
						}
					}
				}
				continue
			}
			for _, a := range p.BP.Actions {
				if a.Goal != gi || a.Tool != "refund_late_fee" {
					continue
				}
				granted++
				var args struct {
					Loan   string  `json:"loan_id"`
					Amount float64 `json:"amount"`
				}
				_ = json.Unmarshal(a.Arguments, &args)
				l := loan(args.Loan)
				renewals, _ := strconv.ParseFloat(fmt.Sprint(l["renewals"]), 64)
				if l == nil || l["status"] != "overdue" || args.Amount != 2+0.5*renewals {
					t.Errorf("%s: refunds $%g on loan %s (%v), not its late fee", p.BP.ID, args.Amount, args.Loan, l)
				}
			}
		}
	}
	if granted == 0 || refused == 0 {
		t.Errorf("%d granted and %d refused late fee refunds in 120 dialogues, want some of each", granted, refused)
	}
	t.Logf("%d granted, %d refused", granted, refused)
}
