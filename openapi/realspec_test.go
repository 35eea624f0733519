package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/openapi"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/tools"
)

// specDir finds the real specs: $SYNTH_OPENAPI_SPECS, else
// ../shared/openapi relative to the module root; it skips when neither
// exists.
func specDir(t testing.TB) string {
	t.Helper()
	if env := os.Getenv("SYNTH_OPENAPI_SPECS"); env != "" {
		if _, err := os.Stat(env); err != nil {
			t.Fatalf("SYNTH_OPENAPI_SPECS=%s: %v", env, err)
		}
		return env
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory; cannot find ../shared/openapi")
		}
		dir = parent
	}
	specs := filepath.Join(dir, "..", "shared", "openapi")
	if _, err := os.Stat(specs); err != nil {
		t.Skipf("real OpenAPI specs not found at %s (they live outside the repo, in ../shared/openapi): %v", specs, err)
	}
	return specs
}

// crudCase drives one collection of a real spec through its five tools.
type crudCase struct {
	file       string
	operations int
	coll       string
	key        string // record key field
	keyArg     string
	scope      map[string]string // argument -> record field (parent ids)
	list, get  string
	listField  string // where the list result holds the records
	create     string
	createArgs map[string]any
	update     string
	setField   string // the update sets this argument and record field
	setValue   any
	del        string
	noun       string
}

var realSpecs = []crudCase{
	{file: "petstore-3.0.yaml", operations: 19, coll: "pet", key: "id", keyArg: "petId",
		list: "findPetsByStatus", listField: "pets", get: "getPetById", create: "addPet",
		createArgs: map[string]any{"name": "Rex", "photoUrls": []any{"https://example.com/rex.png"}},
		update:     "updatePetWithForm", setField: "name", setValue: "Rexie", del: "deletePet", noun: "pet"},
	{file: "museum-3.1.yaml", operations: 8, coll: "special_events", key: "eventId", keyArg: "eventId",
		list: "listSpecialEvents", listField: "special_events", get: "getSpecialEvent", create: "createSpecialEvent",
		createArgs: map[string]any{"name": "Night Tour", "location": "Hall B", "eventDescription": "A tour at night.",
			"dates": []any{"2025-07-01"}, "price": 25},
		update: "updateSpecialEvent", setField: "name", setValue: "Late Tour", del: "deleteSpecialEvent", noun: "special event"},
	{file: "twilio-verify-v2-3.0.json", operations: 57, coll: "services", key: "sid", keyArg: "Sid",
		list: "ListService", listField: "services", get: "FetchService", create: "CreateService",
		createArgs: map[string]any{"FriendlyName": "Login codes"},
		update:     "UpdateService", setField: "FriendlyName", setValue: "Signup codes", del: "DeleteService", noun: "service"},
	{file: "discord-3.1.json", operations: 242, coll: "guilds_roles", key: "id", keyArg: "role_id",
		scope: map[string]string{"guild_id": "guild_id"},
		list:  "list_guild_roles", listField: "roles", get: "get_guild_role", create: "create_guild_role",
		createArgs: map[string]any{"name": "moderators"},
		update:     "update_guild_role", setField: "name", setValue: "admins", del: "delete_guild_role", noun: "role"},
	{file: "digitalocean-multifile/specification/DigitalOcean-public.v2.yaml", operations: 659, coll: "account_keys", key: "id", keyArg: "ssh_key_identifier",
		list: "sshKeys_list", listField: "ssh_keys", get: "sshKeys_get", create: "sshKeys_create",
		createArgs: map[string]any{"name": "laptop", "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx laptop"},
		update:     "sshKeys_update", setField: "name", setValue: "work laptop", del: "sshKeys_delete", noun: "key"},
}

func importReal(t *testing.T, c crudCase) (*openapi.Result, string) {
	t.Helper()
	return importSeeded(t, c, 7)
}

