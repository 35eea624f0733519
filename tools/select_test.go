package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/synth-data/synth/record"
)

// loadOrders reads the order fixtures as generic objects, the way agents
// see tool results.
func loadOrders(t *testing.T) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "orders.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestResolve(t *testing.T) {
	orders := loadOrders(t)
	sel := func(where map[string]string, pick string) record.Selector {
		return record.Selector{Collection: "orders", Where: where, Pick: pick, Label: "the order"}
	}
	st := func(s string) map[string]string { return map[string]string{"status": s} }
	cases := []struct {
		name string
		sel  record.Selector
		want string // order id, or "" for an error
		err  string // part of the error
	}{
		{"by id", record.Selector{Collection: "orders", ID: "#W0000003", Label: "order #W0000003"}, "#W0000003", ""},
		{"by id ignores where", record.Selector{Collection: "orders", ID: "#W0000003", Where: st("cancelled"), Label: "x"}, "#W0000003", ""},
		{"unknown id", record.Selector{Collection: "orders", ID: "#W9999999", Label: "order #W9999999"}, "", "no orders matches"},
		{"id of another collection's field", record.Selector{Collection: "users", ID: "#W0000003", Label: "x"}, "", "no users"},
		{"unique where", sel(st("processed"), ""), "#W0000005", ""},
		{"where is case-insensitive", sel(st("PROCESSED"), ""), "#W0000005", ""},
		{"several match without pick", sel(st("pending"), ""), "", "3 orders match"},
		{"no match", sel(st("lost"), ""), "", "no orders matches"},
		{"where on a list fans out", sel(map[string]string{"items.name": "Desk Lamp"}, ""), "#W0000004", ""},
		{"where on nested options", sel(map[string]string{"items.options.color": "green"}, ""), "#W0000003", ""},
		{"two conditions", sel(map[string]string{"status": "pending", "items.name": "T-Shirt"}, ""), "", "2 orders match"},
		{"two conditions unique", sel(map[string]string{"status": "delivered", "items.name": "T-Shirt"}, ""), "#W0000004", ""},
		{"where on a number", sel(map[string]string{"items.price": "12.5"}, ""), "#W0000003", ""},
		{"where on a boolean", sel(map[string]string{"gift": "true"}, ""), "#W0000005", ""},
		{"most recent pending", sel(st("pending"), "max:created_at"), "#W0000006", ""},
		{"oldest pending", sel(st("pending"), "min:created_at"), "#W0000001", ""},
		{"most expensive pending", sel(st("pending"), "max:sum:items.price"), "#W0000003", ""},
		{"cheapest pending", sel(st("pending"), "min:sum:items.price"), "#W0000006", ""},
		{"max over one candidate", sel(st("processed"), "max:sum:items.price"), "#W0000005", ""},
		{"max of every order", sel(nil, "max:sum:items.price"), "#W0000003", ""},
		{"numbers compare as numbers", sel(nil, "max:rank"), "#W0000004", ""},
		{"numbers compare as numbers (min)", sel(nil, "min:rank"), "#W0000005", ""},
		{"tie on max (9.99+10.01 equals 15+5)", sel(st("delivered"), "max:sum:items.price"), "", "tie"},
		{"tie on min", sel(st("delivered"), "min:sum:items.price"), "", "tie"},
		{"tie broken by a later better one", sel(nil, "min:created_at"), "#W0000005", ""},
		{"tie on the first two, any order", sel(map[string]string{"rank": "9"}, "min:created_at"), "#W0000001", ""},
		{"pick over no match", sel(st("lost"), "max:created_at"), "", "no orders matches"},
		{"bad pick direction", sel(st("pending"), "top:created_at"), "", "max:FIELD or min:FIELD"},
		{"pick without field", sel(st("pending"), "created_at"), "", "max:FIELD or min:FIELD"},
		{"missing pick field", sel(st("pending"), "max:weight"), "", "missing"},
		{"sum of text", sel(st("pending"), "max:sum:items.name"), "", "not numeric"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A selector by ID looks in its own collection's key field.
			key := map[string]string{"orders": "order_id", "users": "user_id"}[tc.sel.Collection]
			i, err := ResolveKey(tc.sel, orders, key)
			if tc.err != "" {
				if err == nil {
					t.Fatalf("resolved to %v, want an error containing %q", orders[i]["order_id"], tc.err)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %q does not contain %q", err, tc.err)
				}
				if i != -1 {
					t.Errorf("index %d on error, want -1", i)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := orders[i]["order_id"]; got != tc.want {
				t.Errorf("resolved to %v, want %s", got, tc.want)
			}
		})
	}
}

// Resolution does not depend on the order of the candidates.
func TestResolveOrderIndependent(t *testing.T) {
	orders := loadOrders(t)
	sels := []record.Selector{
		{Collection: "orders", Where: map[string]string{"status": "pending"}, Pick: "max:created_at"},
		{Collection: "orders", Where: map[string]string{"status": "pending"}, Pick: "min:sum:items.price"},
		{Collection: "orders", Pick: "max:sum:items.price"},
		{Collection: "orders", Where: map[string]string{"status": "delivered"}, Pick: "min:sum:items.price"},
		{Collection: "orders", Pick: "min:created_at"},
	}
	for _, s := range sels {
		want := ""
		if i, err := ResolveKey(s, orders, "order_id"); err == nil {
			want = orders[i]["order_id"].(string)
		}
		for shift := 1; shift < len(orders); shift++ {
			rot := append(append([]map[string]any{}, orders[shift:]...), orders[:shift]...)
			rev := make([]map[string]any, len(rot))
			for i := range rot {
				rev[len(rot)-1-i] = rot[i]
			}
			for _, c := range [][]map[string]any{rot, rev} {
				got := ""
				if i, err := ResolveKey(s, c, "order_id"); err == nil {
					got = c[i]["order_id"].(string)
				}
				if got != want {
					t.Errorf("%+v: resolved to %q after reordering, %q before", s, got, want)
				}
			}
		}
	}
}

