package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/synth-data/synth/pack"
)

// fixture is one class of what real specs do, as a small hand-written
// spec under testdata/ and the outcome it must have: an error saying
// all of err, or an import with exactly the warnings warn.
type fixture struct {
	name   string
	spec   string // under testdata/
	opts   Options
	err    []string
	warn   []string
	ops    int
	mapped int
	check  func(t *testing.T, res *Result)
}

var fixtures = []fixture{
	{
		name: "dangling $ref in a component fails only the operations using it",
		spec: "refs/dangling-component.yaml",
		warn: []string{
			`GET /owners/{id} (line 23): its 200 response: $ref "#/components/schemas/Address" (line 46) does not exist in the spec; the record fields come from the other operations`,
			`PUT /owners/{id} (line 28): $ref "#/components/schemas/Address" (line 46) does not exist in the spec; the operation is imported unmapped`,
		},
		ops: 4, mapped: 3,
		check: func(t *testing.T, res *Result) {
			wantHandler(t, res, "listPets", "_list(")
			wantHandler(t, res, "getPet", "_get(")
			wantHandler(t, res, "putOwner", "is not mapped to data")
		},
	},
	{
		name: "JSON pointers into $defs, definitions, nested properties, anchors and $ids",
		spec: "refs/pointers.yaml",
		ops:  3, mapped: 3,
		check: func(t *testing.T, res *Result) {
			create := string(mustJSON(t, toolsOf(t, res)["createPet"]))
			for _, want := range []string{`"enum":["red","blue"]`, `"format":"date"`, `"enum":["dog","cat"]`, `"format":"uuid"`} {
				if !strings.Contains(create, want) {
					t.Errorf("createPet parameters lack %s: %s", want, create)
				}
			}
			get := string(mustJSON(t, toolsOf(t, res)["getPet"]))
			if !strings.Contains(get, `"pattern":"^pet-[0-9]{4}$"`) {
				t.Errorf("getPet's id does not follow its $ref into properties: %s", get)
			}
		},
	},
	{
		name: "IMPORT.md counts the warnings it lists",
		spec: "refs/warnings.yaml",
		warn: []string{
			`GET /things (line 6): cookie parameter "session" is not part of the tool`,
			`GET /things/{id} (line 17): path parameter {id} is in the URL template but not declared; added as a required string argument`,
		},
		ops: 2, mapped: 2,
	},
	{
		name: "operations without operationId are named after what they do",
		spec: "refs/no-operation-ids.yaml",
		ops:  8, mapped: 6,
		check: func(t *testing.T, res *Result) {
			// Without a summary to take words from, a write says what it
			// does in words.
			if got := loadPack(t, res).Manifest.Hints.Writes["create_order"].Phrase; got != "{create|add|set up} a new order" {
				t.Errorf("create_order phrase %q", got)
			}
			tl := toolsOf(t, res)
			for _, name := range []string{"list_orders", "create_order", "get_order", "update_order", "delete_order", "cancel_order", "list_order_lines", "get_me"} {
				if _, ok := tl[name]; !ok {
					t.Errorf("no tool %s among %v", name, keys(tl))
				}
			}
		},
	},
	{
		name: "a folder of YAML and JSON files: path items, operations, schemas and a description as file $refs",
		spec: "multifile/ok/api.yaml",
		ops:  4, mapped: 4,
		check: func(t *testing.T, res *Result) {
			report := string(res.Files["IMPORT.md"])
			if !strings.Contains(report, "Besides the spec, 7 files its $refs name were read.") {
				t.Errorf("IMPORT.md does not say which files were read:\n%s", report)
			}
			if !strings.Contains(string(res.Files["policy.md"]), "front desk") {
				t.Errorf("the description $ref'd from shared/texts.yaml is not in policy.md:\n%s", res.Files["policy.md"])
			}
			tl := toolsOf(t, res)
			if got := string(mustJSON(t, tl["createPatient"])); !strings.Contains(got, `"enum":["north","south","east"]`) || !strings.Contains(got, `"format":"email"`) {
				t.Errorf("createPatient lacks the schema from schemas/patient.yaml: %s", got)
			}
			if got := string(mustJSON(t, tl["getPatient"])); !strings.Contains(got, `"format":"uuid"`) {
				t.Errorf("getPatient lacks the parameter from shared/parameters.yaml: %s", got)
			}
			if got := string(mustJSON(t, tl["listPatients"])); !strings.Contains(got, `"maximum":100`) {
				t.Errorf("listPatients lacks the limit parameter: %s", got)
			}
		},
	},
	{
		name: "files a multi-file spec names are missing: an error listing them, nothing imported",
		spec: "multifile/missing/api.yaml",
		err: []string{
			"api.yaml: not every file its $refs name is there and readable (2 missing, 0 unreadable; looked for in testdata/multifile/missing)",
			"operations/list-patients.yaml is missing (named at line 7)",
			"schemas/patient.yaml is missing (named at line 13, and 2 more $refs)",
			"--allow-missing-files", "nothing was written",
		},
	},
	{
		name: "missing files allowed: the operations needing them are skipped or unmapped, each named",
		spec: "multifile/missing/api.yaml",
		opts: Options{AllowMissingFiles: true},
		warn: []string{
			"file operations/list-patients.yaml is missing (named at line 7): the operations that need it are skipped or unmapped (--allow-missing-files)",
			"file schemas/patient.yaml is missing (named at line 13): the operations that need it are skipped or unmapped (--allow-missing-files)",
			`GET /patients (line 7): skipped: $ref "operations/list-patients.yaml" (line 7) names operations/list-patients.yaml, which is missing`,
			`POST /patients (line 9): $ref "schemas/patient.yaml" (line 13) names schemas/patient.yaml, which is missing; the operation is imported unmapped`,
			`GET /patients/{id} (line 17): its 200 response: $ref "schemas/patient.yaml" (line 20) names schemas/patient.yaml, which is missing; the record fields come from the other operations`,
		},
		ops: 3, mapped: 2,
	},
	{
		name: "a file a $ref names is not YAML: an error naming it and the line",
		spec: "multifile/broken/api.yaml",
		err:  []string{"(0 missing, 1 unreadable", "ward.yaml is not valid YAML or JSON (line 3, column 7: did not find expected ',' or '}'", "named at line 12"},
	},
	{
		name: "a $ref above the spec's folder is not read",
		spec: "multifile/escape/spec/api.yaml",
		warn: []string{`GET /wards/{id} (line 16): its 200 response: $ref "../secret.yaml" (line 19) points above the folder the spec is in (testdata/multifile/escape/spec): only files in it and below are read; the record fields come from the other operations`},
		ops:  2, mapped: 2,
		check: func(t *testing.T, res *Result) {
			for name, b := range res.Files {
				if strings.Contains(string(b), "password") {
					t.Errorf("%s holds what ../secret.yaml says", name)
				}
			}
		},
	},
	{
		name: "a YAML alias bomb costs its size, not its expansion",
		spec: "alias-bomb.yaml",
		ops:  1, mapped: 1,
		warn: []string{"GET /laughs (line 18): its 200 response: the schema at line 13 is a list, not a schema object; accepted as any value"},
		check: func(t *testing.T, res *Result) {
			if n := len(res.Files["tools.json"]) + len(res.Files["db.json"]); n > 64<<10 {
				t.Errorf("the pack is %d bytes", n)
			}
		},
	},
	{
		// A schema only a $ref to itself, a null path item, a number as
		// a schema: each dropped, and each a warning saying where.
		name: "schemas and path items that mean nothing are warnings",
		spec: "meaningless.yaml",
		ops:  2, mapped: 1,
		warn: []string{
			"path /nothing (line 16): skipped: the path item is null, not an object of operations",
			"GET /items/{id} (line 7): its 200 response: schema Item (line 28) is a $ref to itself, directly or through other bare $refs, so it describes no value; accepted as any value",
			"POST /things (line 19): the schema at line 23 is the number 42, not a schema object; accepted as any value",
		},
	},
	{
		name: "a create that takes a client-supplied id is offered ids no record has",
		spec: "refs/client-id.yaml",
		ops:  3, mapped: 3,
		check: func(t *testing.T, res *Result) {
			p := loadPack(t, res)
			hint := p.Manifest.Hints.Writes["registerDevice"].Args["device_id"]
			ids, ok := strings.CutPrefix(hint.Source, "slot:")
			if !ok || ids == "" {
				t.Fatalf("registerDevice's device_id hint %q offers no ids", hint.Source)
			}
			for _, id := range strings.Split(ids, "|") {
				if _, taken := p.Base.Get("devices", id); taken || !regexp.MustCompile(`^dev-[0-9]{4}$`).MatchString(id) {
					t.Errorf("offered id %q is taken or does not match the key's pattern", id)
				}
			}
			st := p.Base.NewState()
			taken := p.Base.Keys("devices")[0]
			args, _ := json.Marshal(map[string]any{"device_id": taken, "label": "hall"})
			r := p.Tools.Call(context.Background(), st, "registerDevice", string(args))
			if want := "a device with device_id " + taken + " already exists; creating one needs a device_id no other device has"; !r.Err || !strings.Contains(r.Output, want) {
				t.Errorf("creating a taken id: %q, want an error saying %q", r.Output, want)
			}
		},
	},
	{
		name: "calls on an item that set nothing add a membership or sync a record; a name given once gets variants",
		spec: "writes/memberships.yaml",
		ops:  9, mapped: 9,
		check: func(t *testing.T, res *Result) {
			p := loadPack(t, res)
			add := p.Manifest.Hints.Writes["addTeamMember"]
			if add.Target != "teams" || add.Args["user_id"].Source != "key:users" || add.Args["team_id"].Source != "target.id" || !strings.Contains(add.Phrase, "a member to {target}") {
				t.Errorf("addTeamMember hint %+v: want the team as target and user_id one of the users", add)
			}
			st := p.Base.NewState()
			call := func(tool string, args map[string]any) (string, bool) {
				raw, _ := json.Marshal(args)
				r := p.Tools.Call(context.Background(), st, tool, string(raw))
				return r.Output, r.Err
			}
			// A member is keyed within its team: one user joins two teams
			// and leaves one, and the other keeps them.
			if w := p.Manifest.Collections["members"].Within; !slices.Equal(w, []string{"team_id"}) {
				t.Errorf("members within %v, want [team_id]", w)
			}
			teams, user := p.Base.Keys("teams"), p.Base.Keys("users")[0]
			for _, team := range teams[:2] {
				if out, failed := call("addTeamMember", map[string]any{"team_id": team, "user_id": user}); failed {
					t.Errorf("addTeamMember: %s", out)
				}
			}
			if out, failed := call("removeTeamMember", map[string]any{"team_id": teams[0], "user_id": user}); failed {
				t.Errorf("removeTeamMember: %s", out)
			}
			if v, ok := st.Get("members", teams[1]+"/"+user); !ok || !strings.Contains(string(mustJSON(t, v)), teams[1]) {
				t.Errorf("user %s left team %s and is no longer in team %s: %v", user, teams[0], teams[1], v)
			}
			if v, ok := st.Get("members", teams[0]+"/"+user); ok {
				t.Errorf("user %s left team %s and is still in it: %v", user, teams[0], v)
			}
			sync := p.Manifest.Hints.Writes["syncTemplate"]
			if sync.Target != "templates" || sync.Phrase != "{sync} {target}" {
				t.Errorf("syncTemplate hint %+v: want the template, in its own verb", sync)
			}
			code := p.Base.Keys("templates")[0]
			v, _ := p.Base.Get("templates", code)
			rec := v.(map[string]any)
			if out, failed := call("syncTemplate", map[string]any{"team_id": rec["team_id"], "code": code}); failed || !strings.Contains(out, `"updated_at":"`+Clock+`"`) {
				t.Errorf("syncTemplate(%s): %s, want its updated_at set to the clock", code, out)
			}
			if out, failed := call("syncTemplate", map[string]any{"team_id": rec["team_id"], "code": "no-such-code"}); !failed {
				t.Errorf("syncing a template that does not exist: %s, want an error", out)
			}
			names, _ := strings.CutPrefix(p.Manifest.Hints.Writes["createTrigger"].Args["name"].Source, "slot:")
			for _, n := range strings.Split(names, "|") {
				if _, taken := p.Base.Get("triggers", n); taken || !strings.HasPrefix(n, "nightly backup ") {
					t.Errorf("createTrigger is offered name %q: want a variant of the example no trigger has", n)
				}
			}
		},
	},
	{
		name: "list tools return a page, say the total and where the next page starts",
		spec: "seed/billing.yaml",
		ops:  5, mapped: 5,
		check: func(t *testing.T, res *Result) {
			p := loadPack(t, res)
			st := p.Base.NewState()
			total := len(p.Base.Keys("invoices"))
			call := func(tool string, args map[string]any) map[string]any {
				raw, _ := json.Marshal(args)
				r := p.Tools.Call(context.Background(), st, tool, string(raw))
				page, ok := r.Value.(map[string]any)
				if r.Err || !ok {
					t.Fatalf("%s(%s): %s", tool, raw, r.Output)
				}
				if len(r.Output) > 12000 {
					t.Errorf("%s(%s) returned %d characters", tool, raw, len(r.Output))
				}
				return page
			}
			first := call("listInvoices", map[string]any{})
			if n := len(first["invoices"].([]any)); n != 10 || first["total"] != int64(total) || first["next_offset"] != int64(10) {
				t.Errorf("first page: %d invoices, total %v, next_offset %v; want the limit's default 10 of %d, next at 10", n, first["total"], first["next_offset"], total)
			}
			last := call("listInvoices", map[string]any{"offset": total - 3})
			if n := len(last["invoices"].([]any)); n != 3 || last["next_offset"] != nil {
				t.Errorf("last page: %d invoices, next_offset %v; want 3 and none", n, last["next_offset"])
			}
			all := call("listCustomers", map[string]any{})
			if n := len(all["customers"].([]any)); n != len(p.Base.Keys("customers")) {
				t.Errorf("a list without paging arguments shows %d of %d customers", n, len(p.Base.Keys("customers")))
			}
			if got := p.Manifest.Collections["invoices"].List; got == nil || got.Field != "invoices" {
				t.Errorf("domain.yaml does not say where the list is in the result: %+v", got)
			}
		},
	},
	{
		name: "path items in files count toward --max-operations once read",
		spec: "multifile/ok/api.yaml",
		opts: Options{MaxOperations: 3},
		err:  []string{"api.yaml: paths: 4 operations, more than --max-operations 3"},
	},
	{
		name: "a spec larger than --max-spec-bytes",
		spec: "resilient.yaml",
		opts: Options{MaxSpecBytes: 1000},
		err:  []string{"testdata/resilient.yaml: spec too large: more than 1000 bytes read", "raise the limit with --max-spec-bytes"},
	},
	{
		name: "a spec and its files larger than --max-spec-bytes together",
		spec: "multifile/ok/api.yaml",
		opts: Options{MaxSpecBytes: 1024},
		err:  []string{"api.yaml: spec too large: more than 1KiB read (the spec and the files its $refs name, together)", "--max-spec-bytes"},
	},
}

