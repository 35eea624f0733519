package openapi

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestSeedFitsField: a field whose name says what it holds gets such a
// value, not filler words; a misleading example (a temperature of 123,
// a date for a prompt) gives way to the name.
func TestSeedFitsField(t *testing.T) {
	res, err := ImportFile(context.Background(), filepath.Join("testdata", "seed", "cloud.yaml"), filepath.Join(t.TempDir(), "p"), Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	db := seedOf(t, res)
	re := func(p string) func(any) bool {
		r := regexp.MustCompile(p)
		return func(v any) bool { s, ok := v.(string); return ok && r.MatchString(s) }
	}
	public := func(v any) bool {
		ip := net.ParseIP(fmt.Sprint(v))
		return ip != nil && ip.To4() != nil && !ip.IsPrivate()
	}
	private := func(v any) bool {
		ip := net.ParseIP(fmt.Sprint(v))
		return ip != nil && ip.IsPrivate()
	}
	filler := regexp.MustCompile(`\b(quick|review|plan|notes|launch|timing|budget|details)\b`)
	domains := db["domains"]
	cases := []struct {
		coll, field, want string
		ok                func(any) bool
	}{
		{"domains", "name", "a host name with a TLD", re(`^[a-z0-9-]+\.(com|io|net|dev|org)$`)},
		{"domains", "ip_address", "a public IPv4 address", public},
		{"records", "domain_name", "a domain's key", func(v any) bool { _, ok := domains[fmt.Sprint(v)]; return ok }},
		{"keys", "description", "one sentence with no final period", re(`^[A-Z][a-z]+ [A-Za-z ,]+[a-z]$`)},
		{"keys", "tags", "single slug words", func(v any) bool {
			l, ok := v.([]any)
			return ok && !slices.ContainsFunc(l, func(x any) bool { return !re(`^[a-z][a-z-]*$`)(x) })
		}},
		{"keys", "nick", "a handle", re(`^[a-z]+_[a-z]+$`)},
		{"keys", "discriminator", "four digits", re(`^\d{4}$`)},
		{"keys", "permissions", "a bit field as a decimal string", func(v any) bool {
			_, err := strconv.ParseUint(fmt.Sprint(v), 10, 64)
			return err == nil
		}},
		{"keys", "private_ip", "a private address", private},
		{"keys", "public_ip", "a public address", public},
		{"keys", "temperature", "a sampling temperature in 0-1", func(v any) bool { f, ok := v.(float64); return ok && f >= 0 && f <= 1 }},
		{"keys", "candidate_system_prompt", "a prompt, not the example's date", re(`^[A-Z].* [a-z]+`)},
		{"keys", "error_message", "an error", re(`^[A-Z][a-z]+ .*`)},
		{"reserved_ips", "ip", "the address the record is keyed by", nil},
		{"reserved_ips", "name", "a slug of a name the pattern takes", re(`^[a-z]+-[a-z]+$`)},
		{"keys", "region", "a region named by its slug", func(v any) bool {
			m, _ := v.(map[string]any)
			return m["slug"] == "nyc3" && m["name"] == "New York 3"
		}},
	}
	for _, c := range cases {
		t.Run(c.coll+"."+c.field, func(t *testing.T) {
			recs := db[c.coll]
			if len(recs) == 0 {
				t.Fatalf("no %s", c.coll)
			}
			for k, r := range recs {
				v := r[c.field]
				if c.ok == nil && v != k || c.ok != nil && !c.ok(v) {
					t.Fatalf("%s %s: %s = %#v, want %s", c.coll, k, c.field, v, c.want)
				}
				if s, ok := v.(string); ok && (filler.MatchString(s) || strings.HasSuffix(s, "..")) {
					t.Fatalf("%s %s: %s = %q is filler", c.coll, k, c.field, s)
				}
			}
		})
	}
}

// TestSeedDNSRecords: a DNS record's type is drawn over the common types
// (the spec shows "NS" by example and lists a few), and its data and
// type-specific fields agree with the type.
func TestSeedDNSRecords(t *testing.T) {
	res, err := ImportFile(context.Background(), filepath.Join("testdata", "seed", "cloud.yaml"), filepath.Join(t.TempDir(), "p"), Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for k, r := range seedOf(t, res)["records"] {
		typ := fmt.Sprint(r["type"])
		types[typ]++
		data := fmt.Sprint(r["data"])
		switch typ {
		case "A":
			if ip := net.ParseIP(data); ip == nil || ip.To4() == nil {
				t.Errorf("A record %s has data %q", k, data)
			}
		case "MX", "CNAME", "NS":
			if !strings.Contains(data, ".") || net.ParseIP(data) != nil {
				t.Errorf("%s record %s has data %q, not a host", typ, k, data)
			}
		}
		if typ != "SRV" && (r["port"] != nil || r["weight"] != nil) {
			t.Errorf("%s record %s has SRV fields port %v, weight %v", typ, k, r["port"], r["weight"])
		}
		if typ != "CAA" && r["tag"] != nil {
			t.Errorf("%s record %s has the CAA tag %v", typ, k, r["tag"])
		}
	}
	if len(types) < 4 || types["NS"] > (types["A"]+types["CNAME"]+types["MX"]+types["TXT"]+types["AAAA"])/2+2 {
		t.Errorf("record types %v: want a spread over the common types", types)
	}
}

// TestSeedDateOrder: records are compared by when they were made, never
// by when they were changed or deleted, nor by a text field that
// happens to hold dates.
func TestSeedDateOrder(t *testing.T) {
	res, err := ImportFile(context.Background(), filepath.Join("testdata", "seed", "cloud.yaml"), filepath.Join(t.TempDir(), "p"), Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Collections map[string]struct{ Describe, Compare []string }
	}
	if err := yaml.Unmarshal(res.Files["domain.yaml"], &d); err != nil {
		t.Fatal(err)
	}
	keys := d.Collections["keys"]
	if !slices.Contains(keys.Compare, "created_at") {
		t.Errorf("keys compare %v: want created_at", keys.Compare)
	}
	for _, f := range []string{"updated_at", "deleted_at", "candidate_system_prompt"} {
		if slices.Contains(keys.Compare, f) || slices.Contains(keys.Describe, f) {
			t.Errorf("keys describe %v, compare %v: %s orders or describes keys", keys.Describe, keys.Compare, f)
		}
	}
	for k, r := range seedOf(t, res)["keys"] {
		if fmt.Sprint(r["deleted_at"]) < fmt.Sprint(r["created_at"]) {
			t.Errorf("key %s deleted %v before it was created %v", k, r["deleted_at"], r["created_at"])
		}
	}
}

// TestSeedKeysFitField: a collection keyed by a phone number, a
// country or an identity has keys a person reads (E.164 numbers, ISO
// codes, the identity the description asks for), not random tokens, and
// a "to" the description calls a phone number holds one.
func TestSeedKeysFitField(t *testing.T) {
	res, err := ImportFile(context.Background(), filepath.Join("testdata", "seed", "verify.yaml"), filepath.Join(t.TempDir(), "p"), Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	db := seedOf(t, res)
	e164 := regexp.MustCompile(`^\+1\d{3}55501\d\d$`)
	cases := []struct {
		coll, field, want string
		re                *regexp.Regexp
	}{
		{"numbers", "phone_number", "an E.164 number in 555-01xx", e164},
		{"configurations", "country", "an ISO 3166-1 alpha-2 code", regexp.MustCompile(`^[A-Z]{2}$`)},
		{"entities", "identity", "a UUID, as the description says", regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)},
		{"members", "identity", "a handle", regexp.MustCompile(`^[a-z]+\.[a-z]+$`)},
		{"verifications", "to", "an E.164 number", e164},
		{"verifications", "from", "an E.164 number", e164},
		{"verifications", "origin_country", "a country's name, as the description says", regexp.MustCompile(`^[A-Z][a-z]+$`)},
	}
	for _, c := range cases {
		t.Run(c.coll+"."+c.field, func(t *testing.T) {
			recs := db[c.coll]
			if len(recs) < 3 {
				t.Fatalf("%d %s, want several", len(recs), c.coll)
			}
			for k, r := range recs {
				if s, _ := r[c.field].(string); !c.re.MatchString(s) {
					t.Fatalf("%s %s: %s = %#v, want %s", c.coll, k, c.field, r[c.field], c.want)
				}
			}
		})
	}
}

// TestSeedSkipsPlaceholders: an example that only shows the type or
// elides the value is not data: a keyboard-run or RFC example UUID
// gives fresh UUIDs, an elided PEM block gets a body, "example string"
// and a key of another provider give way to a draw; a real example is
// used without the quotes the spec writes inside it.
func TestSeedSkipsPlaceholders(t *testing.T) {
	res, err := ImportFile(context.Background(), filepath.Join("testdata", "seed", "verify.yaml"), filepath.Join(t.TempDir(), "p"), Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	sinks := seedOf(t, res)["sinks"]
	if len(sinks) < 3 {
		t.Fatalf("%d sinks, want several", len(sinks))
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	cases := []struct {
		field, want string
		ok          func(string) bool
	}{
		{"uuid", "a fresh UUID", uuid.MatchString},
		{"owner_uuid", "a fresh UUID", uuid.MatchString},
		{"ca", "a PEM block with a body", regexp.MustCompile(`^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=]{16,}\n-----END CERTIFICATE-----\n$`).MatchString},
		{"region", "the example without its quotes", func(s string) bool { return s == "tor1" }},
		{"size", "a draw, not the placeholder", func(s string) bool { return s != "" && !strings.Contains(s, "example") }},
		{"api_key", "no other provider's key", func(s string) bool {
			return s != "" && !strings.Contains(s, "sk-ant") && !strings.Contains(s, "1234567890")
		}},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			for k, r := range sinks {
				if s, _ := r[c.field].(string); !c.ok(s) {
					t.Fatalf("sink %s: %s = %#v, want %s", k, c.field, r[c.field], c.want)
				}
			}
		})
	}
}

// TestDocumentedUnquotes: a write's constant argument built from what
// the spec documents takes a quoted example without its quotes and
// skips a placeholder one.
func TestDocumentedUnquotes(t *testing.T) {
	g := &synthesizer{rng: rngFor(1, "t"), coll: &collection{Name: "agents", Noun: "agent"}, re: newRegexCache()}
	obj := map[string]any{"type": "object", "properties": map[string]any{
		"name":   map[string]any{"type": "string", "examples": []any{`"My Agent"`}},
		"region": map[string]any{"type": "string", "examples": []any{`'tor1'`}},
		"size":   map[string]any{"type": "string", "examples": []any{"example string"}},
	}}
	got, _ := g.documented(obj, "spec", 1).(map[string]any)
	for _, tc := range []struct {
		field string
		ok    func(any) bool
	}{
		{"name", func(v any) bool { return v == "My Agent" }},
		{"region", func(v any) bool { return v == "tor1" }},
		{"size", func(v any) bool { s, _ := v.(string); return s != "" && s != "example string" }},
	} {
		if !tc.ok(got[tc.field]) {
			t.Errorf("%s = %#v", tc.field, got[tc.field])
		}
	}
}
