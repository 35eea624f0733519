package retail

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// testDomain is shared by the tool tests: generating it is the slow part
// and nothing may modify it (the tests check that nothing does).
var testDomain = sync.OnceValues(func() (*Domain, error) { return New(1) })

func domain(t *testing.T) *Domain {
	t.Helper()
	d, err := testDomain()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// snapshot hashes the DB's contents, to detect a handler that mutated a
// base record in place (Base.Hash is computed once and would not notice).
func snapshot(t *testing.T, d *Domain) string {
	t.Helper()
	b, err := json.Marshal([]any{d.DB.Users, d.DB.Orders, d.DB.Products})
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// guardBase fails the test if the base changed by the end of it.
func guardBase(t *testing.T, d *Domain) {
	t.Helper()
	hash, snap := d.Base.Hash(), snapshot(t, d)
	t.Cleanup(func() {
		if d.Base.Hash() != hash || snapshot(t, d) != snap {
			t.Error("the base database was modified")
		}
	})
}

func call(t *testing.T, d *Domain, st *tools.State, name string, args map[string]any) tools.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return d.Tools.Call(context.Background(), st, name, string(b))
}

// mustCall runs a call that must succeed and decodes its result into out.
func mustCall(t *testing.T, d *Domain, st *tools.State, name string, args map[string]any, out any) {
	t.Helper()
	r := call(t, d, st, name, args)
	if r.Err {
		t.Fatalf("%s(%v): %s", name, args, r.Output)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(r.Output), out); err != nil {
			t.Fatalf("%s: output %q: %v", name, r.Output, err)
		}
	}
}

// findOrder returns the first order, by id, that satisfies pred.
func findOrder(t *testing.T, d *Domain, pred func(o *Order, u *User) bool) *Order {
	t.Helper()
	for _, id := range d.DB.OrderIDs {
		o := d.DB.Orders[id]
		if pred(o, d.DB.Users[o.UserID]) {
			return o
		}
	}
	t.Fatal("no order in the test database fits")
	return nil
}

func methodOf(u *User, source string, not ...string) string {
	for _, id := range slices.Sorted(maps.Keys(u.PaymentMethods)) {
		if u.PaymentMethods[id].Source == source && !slices.Contains(not, id) {
			return id
		}
	}
	return ""
}

// alternative returns an available variant of it's product other than it.
func alternative(d *Domain, it OrderItem) (Variant, bool) {
	p := d.DB.Products[it.ProductID]
	for _, id := range slices.Sorted(maps.Keys(p.Variants)) {
		if v := p.Variants[id]; id != it.ItemID && v.Available {
			return v, true
		}
	}
	return Variant{}, false
}

func unavailable(d *Domain, it OrderItem) (Variant, bool) {
	p := d.DB.Products[it.ProductID]
	for _, id := range slices.Sorted(maps.Keys(p.Variants)) {
		if v := p.Variants[id]; id != it.ItemID && !v.Available {
			return v, true
		}
	}
	return Variant{}, false
}

// otherProductItem returns an item of a product the order does not contain.
func otherProductItem(d *Domain, o *Order) string {
	for _, pid := range d.DB.ProductIDs {
		if !slices.ContainsFunc(o.Items, func(it OrderItem) bool { return it.ProductID == pid }) {
			return slices.Sorted(maps.Keys(d.DB.Products[pid].Variants))[0]
		}
	}
	return ""
}

func foreignMethod(d *Domain, o *Order) string {
	for _, uid := range d.DB.UserIDs {
		if uid != o.UserID {
			return slices.Sorted(maps.Keys(d.DB.Users[uid].PaymentMethods))[0]
		}
	}
	return ""
}