// realModel imports the real spec named file into a pack and builds its
// model; it returns the pack's directory too.
func realModel(t *testing.T, file string) (*model.Model, string) {
	t.Helper()
	i := slices.IndexFunc(realSpecs, func(c crudCase) bool { return c.file == file })
	if i < 0 {
		t.Fatalf("%s is not in realSpecs", file)
	}
	_, dir := importReal(t, realSpecs[i])
	ctx := context.Background()
	p, err := pack.LoadDir(ctx, dir, 1, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.NewModel(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	return m, dir
}

// importSeeded imports a real spec with the given database seed.
func importSeeded(t *testing.T, c crudCase, seed uint64) (*openapi.Result, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pack")
	res, err := openapi.ImportFile(context.Background(), filepath.Join(specDir(t), c.file), dir, openapi.Options{Seed: seed})
	if err != nil {
		t.Fatalf("import %s: %v", c.file, err)
	}
	return res, dir
}

// Each real spec imports with one tool per operation, valid parameter
// schemas, a pack that validates and loads, and working CRUD handlers.
func TestRealSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	for _, c := range realSpecs {
		t.Run(c.file, func(t *testing.T) {
			res, dir := importReal(t, c)
			if res.Operations != c.operations {
				t.Errorf("operations = %d, want %d", res.Operations, c.operations)
			}
			var tl []struct {
				Function struct {
					Name       string         `json:"name"`
					Parameters map[string]any `json:"parameters"`
					Kind       string         `json:"x-kind"`
				} `json:"function"`
			}
			if err := json.Unmarshal(res.Files["tools.json"], &tl); err != nil {
				t.Fatal(err)
			}
			if len(tl) != c.operations+1 { // + the transfer tool
				t.Errorf("tools.json has %d tools, want %d", len(tl), c.operations+1)
			}
			for _, f := range []string{"domain.yaml", "tools.json", "handlers.star", "db.json", "policy.md", "IMPORT.md"} {
				if len(res.Files[f]) == 0 {
					t.Errorf("%s is empty", f)
				}
			}
			// Every operation is listed in IMPORT.md with its handler.
			report := string(res.Files["IMPORT.md"])
			for _, x := range tl[:len(tl)-1] {
				if !strings.Contains(report, "`"+x.Function.Name+"`") {
					t.Errorf("IMPORT.md does not list tool %s", x.Function.Name)
				}
			}
			if probs := pack.Validate(context.Background(), os.DirFS(dir), pack.Options{}); len(probs) > 0 {
				t.Fatalf("pack.Validate: %v", pack.Problems(probs))
			}
			p, err := pack.LoadDir(context.Background(), dir, 1, pack.Options{})
			if err != nil {
				t.Fatalf("pack.LoadDir: %v", err)
			}
			if n := len(p.Tools.Tools()); n != c.operations+1 {
				t.Errorf("loaded %d tools, want %d", n, c.operations+1)
			}
			crud(t, c, p)
		})
	}
}

func call(t *testing.T, p *pack.Pack, st *tools.State, name string, args map[string]any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return p.Tools.Call(context.Background(), st, name, string(raw))
}

func with(base map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func crud(t *testing.T, c crudCase, p *pack.Pack) {
	keys := p.Base.Keys(c.coll)
	if len(keys) < 20 {
		t.Fatalf("collection %s has %d records, want at least 20", c.coll, len(keys))
	}
	raw, _ := p.Base.Get(c.coll, keys[0])
	rec, err := tools.ToObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	key := rec[c.key]
	if tools.Text(key) != keys[0] {
		t.Fatalf("record %s: key field %s = %v", keys[0], c.key, key)
	}
	scope := map[string]any{}
	for a, f := range c.scope {
		scope[a] = rec[f]
	}
	st := p.Base.NewState()

	r := call(t, p, st, c.list, scope)
	if r.Err {
		t.Fatalf("%s: %s", c.list, r.Output)
	}
	page, _ := r.Value.(map[string]any)
	list, ok := page[c.listField].([]any)
	if !ok || len(list) == 0 {
		t.Fatalf("%s returned %T %.200s, want a page with a non-empty list under %q", c.list, r.Value, r.Output, c.listField)
	}
	if len(r.Output) > 12000 {
		t.Errorf("%s returned %d characters; a list result should be a page of short records", c.list, len(r.Output))
	}
	found := false
	for _, x := range list {
		if m, err := tools.ToObject(x); err == nil && tools.Text(m[c.key]) == keys[0] {
			found = true
		}
	}
	if !found {
		t.Errorf("%s does not list record %s", c.list, keys[0])
	}

	r = call(t, p, st, c.get, with(scope, c.keyArg, key))
	if r.Err || !strings.Contains(r.Output, keys[0]) {
		t.Fatalf("%s(%v): %.300s", c.get, key, r.Output)
	}

	r = call(t, p, st, c.create, with(with(scope), flatten(c.createArgs)...))
	if r.Err {
		t.Fatalf("%s: %s", c.create, r.Output)
	}
	created, err := tools.ToObject(r.Value)
	if err != nil || created[c.key] == nil {
		t.Fatalf("%s returned %.300s without the key %s", c.create, r.Output, c.key)
	}
	if r = call(t, p, st, c.get, with(scope, c.keyArg, created[c.key])); r.Err {
		t.Errorf("the created record cannot be read: %s", r.Output)
	}
	if len(p.Base.Keys(c.coll))+1 != len(st.Keys(c.coll)) {
		t.Errorf("create: %d records, want %d", len(st.Keys(c.coll)), len(p.Base.Keys(c.coll))+1)
	}

	if r = call(t, p, st, c.update, with(scope, c.keyArg, key, c.setField, c.setValue)); r.Err {
		t.Fatalf("%s: %s", c.update, r.Output)
	}
	r = call(t, p, st, c.get, with(scope, c.keyArg, key))
	if !strings.Contains(r.Output, tools.Text(c.setValue)) {
		t.Errorf("after %s, %s = %.300s, want %s set to %v", c.update, c.get, r.Output, c.setField, c.setValue)
	}

	if r = call(t, p, st, c.del, with(scope, c.keyArg, key)); r.Err {
		t.Fatalf("%s: %s", c.del, r.Output)
	}
	if r = call(t, p, st, c.get, with(scope, c.keyArg, key)); !r.Err || !strings.Contains(r.Output, "no "+c.noun+" with id") {
		t.Errorf("%s of deleted record %v: %q, want an error naming the %s", c.get, key, r.Output, c.noun)
	}
	if r = call(t, p, st, c.del, with(scope, c.keyArg, key)); !r.Err {
		t.Errorf("deleting a deleted record succeeded: %s", r.Output)
	}
}

func flatten(m map[string]any) []any {
	var out []any
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k, m[k])
	}
	return out
}

