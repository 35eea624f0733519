package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func seedOf(t *testing.T, res *Result) map[string]map[string]map[string]any {
	t.Helper()
	var db map[string]map[string]map[string]any
	if err := json.Unmarshal(res.Files["db.json"], &db); err != nil {
		t.Fatal(err)
	}
	return db
}

// Seed values a person would believe: formats, examples, patterns,
// enums and bounds followed; names and emails of one person; dates near
// the clock and in order.
func TestSeedBelievable(t *testing.T) {
	res, err := ImportFile(context.Background(), filepath.Join("testdata", "seed", "billing.yaml"), filepath.Join(t.TempDir(), "p"), Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	db := seedOf(t, res)
	clock, _ := time.Parse(time.RFC3339, Clock)
	near := func(field, s, layout string) time.Time {
		t.Helper()
		ts, err := time.Parse(layout, s)
		if err != nil {
			t.Errorf("%s = %q is not %s", field, s, layout)
			return ts
		}
		if ts.Before(clock.AddDate(-2, 0, 0)) || ts.After(clock.AddDate(1, 0, 0)) {
			t.Errorf("%s = %s is not near the pack clock %s", field, s, Clock)
		}
		return ts
	}
	re := func(p string) *regexp.Regexp { return regexp.MustCompile(p) }
	seen := map[string]bool{}
	for k, c := range db["customers"] {
		first, last := strings.ToLower(fmt.Sprint(c["first_name"])), strings.ToLower(fmt.Sprint(c["last_name"]))
		email := fmt.Sprint(c["email"])
		if !strings.HasPrefix(email, asciiLower(first)+"."+asciiLower(last)) || !strings.HasSuffix(email, "@example.com") {
			t.Errorf("customer %s: email %s is not %s %s's", k, email, first, last)
		}
		if !re(`^cus_[0-9a-f]{12}$`).MatchString(k) || seen[k] {
			t.Errorf("customer key %q does not follow the example cus_8f3a21b9c04d, or repeats", k)
		}
		seen[k] = true
		if !re(`^\+1-555-\d{3}-\d{4}$`).MatchString(fmt.Sprint(c["phone"])) {
			t.Errorf("phone %v", c["phone"])
		}
		if u, err := url.Parse(fmt.Sprint(c["website"])); err != nil || u.Scheme != "https" {
			t.Errorf("website %v is not a URL", c["website"])
		}
		if ip := net.ParseIP(fmt.Sprint(c["last_ip"])); ip == nil || ip.To4() == nil {
			t.Errorf("last_ip %v is not IPv4", c["last_ip"])
		}
		if !uuidRE.MatchString(fmt.Sprint(c["external_ref"])) {
			t.Errorf("external_ref %v is not a UUID", c["external_ref"])
		}
		created := near("created_at", fmt.Sprint(c["created_at"]), time.RFC3339)
		updated := near("updated_at", fmt.Sprint(c["updated_at"]), time.RFC3339)
		if updated.Before(created) || updated.After(clock) {
			t.Errorf("customer %s updated %s before it was created %s, or after the clock", k, c["updated_at"], c["created_at"])
		}
		if c["note"] == "example string" {
			t.Errorf("the placeholder example was used: %v", c["note"])
		}
	}
	for k, in := range db["invoices"] {
		if !re(`^in_[0-9A-Za-z]{14}$`).MatchString(k) {
			t.Errorf("invoice key %q does not match its pattern", k)
		}
		d := near("invoice_date", fmt.Sprint(in["invoice_date"]), "2006-01-02")
		if d.After(clock) {
			t.Errorf("invoice_date %v is after the clock", in["invoice_date"])
		}
		near("due_date", fmt.Sprint(in["due_date"]), "2006-01-02")
		start := near("period_start", fmt.Sprint(in["period_start"]), "2006-01-02")
		end := near("period_end", fmt.Sprint(in["period_end"]), "2006-01-02")
		if !end.After(start) {
			t.Errorf("invoice %s: period ends %s before it starts %s", k, in["period_end"], in["period_start"])
		}
		if _, ok := db["customers"][fmt.Sprint(in["customer_id"])]; !ok {
			t.Errorf("invoice %s: customer_id %v is no customer", k, in["customer_id"])
		}
		if a, _ := in["amount_due"].(float64); a < 1 || a > 10000 {
			t.Errorf("amount_due %v out of bounds", in["amount_due"])
		}
		if in["currency"] != "EUR" {
			t.Errorf("currency %v does not follow the example EUR", in["currency"])
		}
		if !re(`^INV-\d{4}-\d{6}$`).MatchString(fmt.Sprint(in["reference"])) {
			t.Errorf("reference %v does not look like INV-2024-000123", in["reference"])
		}
		if m := fmt.Sprint(in["memo"]); len([]rune(m)) > 12 {
			t.Errorf("memo %q is longer than maxLength 12", m)
		}
	}
}

// Every seeded field validates against its schema (formats asserted),
// for the fixtures and, when present, the real specs.
func TestSeedValidates(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	specs := []string{filepath.Join("testdata", "seed", "billing.yaml"), filepath.Join("testdata", "resilient.yaml"),
		filepath.Join("testdata", "multifile", "ok", "api.yaml"), filepath.Join("testdata", "refs", "pointers.yaml")}
	if dir, err := realSpecDir(); err == nil {
		for _, f := range []string{"petstore-3.0.yaml", "museum-3.1.yaml", "twilio-verify-v2-3.0.json", "discord-3.1.json", "digitalocean-multifile/specification/DigitalOcean-public.v2.yaml"} {
			specs = append(specs, filepath.Join(dir, f))
		}
	} else {
		t.Logf("real specs not checked: %v", err)
	}
	for _, spec := range specs {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			res, err := ImportFile(context.Background(), spec, filepath.Join(t.TempDir(), "p"), Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			db := seedOf(t, res)
			fields, bad := 0, 0
			for _, c := range res.colls {
				for _, name := range sortedKeys(c.Props) {
					sch, err := assertingSchema(c.Props[name])
					if err != nil {
						continue // the spec's own schema does not compile
					}
					for _, k := range sortedKeys(db[c.Name]) {
						v, ok := db[c.Name][k][name]
						if !ok {
							continue
						}
						fields++
						if err := validateValue(sch, v); err != nil {
							bad++
							if bad <= 10 {
								t.Errorf("%s[%s].%s = %.120v: %v", c.Name, k, name, v, oneLine(err.Error()))
							}
						}
					}
				}
			}
			t.Logf("%d seeded fields, %d invalid", fields, bad)
		})
	}
}