func TestResolveVariants(t *testing.T) {
	vars := []map[string]any{
		{"item_id": "100", "available": true, "price": 30.0, "options": map[string]any{"color": "blue", "size": "M"}},
		{"item_id": "101", "available": false, "price": 10.0, "options": map[string]any{"color": "blue", "size": "S"}},
		{"item_id": "102", "available": true, "price": 20.0, "options": map[string]any{"color": "blue", "size": "L"}},
		{"item_id": "103", "available": true, "price": 20.0, "options": map[string]any{"color": "red", "size": "L"}},
	}
	cases := []struct {
		sel  record.Selector
		want string
	}{
		{record.Selector{Collection: "variants", ID: "101"}, "101"},
		{record.Selector{Collection: "items", ID: "103"}, "103"},
		{record.Selector{Collection: "variants", Where: map[string]string{"available": "true", "options.color": "blue"}, Pick: "min:price"}, "102"},
		{record.Selector{Collection: "variants", Where: map[string]string{"options.color": "blue"}, Pick: "min:price"}, "101"},
		{record.Selector{Collection: "variants", Where: map[string]string{"available": "true", "options.size": "L"}, Pick: "min:price"}, ""},
		{record.Selector{Collection: "variants", Where: map[string]string{"available": "true", "options.size": "L", "options.color": "red"}}, "103"},
	}
	for _, tc := range cases {
		got := ""
		if i, err := ResolveKey(tc.sel, vars, "item_id"); err == nil {
			got = vars[i]["item_id"].(string)
		}
		if got != tc.want {
			t.Errorf("%+v resolved to %q, want %q", tc.sel, got, tc.want)
		}
	}
}

func TestField(t *testing.T) {
	orders := loadOrders(t)
	o3 := orders[2]
	cases := []struct {
		obj  any
		path string
		want []any
	}{
		{o3, "order_id", []any{"#W0000003"}},
		{o3, "items.name", []any{"T-Shirt", "Backpack"}},
		{o3, "items.price", []any{12.5, 80.0}},
		{o3, "items.options.color", []any{"green"}}, // the backpack has no color
		{o3, "items.options", []any{map[string]any{"color": "green", "size": "M"}, map[string]any{"material": "nylon"}}},
		{o3, "tags", []any{"gift", "rush"}}, // a list of scalars is flattened
		{o3, "address.city", []any{"Austin"}},
		{o3, "address.city.name", nil}, // through a scalar
		{o3, "missing", nil},
		{o3, "items.missing", nil},
		{o3, "", nil},
		{[]any{map[string]any{"a": 1.0}, map[string]any{"a": 2.0}, "x"}, "a", []any{1.0, 2.0}},
		{map[string]any{"a": []any{[]any{1.0}}}, "a", []any{[]any{1.0}}},                                                                       // one level of flattening
		{map[string]any{"a": []any{map[string]any{"b": []any{map[string]any{"c": "x"}, map[string]any{"c": "y"}}}}}, "a.b.c", []any{"x", "y"}}, // nested fan-out
		{"scalar", "a", nil},
	}
	for _, tc := range cases {
		got := Field(tc.obj, tc.path)
		if !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("Field(%q) = %#v, want %#v", tc.path, got, tc.want)
		}
	}
}

func TestMatches(t *testing.T) {
	o := loadOrders(t)[2]
	cases := []struct {
		where map[string]string
		want  bool
	}{
		{nil, true},
		{map[string]string{}, true},
		{map[string]string{"status": "pending"}, true},
		{map[string]string{"status": "Pending"}, true},
		{map[string]string{"status": "pending "}, false},
		{map[string]string{"items.name": "backpack"}, true},
		{map[string]string{"items.name": "Back"}, false},
		{map[string]string{"items.name": "Backpack", "items.options.color": "green"}, true}, // conditions may hold on different items
		{map[string]string{"status": "pending", "items.name": "Lamp"}, false},
		{map[string]string{"tags": "rush"}, true},
		{map[string]string{"nothing": ""}, false},
	}
	for _, tc := range cases {
		if got := Matches(o, tc.where); got != tc.want {
			t.Errorf("Matches(%v) = %v, want %v", tc.where, got, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{"x", "x"}, {true, "true"}, {false, "false"}, {2.0, "2"}, {2.5, "2.5"}, {1e21, "1000000000000000000000"}, {-0.5, "-0.5"},
		{json.Number("1.50"), "1.50"}, {nil, ""}, {[]any{"a"}, `["a"]`}, {map[string]any{"k": 1}, `{"k":1}`},
	}
	for _, tc := range cases {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestToObject(t *testing.T) {
	type item struct {
		Name  string  `json:"name"`
		Price float64 `json:"price"`
	}
	m, err := ToObject(&item{Name: "x", Price: 2})
	if err != nil || m["name"] != "x" || m["price"] != 2.0 {
		t.Errorf("ToObject(struct) = %v, %v", m, err)
	}
	in := map[string]any{"a": 1}
	if m, _ := ToObject(in); fmt.Sprintf("%p", m) != fmt.Sprintf("%p", in) {
		t.Error("ToObject copied a generic object")
	}
	for _, bad := range []any{"text", []int{1}, make(chan int), 3} {
		if _, err := ToObject(bad); err == nil {
			t.Errorf("ToObject(%T) succeeded", bad)
		}
	}
}
