package testpacks

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Dir is the folder of a test pack: library (identify returns a record,
// loans listed whole, a book search) or catalog (no users).
func Dir(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), name)
}

// Load loads a test pack for seed 1.
func Load(ctx context.Context, name string) (*pack.Pack, error) {
	return pack.LoadDir(ctx, Dir(name), 1, pack.Options{})
}

// GoPack is a pack built in Go: customers found by email (the tool
// returns the key as a string), notes owned by them and listed in the
// customer's record, writes whose sources are all inferred.
func GoPack() (*pack.Pack, error) {
	db := map[string]map[string]any{"customers": {}, "notes": {}}
	topics := []string{"billing", "shipping", "account"}
	for u := 1; u <= 6; u++ {
		id := fmt.Sprintf("c%d", u)
		var notes []any
		for k := 0; k < u%4+1; k++ {
			nid := fmt.Sprintf("n%d%d", u, k)
			notes = append(notes, nid)
			db["notes"][nid] = map[string]any{"note_id": nid, "customer_id": id, "topic": topics[(u+k)%3], "pinned": k%2 == 0,
				"created_at": fmt.Sprintf("2025-01-%02dT10:00:00Z", 1+u+k*3), "stars": float64(k + u)}
		}
		db["customers"][id] = map[string]any{"customer_id": id, "email": id + "@example.com", "name": "Customer " + id, "notes": notes}
	}
	base, err := tools.NewBase(db)
	if err != nil {
		return nil, err
	}
	obj := func(props map[string]any, req ...string) map[string]any {
		r := make([]any, len(req))
		for i, x := range req {
			r[i] = x
		}
		return map[string]any{"type": "object", "properties": props, "required": r, "additionalProperties": false}
	}
	str := map[string]any{"type": "string"}
	get := func(coll, key string) tools.Handler {
		return func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
			v, ok := st.Get(coll, args[key].(string))
			if !ok {
				return nil, fmt.Errorf("no %s %v", coll, args[key])
			}
			return v, nil
		}
	}
	kit, err := tools.NewToolkit([]*tools.Tool{
		{Name: "find_customer", Kind: record.KindRead, Description: "Find a customer's id by email.", Parameters: obj(map[string]any{"email": str}, "email"),
			Handler: func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
				for _, k := range st.Keys("customers") {
					v, _ := st.Get("customers", k)
					if v.(map[string]any)["email"] == args["email"] {
						return k, nil
					}
				}
				return nil, fmt.Errorf("no customer with email %v", args["email"])
			}},
		{Name: "get_customer", Kind: record.KindRead, Description: "Get a customer.", Parameters: obj(map[string]any{"customer_id": str}, "customer_id"), Handler: get("customers", "customer_id")},
		{Name: "get_note", Kind: record.KindRead, Description: "Get a note.", Parameters: obj(map[string]any{"note_id": str}, "note_id"), Handler: get("notes", "note_id")},
		{Name: "retitle_note", Kind: record.KindWrite, Description: "Changes the topic of a note.",
			Parameters: obj(map[string]any{"note_id": str, "topic": str}, "note_id", "topic"),
			Handler: func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
				v, ok := st.Get("notes", args["note_id"].(string))
				if !ok {
					return nil, fmt.Errorf("no note %v", args["note_id"])
				}
				n := map[string]any{}
				maps.Copy(n, v.(map[string]any))
				n["topic"] = args["topic"]
				return n, st.Put("notes", args["note_id"].(string), n)
			}},
	})
	if err != nil {
		return nil, err
	}
	man := pack.Manifest{Name: "gopack", Version: "0.0.1",
		Collections: map[string]pack.Collection{"customers": {Key: "customer_id"}, "notes": {Key: "note_id", Owner: "customer_id"}},
		Users:       pack.Users{Collection: "customers", Identify: []pack.Identify{{Tool: "find_customer", Args: map[string]string{"email": "email"}}}}}
	return &pack.Pack{Manifest: man, Policy: "Be helpful.", Tools: kit, Base: base}, nil
}
