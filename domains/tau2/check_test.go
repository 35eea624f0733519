package tau2

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const miniRetail = `{
 "products": {"p1": {"name": "Lamp", "product_id": "p1", "variants": {"v1": {"item_id": "v1", "options": {"color": "red"}, "available": true, "price": 10.5}}}},
 "users": {"u1": {"user_id": "u1", "name": {"first_name": "A", "last_name": "B"},
   "address": {"address1": "1", "address2": "", "city": "c", "country": "US", "state": "CA", "zip": "1"},
   "email": "a@b", "payment_methods": {"gift_card_1": {"source": "gift_card", "id": "gift_card_1", "balance": 100}}, "orders": ["#W1"]}},
 "orders": {"#W1": {"order_id": "#W1", "user_id": "u1",
   "address": {"address1": "1", "address2": "", "city": "c", "country": "US", "state": "CA", "zip": "1"},
   "items": [{"name": "Lamp", "product_id": "p1", "item_id": "v1", "price": 10.5, "options": {"color": "red"}}],
   "status": "pending", "fulfillments": [], "payment_history": [{"transaction_type": "payment", "amount": 10.5, "payment_method_id": "gift_card_1"}]}}
}`

func TestCheckRetailDB(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(s string) string
		want    string // a substring of the error; "" for a database that loads
		wantErr error  // errors.Is target, when one applies
	}{
		{"a valid database", func(s string) string { return s }, "", nil},
		{"a status τ² does not know", func(s string) string { return strings.Replace(s, `"pending"`, `"shipped"`, 1) },
			`orders["#W1"].status: "shipped" is not one of processed, pending, pending (item modified), delivered, cancelled, exchange requested, return requested (record at line 6)`, nil},
		{"a missing field", func(s string) string { return strings.Replace(s, `"email": "a@b", `, "", 1) },
			`users["u1"].email: missing: τ²'s User requires it`, nil},
		{"a number for a string", func(s string) string {
			return strings.Replace(s, `"zip": "1"},
   "email"`, `"zip": 1},
   "email"`, 1)
		},
			`users["u1"].address.zip: must be a string, not 1`, nil},
		{"a payment method of no known kind", func(s string) string { return strings.Replace(s, `"source": "gift_card"`, `"source": "bank"`, 1) },
			`users["u1"].payment_methods["gift_card_1"].source: "bank" is not one of credit_card, gift_card, paypal`, nil},
		{"a fractional price is fine, a word is not", func(s string) string {
			return strings.Replace(s, `"price": 10.5, "options"`, `"price": "ten", "options"`, 1)
		},
			`orders["#W1"].items[0].price: "ten" is not a number`, nil},
		{"a collection the model lacks", func(s string) string { return strings.Replace(s, `"products":`, `"extra": {}, "products":`, 1) },
			`extra: τ²'s model has no collection "extra"`, nil},
		{"a missing collection", func(s string) string { return strings.Replace(s, `"products": {"p1"`, `"productz": {"p1"`, 1) },
			`products: missing: τ²'s model requires it`, nil},
		{"malformed JSON names the line", func(s string) string { return strings.Replace(s, `"status": "pending",`, `"status": "pending",,`, 1) },
			"db.json line 9: malformed JSON", nil},
		{"a truncated file", func(s string) string { return s[:len(s)/2] }, "the JSON ends early", errUnexpectedEOFTarget},
		{"a duplicate key names the line", func(s string) string {
			return strings.Replace(s, `"email": "a@b",`, `"email": "a@b", "email": "c@d",`, 1)
		},
			`db.json line 5: duplicate key "email" in users.u1: keep one`, nil},
		{"not an object", func(string) string { return `[1, 2]` }, "the top level must be an object", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := CheckRetailDB([]byte(c.edit(miniRetail)))
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				o := db["orders"]["#W1"].(map[string]any)
				if _, has := o["cancel_reason"]; !has || o["cancel_reason"] != nil {
					t.Errorf("the dump lacks cancel_reason: null: %v", o)
				}
				if b := db["users"]["u1"].(map[string]any)["payment_methods"].(map[string]any)["gift_card_1"].(map[string]any)["balance"]; b != 100.0 {
					t.Errorf("balance = %#v, want the float 100", b)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant one containing %q", err, c.want)
			}
			if c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Errorf("err = %v does not wrap %v", err, c.wantErr)
			}
		})
	}
}