// Every imported real spec runs end to end: synth run on the pack writes
// a release with verified SFT rows.
func TestRealSpecsRun(t *testing.T) {
	for _, c := range realSpecs {
		t.Run(c.file, func(t *testing.T) {
			if testing.Short() && c.operations > 100 {
				t.Skip("the large spec's run is skipped in -short mode")
			}
			_, dir := importReal(t, c)
			cfg := pipeline.Defaults()
			cfg.Domain = dir
			cfg.N = 50
			cfg.Seed = 3
			cfg.Workers = 2
			cfg.Out = filepath.Join(t.TempDir(), "release")
			res, err := pipeline.Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatalf("pipeline.Run on the pack of %s: %v", c.file, err)
			}
			m := res.Manifest
			if m == nil || m.Counts.Verified == 0 || m.Counts.SFTRows == 0 {
				t.Fatalf("no verified SFT rows: %+v", m)
			}
			if m.Counts.Verified < m.Counts.Blueprints*9/10 {
				t.Errorf("only %d of %d dialogues verified (rejections %v)", m.Counts.Verified, m.Counts.Blueprints, m.Failures)
			}
			// The writes no task uses are listed, each with why, and no
			// task uses one of them.
			for name, why := range m.UnusedWrites {
				if m.Stats.Intents[name] > 0 || why == "" {
					t.Errorf("unused write %s (%q) is the intent of %d tasks", name, why, m.Stats.Intents[name])
				}
			}
			// The card lists every write no task of this release uses, also
			// those the generator can build but drew for none of its 50
			// tasks or only under other --reads: those still count as
			// writes the generator reaches.
			buildable := func(why string) bool {
				return why == "" || strings.Contains(why, "the generator can build one") || strings.Contains(why, "give a range that holds it")
			}
			if c.file == "discord-3.1.json" {
				// Writes on records only a parent's list shows (pins), on
				// records nothing reads (a member's roles), on a
				// collection sharing a noun with another (a channel's
				// pins), with an enum of titled consts (a join request's
				// action) and with a nullable integer the records hold as
				// text (permissions) all make tasks.
				for _, name := range []string{"delete_pin", "delete_guild_member_role", "delete_group_dm_user", "deprecated_delete_pin", "delete_guild_integration", "action_guild_join_request", "update_application_command"} {
					if why := m.UnusedWrites[name]; !buildable(why) {
						t.Errorf("discord's %s is unused: %s", name, why)
					}
				}
			}
			// Every mapped write makes tasks: memberships added (a role
			// to a member, a pin, a thread member, a knowledge base), a
			// sync, updates whose only settable fields are patterned or
			// an object of one value, and creates needing an object, two
			// ids or a name no record has.
			for _, name := range map[string][]string{
				"discord-3.1.json": {"add_guild_member_role", "add_thread_member", "create_pin", "deprecated_create_pin", "sync_guild_template"},
				"digitalocean-multifile/specification/DigitalOcean-public.v2.yaml": {"genai_attach_knowledge_base", "dedicatedInferences_patch",
					"partnerAttachments_patch", "nfs_create_access_point", "vpcPeerings_create", "functions_create_trigger"},
			}[c.file] {
				if why := m.UnusedWrites[name]; !buildable(why) {
					t.Errorf("%s is unused: %s", name, why)
				}
			}
			// The oracle never breaks a rule every pack has: no write
			// that changes nothing, no id nobody gave.
			for check, n := range m.Failures {
				if strings.HasPrefix(check, "rule:changes_state:") || strings.HasPrefix(check, "rule:grounded:") {
					t.Errorf("%d dialogues fail %s", n, check)
				}
			}
			sft, _ := filepath.Glob(filepath.Join(cfg.Out, "sft", "*.parquet"))
			if len(sft) == 0 {
				t.Errorf("no SFT Parquet files in %s", cfg.Out)
			}
			// A large API's rows carry the task's tools and distractors,
			// not the whole API; validate holds every row to that.
			want := "all"
			if c.operations > 32 {
				want = "relevant+8"
			}
			if got := m.Config["tools"]; got != want {
				t.Errorf("--tools default for %d operations: %v, want %s", c.operations, got, want)
			}
			v, err := (audit.Validator{}).Validate(context.Background(), cfg.Out)
			if err != nil || !v.OK() {
				t.Errorf("validate: %v %+v", err, v.Defects)
			}
		})
	}
}