func assertingSchema(s any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("mem:///field.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem:///field.json")
}

func validateValue(sch *jsonschema.Schema, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// realSpecDir finds ../shared/openapi the way the real-spec tests do.
func realSpecDir() (string, error) {
	if env := os.Getenv("SYNTH_OPENAPI_SPECS"); env != "" {
		_, err := os.Stat(env)
		return env, err
	}
	dir := filepath.Join("..", "..", "shared", "openapi")
	_, err := os.Stat(dir)
	return dir, err
}

// Ids drawn from an example keep its shape: prefix, separators, case,
// digits where it has digits, hex where it has hex, and x placeholders
// filled in.
func TestShapeOf(t *testing.T) {
	g := &synthesizer{rng: rngFor(1, "shape"), coll: &collection{}}
	cases := []struct{ example, shape string }{
		{"cus_8f3a21b9c04d", `^cus_[0-9a-f]{12}$`},
		{"INV-2024-000123", `^INV-\d{4}-\d{6}$`},
		{"fn-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", `^fn-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$`},
		{"do:droplet:760e09ef-dc84-11e8-981e-3cfdfeaae000", `^do:droplet:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`},
		{"123e4567-e89b-12d3-a456-426614174000", `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`},
		{"my-app", `^my-app-\d+$`},
		{"VA3F9e", `^VA[0-9A-Fa-f]{4}$`},
	}
	for _, c := range cases {
		seen := map[string]bool{}
		for i := 0; i < 20; i++ {
			v := g.shapeOf(c.example)
			if !regexp.MustCompile(c.shape).MatchString(v) {
				t.Errorf("shapeOf(%q) = %q, want %s", c.example, v, c.shape)
			}
			seen[v] = true
		}
		if len(seen) < 10 {
			t.Errorf("shapeOf(%q) gave only %d distinct values in 20", c.example, len(seen))
		}
	}
}

// TestSlotSourceDocumented: an object a write needs, built from its
// schema, takes what the spec documents of each field (DigitalOcean's
// access_policy: "Currently only 65534 is supported", example 65534)
// before random values, and skips an example that is a placeholder.
func TestSlotSourceDocumented(t *testing.T) {
	policy := map[string]any{
		"type":     "object",
		"required": []any{"anonuid", "protocols", "squash_config", "token"},
		"properties": map[string]any{
			"anonuid":       map[string]any{"type": "integer", "examples": []any{int64(65534)}},
			"protocols":     map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"NFS4", "NFS"}}, "examples": []any{[]any{"NFS4", "NFS"}}},
			"squash_config": map[string]any{"type": "string", "enum": []any{"NO_SQUASH", "ROOT_SQUASH"}, "examples": []any{"ROOT_SQUASH"}},
			"token":         map[string]any{"type": "string", "examples": []any{"$HF_TOKEN"}},
			"mode":          map[string]any{"type": "string", "const": "rw"},
		},
	}
	for seed := uint64(1); seed <= 5; seed++ {
		g := &synthesizer{rng: rngFor(seed, "hints"), coll: &collection{Name: "hints"}, re: newRegexCache()}
		src, ok := slotSource(arg{Name: "access_policy", Orig: "access_policy", Required: true, Schema: policy}, g)
		if !ok || !strings.HasPrefix(src, "const:") {
			t.Fatalf("seed %d: %q, %v; want a const object", seed, src, ok)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(src, "const:")), &v); err != nil {
			t.Fatal(err)
		}
		if v["anonuid"] != float64(65534) || v["squash_config"] != "ROOT_SQUASH" || fmt.Sprint(v["protocols"]) != "[NFS4 NFS]" {
			t.Errorf("seed %d: %s; want the documented anonuid, protocols and squash_config", seed, src)
		}
		if tok, _ := v["token"].(string); tok == "" || strings.Contains(tok, "$") {
			t.Errorf("seed %d: token %q; want a value in place of the placeholder", seed, v["token"])
		}
		if m, has := v["mode"]; has && m != "rw" {
			t.Errorf("seed %d: mode %v; want the const", seed, m)
		}
	}
}