var errUnexpectedEOFTarget = errUnexpectedEOF()

func errUnexpectedEOF() error {
	_, err := parseDoc([]byte(`{"a": [`))
	return errors.Unwrap(err)
}

func TestCheckAirlineDB(t *testing.T) {
	base := `{"flights": {"HAT001": {"flight_number": "HAT001", "origin": "JFK", "destination": "SFO",
	  "scheduled_departure_time_est": "06:00:00", "scheduled_arrival_time_est": "09:00:00",
	  "dates": {"2024-05-01": {"status": "available", "available_seats": {"economy": 3}, "prices": {"economy": 100}},
	            "2024-05-02": {"status": "landed", "actual_departure_time_est": "x", "actual_arrival_time_est": "y", "available_seats": {"economy": 1}}}}},
	 "users": {}, "reservations": {}}`
	db, err := CheckAirlineDB([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	landed := db["flights"]["HAT001"].(map[string]any)["dates"].(map[string]any)["2024-05-02"].(map[string]any)
	if _, has := landed["available_seats"]; has {
		t.Errorf("a landed flight keeps a field its model lacks: %v", landed)
	}
	for _, c := range []struct{ edit, want string }{
		{`"economy": 3`, `flights["HAT001"].dates["2024-05-01"].available_seats["first"]: the key "first" is not one of business, economy, basic_economy`},
		{`"status": "available"`, `flights["HAT001"].dates["2024-05-01"].status: "sold out" is not one of available, landed, cancelled, delayed, flying, on time`},
	} {
		bad := base
		switch {
		case strings.Contains(c.want, "first"):
			bad = strings.Replace(base, c.edit, `"first": 3`, 1)
		default:
			bad = strings.Replace(base, c.edit, `"status": "sold out"`, 1)
		}
		if _, err := CheckAirlineDB([]byte(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

func TestKeyOrder(t *testing.T) {
	order, err := KeyOrder([]byte(`{"users": {"b": {}, "a": {}, "c": {}}, "orders": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(order["users"]); got != "map[collection:users keys:[b a c]]" {
		t.Errorf("users order = %s, want [b a c]", got)
	}
	if got := fmt.Sprint(order["orders"].(map[string]any)["keys"]); got != "[]" {
		t.Errorf("orders order = %s, want []", got)
	}
}

// TestCheckLikePydantic mutates τ²'s databases field by field (strings
// for numbers, numbers for strings, words for booleans, missing and extra
// fields, unknown literals) and holds the checker to pydantic: the same
// databases refused, and for the others the same dump, number kinds
// included.
func TestCheckLikePydantic(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	needPython(t)
	dir := tau2Dir(t)
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, domain, "db.json"))
			if err != nil {
				t.Fatal(err)
			}
			full := decodeJSON(data).(map[string]any)
			small := map[string]any{}
			for coll, recs := range full {
				m := map[string]any{}
				for _, k := range sortedKeys(recs.(map[string]any))[:4] {
					m[k] = recs.(map[string]any)[k]
				}
				small[coll] = m
			}
			r := rand.New(rand.NewPCG(9, 9))
			const n = 400
			dbs := make([][]byte, n)
			for i := range dbs {
				v := decodeJSON(mustJSON(t, small))
				mutate(r, v)
				dbs[i] = mustJSON(t, v)
			}
			raws := make([]json.RawMessage, n)
			for i, b := range dbs {
				raws[i] = b
			}
			cmd := exec.Command("python3", filepath.Join("testdata", "tau2_dump.py"), filepath.Join(dir, "oracle.py"), domain)
			cmd.Stdin = bytes.NewReader(mustJSON(t, raws))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("tau2_dump.py: %v\n%s", err, stderr.String())
			}
			var want []struct {
				OK    bool            `json:"ok"`
				Dump  json.RawMessage `json:"dump"`
				Error string          `json:"error"`
			}
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			check := CheckRetailDB
			if domain == "airline" {
				check = CheckAirlineDB
			}
			agree, refused := 0, 0
			for i, b := range dbs {
				got, err := check(b)
				switch {
				case (err == nil) != want[i].OK:
					t.Errorf("db %d: checker says %v, pydantic says ok=%v %s\n%s", i, err, want[i].OK, clip(want[i].Error), clip(string(b)))
					continue
				case err != nil:
					refused++
				default:
					mine := map[string]any{}
					for k, v := range got {
						mine[k] = v
					}
					if d := kindDiff(mine, decodeJSON(want[i].Dump), "db"); d != "" {
						t.Errorf("db %d: dump differs from pydantic's: %s", i, d)
						continue
					}
				}
				agree++
			}
			t.Logf("%s: %d/%d mutated databases judged and dumped as pydantic does (%d refused by both)", domain, agree, n, refused)
		})
	}
}

// mutation values: what an edited db.json could hold.
var mutations = []any{
	"12", "12.0", " 7 ", "1_000", "12.5", "abc", "", "true", "yes", "off", "1e3", "-0",
	json.Number("12"), json.Number("12.0"), json.Number("12.5"), json.Number("0"), json.Number("1"), json.Number("-3"),
	true, false, nil, []any{}, map[string]any{}, []any{"x"},
	"processed", "gift_card", "economy", "cancelled", "available",
}

// mutate changes one place in a database: a leaf replaced, a key
// removed, or an unknown key added.
func mutate(r *rand.Rand, v any) {
	top := v.(map[string]any)
	colls := sortedKeys(top)
	recs := top[colls[r.IntN(len(colls))]].(map[string]any)
	keys := sortedKeys(recs)
	node := recs[keys[r.IntN(len(keys))]]
	for depth := 0; ; depth++ {
		switch x := node.(type) {
		case map[string]any:
			ks := sortedKeys(x)
			if len(ks) == 0 {
				x["extra"] = mutations[r.IntN(len(mutations))]
				return
			}
			k := ks[r.IntN(len(ks))]
			child := x[k]
			_, isMap := child.(map[string]any)
			_, isList := child.([]any)
			if (isMap || isList) && r.IntN(4) > 0 {
				node = child
				continue
			}
			switch r.IntN(6) {
			case 0:
				delete(x, k)
			case 1:
				x["unknown_field"] = 1
			default:
				x[k] = mutations[r.IntN(len(mutations))]
			}
			return
		case []any:
			if len(x) == 0 {
				return
			}
			i := r.IntN(len(x))
			if _, isMap := x[i].(map[string]any); isMap && r.IntN(3) > 0 {
				node = x[i]
				continue
			}
			x[i] = mutations[r.IntN(len(mutations))]
			return
		default:
			return
		}
	}
}

func FuzzCheckRetailDB(f *testing.F) {
	f.Add([]byte(miniRetail))
	f.Add([]byte(`{"products": {}, "users": {}, "orders": {}}`))
	f.Add([]byte(`{"products": {"a": {"name": 1}}}`))
	f.Add([]byte(`[[[[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := CheckRetailDB(data)
		if err == nil {
			if _, err := json.Marshal(db); err != nil {
				t.Fatalf("the dump of an accepted database is not JSON: %v", err)
			}
			if len(db) != 3 {
				t.Fatalf("accepted database has %d collections", len(db))
			}
		}
		if _, err := KeyOrder(data); err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}

func FuzzCheckAirlineDB(f *testing.F) {
	f.Add([]byte(`{"flights": {"HAT001": {"flight_number": "HAT001", "origin": "JFK", "destination": "SFO", "scheduled_departure_time_est": "06:00:00", "scheduled_arrival_time_est": "09:00:00", "dates": {"2024-05-01": {"status": "available", "available_seats": {"economy": 3}, "prices": {"economy": "100"}}}}}, "users": {}, "reservations": {}}`))
	f.Add([]byte(`{"flights": {}, "users": {"u": {"membership": "gold"}}, "reservations": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := CheckAirlineDB(data)
		if err == nil {
			if _, err := json.Marshal(db); err != nil {
				t.Fatalf("the dump of an accepted database is not JSON: %v", err)
			}
		}
	})
}