// An imported real spec gives the same release for the same seed,
// whatever the worker count: every file of three runs is byte for byte
// the first's. DigitalOcean's descriptions once filled a value pool in map
// order, and the releases of its pack as synth domain import-openapi
// writes it (database seed 1) changed from run to run at seed 77.
func TestRealSpecsDeterministic(t *testing.T) {
	for _, c := range realSpecs {
		t.Run(c.file, func(t *testing.T) {
			if testing.Short() && c.operations > 100 {
				t.Skip("the large spec's runs are skipped in -short mode")
			}
			_, dir := importSeeded(t, c, 1)
			var first map[string][]byte
			for _, workers := range []int{2, 1, 4} {
				cfg := pipeline.Defaults()
				cfg.Domain = dir
				cfg.N = 100
				cfg.Seed = 77
				cfg.Workers = workers
				cfg.Out = filepath.Join(t.TempDir(), "release")
				if _, err := pipeline.Run(context.Background(), cfg, nil); err != nil {
					t.Fatalf("pipeline.Run with %d workers: %v", workers, err)
				}
				files := releaseFiles(t, cfg.Out)
				if first == nil {
					first = files
					continue
				}
				for _, name := range slices.Sorted(maps.Keys(first)) {
					if got, ok := files[name]; !ok {
						t.Errorf("%d workers: no %s", workers, name)
					} else if !bytes.Equal(got, first[name]) {
						t.Errorf("%d workers: %s differs from the first run's", workers, name)
					}
				}
				for name := range files {
					if _, ok := first[name]; !ok {
						t.Errorf("%d workers: %s is new", workers, name)
					}
				}
			}
		})
	}
}