func TestFixtures(t *testing.T) {
	for _, c := range fixtures {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pack")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := ImportFile(ctx, filepath.Join("testdata", c.spec), out, c.opts)
			if len(c.err) > 0 {
				if err == nil {
					t.Fatalf("imported, want an error saying %q", c.err)
				}
				for _, w := range c.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not say %q:\n%v", w, err)
					}
				}
				if _, serr := os.Stat(out); !os.IsNotExist(serr) {
					t.Errorf("a failed import left %s behind", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Operations != c.ops || res.Mapped != c.mapped {
				t.Errorf("%d operations, %d mapped; want %d, %d", res.Operations, res.Mapped, c.ops, c.mapped)
			}
			if strings.Join(res.Warnings, "\n") != strings.Join(c.warn, "\n") {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(res.Warnings, "\n"), strings.Join(c.warn, "\n"))
			}
			checkReport(t, res)
			if c.check != nil {
				c.check(t, res)
			}
		})
	}
}

var reportItemRE = regexp.MustCompile(`(?m)^- `)

// checkReport: IMPORT.md lists every warning under a heading that
// counts them, and says the same count in its summary.
func checkReport(t *testing.T, res *Result) {
	t.Helper()
	report := string(res.Files["IMPORT.md"])
	n := len(res.Warnings)
	head := "## Warnings (" + strconv.Itoa(n) + ")"
	i := strings.Index(report, head)
	if i < 0 {
		t.Fatalf("IMPORT.md has no %q heading:\n%s", head, report)
	}
	section := report[i+len(head):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	if got := len(reportItemRE.FindAllString(section, -1)); got != n {
		t.Errorf("IMPORT.md lists %d warnings under %q", got, head)
	}
	if !strings.Contains(report, plural(n, "warning")+".") && !strings.Contains(report, plural(n, "warning")+",") {
		t.Errorf("IMPORT.md's summary does not say %q", plural(n, "warning"))
	}
	for _, w := range res.Warnings {
		if !strings.Contains(section, oneLine(w)) {
			t.Errorf("IMPORT.md does not list warning %q", w)
		}
	}
}

func loadPack(t *testing.T, res *Result) *pack.Pack {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pack")
	if err := WriteDir(dir, res.Files); err != nil {
		t.Fatal(err)
	}
	p, err := pack.LoadDir(context.Background(), dir, 1, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func wantHandler(t *testing.T, res *Result, tool, body string) {
	t.Helper()
	h := string(res.Files["handlers.star"])
	i := strings.Index(h, "def "+tool+"(db, args):")
	if i < 0 {
		t.Errorf("handlers.star has no def %s", tool)
		return
	}
	def := h[i:]
	if j := strings.Index(def[1:], "\ndef "); j > 0 {
		def = def[:j]
	}
	if !strings.Contains(def, body) {
		t.Errorf("%s: handler %q, want %s", tool, def, body)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func keys[V any](m map[string]V) []string { return sortedKeys(m) }

// A link inside the spec's folder that leads out of it is not followed:
// the file it names counts as unreadable.
func TestSymlinkOutOfFolder(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(outside, []byte("type: object\nproperties: {password: {type: string}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "ward.yaml")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	spec, err := os.ReadFile(filepath.Join("testdata", "multifile", "broken", "api.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "api.yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ImportFile(context.Background(), filepath.Join(dir, "api.yaml"), filepath.Join(t.TempDir(), "pack"), Options{})
	if !errors.Is(err, ErrMissingFiles) || !strings.Contains(err.Error(), "ward.yaml cannot be opened") {
		t.Fatalf("a link out of the spec's folder: %v", err)
	}
}

// A spec given as bytes, without its folder, cannot follow file $refs:
// the error says so.
func TestFileRefsWithoutFolder(t *testing.T) {
	_, err := Import(context.Background(), readTestdata(t, "multifile/missing/api.yaml"), Options{Source: "api.yaml"})
	if !errors.Is(err, ErrMissingFiles) || !strings.Contains(err.Error(), "is not available: the spec was given without its folder") {
		t.Fatalf("file $refs without a folder: %v", err)
	}
}

// Who talks to the agent fits the API: customers where it has customer
// accounts, else its staff, operators or developers, in the policy and
// in domain.yaml.
func TestPersona(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	cases := []struct {
		spec, role, policy string
	}{
		{"seed/billing.yaml", roleCustomer, "You help customers by calling its tools."},
		{"refs/client-id.yaml", roleOperator, "You are an operations assistant for Registry."},
		{"multifile/ok/api.yaml", roleEmployee, "obtain the user's explicit confirmation"},
		{"refs/pointers.yaml", roleEmployee, "a member of staff at Pointers"},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			res, err := ImportFile(context.Background(), filepath.Join("testdata", c.spec), filepath.Join(t.TempDir(), "p"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Persona != c.role {
				t.Errorf("persona %s, want %s", res.Persona, c.role)
			}
			if p := string(res.Files["policy.md"]); !strings.Contains(p, c.policy) || c.role != roleCustomer && strings.Contains(p, "customer") {
				t.Errorf("policy.md does not say %q or speaks of customers:\n%s", c.policy, p)
			}
			pk := loadPack(t, res)
			if h := pk.Manifest.Hints.Persona; h == nil || h.Role != c.role || h.Description == "" {
				t.Errorf("domain.yaml hints.persona = %+v", h)
			}
		})
	}
	if dir, err := realSpecDir(); err == nil {
		for file, role := range map[string]string{"petstore-3.0.yaml": roleCustomer, "museum-3.1.yaml": roleEmployee,
			"twilio-verify-v2-3.0.json": roleDeveloper, "discord-3.1.json": roleDeveloper,
			"digitalocean-multifile/specification/DigitalOcean-public.v2.yaml": roleDeveloper} {
			res, err := ImportFile(context.Background(), filepath.Join(dir, file), filepath.Join(t.TempDir(), "p"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Persona != role {
				t.Errorf("%s: persona %s, want %s", file, res.Persona, role)
			}
		}
	}
	if got := orgName("Discord HTTP API (Preview)"); got != "Discord" {
		t.Errorf("orgName = %q", got)
	}
}