func TestToolkitSpec(t *testing.T) {
	d := domain(t)
	var spec []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(d.Tools.OpenAI()), &spec); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"find_user_id_by_email": record.KindRead, "find_user_id_by_name_zip": record.KindRead,
		"get_user_details": record.KindRead, "get_order_details": record.KindRead,
		"get_product_details": record.KindRead, "get_item_details": record.KindRead,
		"list_all_product_types": record.KindRead,
		"cancel_pending_order":   record.KindWrite, "modify_pending_order_address": record.KindWrite,
		"modify_pending_order_items": record.KindWrite, "modify_pending_order_payment": record.KindWrite,
		"modify_user_address": record.KindWrite, "return_delivered_order_items": record.KindWrite,
		"exchange_delivered_order_items": record.KindWrite,
		"calculate":                      record.KindGeneric, "transfer_to_human_agents": record.KindGeneric,
	}
	if len(spec) != 16 {
		t.Fatalf("%d tools, want 16", len(spec))
	}
	kinds := make(map[string]int)
	for _, s := range spec {
		f := s.Function
		if s.Type != "function" || len(f.Description) < 40 {
			t.Errorf("%s: type %q or a too short description", f.Name, s.Type)
		}
		kind, ok := want[f.Name]
		if !ok || d.Tools.Kind(f.Name) != kind {
			t.Errorf("%s: kind %q, want %q", f.Name, d.Tools.Kind(f.Name), kind)
		}
		kinds[kind]++
		p := f.Parameters
		props, _ := p["properties"].(map[string]any)
		var req []string
		for _, r := range p["required"].([]any) {
			req = append(req, r.(string))
		}
		if p["type"] != "object" || p["additionalProperties"] != false || props == nil {
			t.Errorf("%s: schema is not a strict object: %v", f.Name, p)
		}
		if !slices.Equal(slices.Sorted(slices.Values(req)), slices.Sorted(maps.Keys(props))) {
			t.Errorf("%s: required %v does not list every property", f.Name, req)
		}
		for name, prop := range props {
			if m, _ := prop.(map[string]any); m["description"] == nil {
				t.Errorf("%s.%s has no description", f.Name, name)
			}
		}
	}
	if kinds[record.KindRead] != 7 || kinds[record.KindWrite] != 7 || kinds[record.KindGeneric] != 2 {
		t.Errorf("kinds %v, want 7 read, 7 write, 2 generic", kinds)
	}
}

func TestSchemaRejects(t *testing.T) {
	d := domain(t)
	guardBase(t, d)
	o := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusPending })
	for _, c := range []struct {
		name, tool, args, want string
	}{
		{"not JSON", "get_order_details", `{"order_id":`, "not valid JSON"},
		{"not an object", "get_order_details", `["x"]`, "do not match its schema"},
		{"missing field", "get_order_details", `{}`, "do not match its schema"},
		{"extra field", "get_order_details", `{"order_id":"` + o.OrderID + `","x":1}`, "do not match its schema"},
		{"wrong type", "get_order_details", `{"order_id":5}`, "do not match its schema"},
		{"empty id", "get_user_details", `{"user_id":""}`, "do not match its schema"},
		{"reason not in enum", "cancel_pending_order", `{"order_id":"` + o.OrderID + `","reason":"changed my mind"}`, "do not match its schema"},
		{"empty item list", "return_delivered_order_items", `{"order_id":"#W1","item_ids":[],"payment_method_id":"x"}`, "do not match its schema"},
		{"item list of numbers", "return_delivered_order_items", `{"order_id":"#W1","item_ids":[1],"payment_method_id":"x"}`, "do not match its schema"},
		{"address2 missing", "modify_user_address", `{"user_id":"u","address1":"a","city":"c","state":"s","country":"USA","zip":"12345"}`, "do not match its schema"},
		{"arguments to a no-argument tool", "list_all_product_types", `{"x":1}`, "do not match its schema"},
		{"expression too long", "calculate", `{"expression":"` + strings.Repeat("1+", 300) + `1"}`, "do not match its schema"},
		{"unknown tool", "delete_user", `{}`, "unknown tool"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := d.Base.NewState()
			r := d.Tools.Call(context.Background(), st, c.tool, c.args)
			if !r.Err || !strings.HasPrefix(r.Output, "Error: ") || !strings.Contains(r.Output, c.want) {
				t.Errorf("got %q, want an error containing %q", r.Output, c.want)
			}
			if st.Hash() != d.Base.Hash() || st.Changed() != 0 {
				t.Error("a rejected call changed the state")
			}
		})
	}
}