// releaseFiles reads every file of a release, by path within it.
func releaseFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		out[rel] = raw
		return err
	})
	if err != nil {
		t.Fatalf("read the release %s: %v", root, err)
	}
	return out
}

// BenchmarkImportDiscord imports the largest real spec (242 operations,
// 1.2 MB of JSON).
func BenchmarkImportDiscord(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(specDir(b), "discord-3.1.json"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := openapi.Import(context.Background(), raw, openapi.Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNestedRecords: discord's messages live under channels
// (/channels/{channel_id}/messages/{message_id}). They are read by key
// within their channel, the customer names the channel with the key, and
// update_message and delete_guild_role build tasks, on the right record.
func TestNestedRecords(t *testing.T) {
	m, _ := realModel(t, "discord-3.1.json")
	// Ids like "0" recur in every collection: a list of sticker packs is
	// not how applications are found.
	if l := m.Colls["applications"].List; l != nil && l.Tool == "list_sticker_packs" {
		t.Errorf("applications are listed by %s", l.Tool)
	}
	if l := m.Colls["sticker_packs"].List; l == nil || l.Tool != "list_sticker_packs" {
		t.Errorf("sticker packs are not listed by list_sticker_packs: %+v", l)
	}
	msgs := m.Colls["channels_messages"]
	if msgs == nil || msgs.Get != "get_message" || msgs.GetParam != "message_id" || !slices.Equal(msgs.Scope, []string{"channel_id"}) {
		t.Fatalf("channels_messages: %+v", msgs)
	}
	key := m.Base.Keys("channels_messages")[0]
	v, _ := m.Base.Get("channels_messages", key)
	rec := v.(map[string]any)
	args := m.GetArgs(msgs, key)
	if tools.Text(args["channel_id"]) != tools.Text(rec["channel_id"]) || tools.Text(args["message_id"]) != key {
		t.Errorf("GetArgs(%s) = %v, record's channel %v", key, args, rec["channel_id"])
	}
	if w := m.ScopeWords(msgs, key); w != " in channel "+tools.Text(rec["channel_id"]) {
		t.Errorf("ScopeWords = %q", w)
	}
	for _, want := range []struct{ tool, coll string }{{"update_message", "channels_messages"}, {"delete_guild_role", "guilds_roles"}} {
		var w *model.WriteModel
		for _, x := range m.Writes {
			if x.Name == want.tool {
				w = x
			}
		}
		if w == nil || w.Coll == nil || w.Coll.Name != want.coll {
			t.Errorf("%s does not target %s: %+v", want.tool, want.coll, w)
			continue
		}
		for _, pm := range w.Params {
			if slices.Contains(w.Coll.Scope, pm.Name) && (pm.Source != model.SrcTarget || pm.Path != pm.Name) {
				t.Errorf("%s.%s is the target's parent and must come from it, not %s", want.tool, pm.Name, pm.Source)
			}
		}
	}
}

// TestWritesOfEveryKind: a PascalCase API's nested records (Twilio's
// /Services/{ServiceSid}/Webhooks/{Sid}) are read within their parent
// named as the record names it (service_sid), and a create whose
// optional id names the record it makes (museum's createSpecialEvent)
// acts on no existing record.
func TestWritesOfEveryKind(t *testing.T) {
	tw, _ := realModel(t, "twilio-verify-v2-3.0.json")
	hooks := tw.Colls["webhooks"]
	if hooks == nil || hooks.Get != "FetchWebhook" || hooks.ScopeField["ServiceSid"] != "service_sid" {
		t.Errorf("twilio webhooks: %+v", hooks)
	}
	// Discord: writes whose target shares a noun with another collection
	// act on the one whose records hold their parameters, and every
	// parent they name comes from the target.
	dc, _ := realModel(t, "discord-3.1.json")
	cases := []struct {
		write, coll, keyParam string
		fromTarget            []string
	}{
		{"delete_guild_emoji", "guilds_emojis", "emoji_id", []string{"guild_id"}},
		{"update_guild_emoji", "guilds_emojis", "emoji_id", []string{"guild_id"}},
		{"delete_guild_application_command", "guilds_commands", "command_id", []string{"application_id", "guild_id"}},
		{"delete_guild_scheduled_event", "scheduled_events", "guild_scheduled_event_id", []string{"guild_id"}},
		// The tool's plural names the collection: reactions, not messages.
		{"delete_all_message_reactions_by_emoji", "reactions", "emoji_name", []string{"channel_id", "message_id"}},
	}
	for _, c := range cases {
		w := dc.Write(c.write)
		if w == nil {
			t.Errorf("discord %s: no write model (skipped: %s)", c.write, dc.Skipped[c.write])
			continue
		}
		if w.Coll == nil || w.Coll.Name != c.coll {
			t.Errorf("discord %s targets %+v, want %s", c.write, w.Coll, c.coll)
			continue
		}
		if p := w.Param(c.keyParam); p == nil || p.Source != model.SrcTargetKey {
			t.Errorf("discord %s.%s: %+v, want the target's key", c.write, c.keyParam, p)
		}
		for _, name := range c.fromTarget {
			if p := w.Param(name); p == nil || p.Source != model.SrcTarget {
				t.Errorf("discord %s.%s: %+v, want the target's own", c.write, name, p)
			}
		}
	}
	// A read that takes a parameter named like the key but reads another
	// collection is not the collection's get: get_user is no recipient's.
	// Nothing reads recipients, so a write on one is named by its key and
	// its channel, which come from the target.
	if r := dc.Colls["recipients"]; r == nil || r.Get != "" || !r.Unread() || !slices.Equal(r.Scope, []string{"channel_id"}) {
		t.Errorf("discord recipients: %+v, want unread within a channel", r)
	}
	// A write acts on its handler's collection: deprecated_delete_pin on
	// a channel's pins, whose key field is id and argument message_id.
	for _, c := range []struct{ write, coll, keyParam string }{
		{"deprecated_delete_pin", "channels_pins", "message_id"},
		{"delete_guild_integration", "integrations", "integration_id"},
		{"delete_guild_member_role", "members_roles", "role_id"},
	} {
		w := dc.Write(c.write)
		if w == nil || w.Coll == nil || w.Coll.Name != c.coll {
			t.Errorf("discord %s targets %+v, want %s (skipped: %s)", c.write, w, c.coll, dc.Skipped[c.write])
			continue
		}
		if p := w.Param(c.keyParam); p == nil || p.Source != model.SrcTargetKey {
			t.Errorf("discord %s.%s: %+v, want the target's key", c.write, c.keyParam, p)
		}
	}
	// Pins have no get by key: list_pins(channel_id) lists a channel's,
	// and the pin is the element holding its key.
	pins := dc.Colls["messages_pins"]
	if pins == nil || pins.Get != "list_pins" || !pins.GetLists || pins.GetParam != "" || !slices.Equal(pins.Scope, []string{"channel_id"}) {
		t.Fatalf("discord messages_pins: %+v, want read through list_pins within a channel", pins)
	}
	for _, key := range dc.Base.Keys("messages_pins")[:5] {
		args := dc.GetArgs(pins, key)
		if _, ok := args["message_id"]; ok || len(args) != 1 {
			t.Errorf("GetArgs(pin %s) = %v, want the channel alone", key, args)
		}
		out, ok := dc.Read(context.Background(), nil, pins.Get, args)
		if rec := dc.RecordOf(pins, key, out); !ok || rec == nil || tools.Text(rec["message_id"]) != key {
			t.Errorf("pin %s is not found in list_pins(%v): %v", key, args, rec)
		}
		if rec := dc.RecordOf(pins, key+"x", out); rec != nil {
			t.Errorf("RecordOf finds pin %sx, which no record is: %v", key, rec)
		}
	}
	// A PUT that sets nothing in a collection nothing creates adds a
	// membership: it targets the parent and names which record to add
	// from the collection its key names (a role of the member's guild).
	for _, c := range []struct{ write, parent, keyParam, keysOf string }{
		{"add_guild_member_role", "guilds_members", "role_id", "guilds_roles"},
		{"create_pin", "channels", "message_id", "channels_messages"},
		{"add_thread_member", "channels", "user_id", "users"},
	} {
		w := dc.Write(c.write)
		if w == nil || w.Coll == nil || w.Coll.Name != c.parent {
			t.Errorf("discord %s targets %+v, want %s (skipped: %s)", c.write, w, c.parent, dc.Skipped[c.write])
			continue
		}
		if p := w.Param(c.keyParam); p == nil || p.Source != model.SrcSlot || p.KeysOf != c.keysOf {
			t.Errorf("discord %s.%s: %+v, want a key of %s", c.write, c.keyParam, p, c.keysOf)
		}
	}
	mu, _ := realModel(t, "museum-3.1.yaml")
	for _, w := range mu.Writes {
		if w.Name == "createSpecialEvent" && w.TargetKind != model.TargetNone {
			t.Errorf("createSpecialEvent targets %v %+v: a create makes its record", w.TargetKind, w.Coll)
		}
	}
	// Creates whose verb is "place" (placeOrder) or follows the resource
	// in the plural (domains_create) make their record, whose optional id
	// or name is the new one's.
	ps, _ := realModel(t, "petstore-3.0.yaml")
	do, _ := realModel(t, "digitalocean-multifile/specification/DigitalOcean-public.v2.yaml")
	for _, c := range []struct {
		m     *model.Model
		write string
	}{{ps, "placeOrder"}, {do, "domains_create"}} {
		if w := c.m.Write(c.write); w == nil || w.TargetKind != model.TargetNone {
			t.Errorf("%s targets %+v: a create makes its record", c.write, w)
		}
	}
	// A write addresses its target by the key and parents every time,
	// optional in the schema or not: a task never acts on a record it
	// does not name.
	for _, m := range []*model.Model{ps, dc, do, tw} {
		for _, w := range m.Writes {
			for _, pm := range w.Params {
				if (pm.Source == model.SrcTargetKey || pm.Source == model.SrcTarget) && pm.Optional {
					t.Errorf("%s.%s comes from the target but is optional", w.Name, pm.Name)
				}
			}
		}
	}
}

// A list called as the agent calls it (no paging arguments) returns a
// result a model is given in practice, not tens of thousands of
// characters: DigitalOcean's models and evaluation metrics, shown whole
// since no get tool gives them, come a few to a page.
func TestListsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the 659-operation spec")
	}
	for _, c := range realSpecs {
		_, dir := importReal(t, c)
		p, err := pack.LoadDir(context.Background(), dir, 1, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st := p.Base.NewState()
		for _, name := range slices.Sorted(maps.Keys(p.Manifest.Collections)) {
			l := p.Manifest.Collections[name].List
			if l == nil {
				continue
			}
			r := p.Tools.Call(context.Background(), st, l.Tool, "{}")
			if !r.Err && len(r.Output) > 16000 {
				t.Errorf("%s: %s() returned %d characters", c.file, l.Tool, len(r.Output))
			}
		}
	}
}