func TestReadTools(t *testing.T) {
	d := domain(t)
	guardBase(t, d)
	u := d.DB.Users[d.DB.UserIDs[10]]
	o := d.DB.Orders[u.Orders[0]]
	it := o.Items[0]
	p := d.DB.Products[it.ProductID]
	st := d.Base.NewState()

	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       string // exact output, or "" to only check success
		wantErr    string
	}{
		{"email", "find_user_id_by_email", map[string]any{"email": u.Email}, u.UserID, ""},
		{"email any case", "find_user_id_by_email", map[string]any{"email": " " + strings.ToUpper(u.Email) + " "}, u.UserID, ""},
		{"email unknown", "find_user_id_by_email", map[string]any{"email": "nobody@example.com"}, "", "user not found"},
		{"name zip", "find_user_id_by_name_zip", map[string]any{"first_name": u.Name.FirstName, "last_name": strings.ToLower(u.Name.LastName), "zip": u.Address.Zip}, u.UserID, ""},
		{"name wrong zip", "find_user_id_by_name_zip", map[string]any{"first_name": u.Name.FirstName, "last_name": u.Name.LastName, "zip": "00000"}, "", "user not found"},
		{"user", "get_user_details", map[string]any{"user_id": u.UserID}, "", ""},
		{"user unknown", "get_user_details", map[string]any{"user_id": "nobody_1234"}, "", "user not found"},
		{"order", "get_order_details", map[string]any{"order_id": o.OrderID}, "", ""},
		{"order unknown", "get_order_details", map[string]any{"order_id": "#W0000000"}, "", "order not found"},
		{"order without #", "get_order_details", map[string]any{"order_id": strings.TrimPrefix(o.OrderID, "#")}, "", "order not found"},
		{"product", "get_product_details", map[string]any{"product_id": p.ProductID}, "", ""},
		{"product by item id", "get_product_details", map[string]any{"product_id": it.ItemID}, "", "product not found"},
		{"item", "get_item_details", map[string]any{"item_id": it.ItemID}, "", ""},
		{"item by product id", "get_item_details", map[string]any{"item_id": p.ProductID}, "", "item not found"},
		{"transfer", "transfer_to_human_agents", map[string]any{"summary": "wants a refund in cash"}, "Transfer successful", ""},
		{"calculate", "calculate", map[string]any{"expression": "(10 + 5.5) * 2"}, "31", ""},
		{"calculate error", "calculate", map[string]any{"expression": "1 / 0"}, "", "division by zero"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := call(t, d, st, c.tool, c.args)
			if c.wantErr != "" {
				if !r.Err || !strings.Contains(r.Output, c.wantErr) {
					t.Errorf("got %q, want error %q", r.Output, c.wantErr)
				}
				return
			}
			if r.Err || (c.want != "" && r.Output != c.want) {
				t.Errorf("got %q, want %q", r.Output, c.want)
			}
			if r.Kind != d.Tools.Kind(c.tool) {
				t.Errorf("result kind %q", r.Kind)
			}
		})
	}

	var gotUser User
	mustCall(t, d, st, "get_user_details", map[string]any{"user_id": u.UserID}, &gotUser)
	if gotUser.UserID != u.UserID || !slices.Equal(gotUser.Orders, u.Orders) {
		t.Errorf("get_user_details returned %+v", gotUser)
	}
	var item ItemDetails
	mustCall(t, d, st, "get_item_details", map[string]any{"item_id": it.ItemID}, &item)
	if item.ItemID != it.ItemID || item.ProductID != p.ProductID || item.Name != p.Name || item.Price != p.Variants[it.ItemID].Price {
		t.Errorf("get_item_details returned %+v", item)
	}
	var types map[string]string
	mustCall(t, d, st, "list_all_product_types", map[string]any{}, &types)
	if len(types) != 50 || types[p.Name] != p.ProductID {
		t.Errorf("list_all_product_types returned %d types, %s -> %q", len(types), p.Name, types[p.Name])
	}
	if st.Changed() != 0 || st.Hash() != d.Base.Hash() {
		t.Error("read tools changed the state")
	}
}

// A lookup by name and zip must see an address change made earlier in the
// same episode.
func TestNameZipSeesEpisodeWrites(t *testing.T) {
	d := domain(t)
	guardBase(t, d)
	u := d.DB.Users[d.DB.UserIDs[0]]
	st := d.Base.NewState()
	mustCall(t, d, st, "modify_user_address", map[string]any{
		"user_id": u.UserID, "address1": "1 Infinite Loop", "address2": "", "city": "Cupertino",
		"state": "CA", "country": "USA", "zip": "95014",
	}, nil)
	byZip := func(zip string) tools.Result {
		return call(t, d, st, "find_user_id_by_name_zip", map[string]any{"first_name": u.Name.FirstName, "last_name": u.Name.LastName, "zip": zip})
	}
	if r := byZip("95014"); r.Err || r.Output != u.UserID {
		t.Errorf("new zip: %q", r.Output)
	}
	if r := byZip(u.Address.Zip); !r.Err {
		t.Errorf("old zip still finds the user: %q", r.Output)
	}
	// The base is untouched, so a fresh episode still finds the old zip.
	if r := call(t, d, d.Base.NewState(), "find_user_id_by_name_zip", map[string]any{"first_name": u.Name.FirstName, "last_name": u.Name.LastName, "zip": u.Address.Zip}); r.Err {
		t.Errorf("fresh state: %q", r.Output)
	}
}
