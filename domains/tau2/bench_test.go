package tau2

import (
	"context"

	"github.com/synth-data/synth/tools"
	"os"
	"path/filepath"
	"testing"
)

// Handler speed on τ²'s databases; one op is one tool call through the
// toolkit (argument validation and rendering included), on an episode
// state that is renewed every 64 calls as episodes are.

func benchCalls(b *testing.B, domain string, filter func(name string) bool) {
	b.Run("toolkit", func(b *testing.B) { benchRun(b, domain, filter, false) })
	b.Run("handler", func(b *testing.B) { benchRun(b, domain, filter, true) })
}

// benchRun calls through the toolkit, or (handlerOnly) the handlers
// alone on arguments parsed beforehand: what the handlers cost without
// the schema check and the JSON rendering the toolkit adds.
func benchRun(b *testing.B, domain string, filter func(name string) bool, handlerOnly bool) {
	e := loadEnv(b, domain)
	var next func() oracleCall
	if domain == "retail" {
		next = newRetailGen(e, 99).next
	} else {
		next = newAirlineGen(e, 99).next
	}
	var calls []oracleCall
	for len(calls) < 512 {
		if c := next(); filter(c.Name) {
			calls = append(calls, c)
		}
	}
	ctx := context.Background()
	type parsed struct {
		h    tools.Handler
		args map[string]any
	}
	pre := make([]parsed, len(calls))
	for i, c := range calls {
		tl, args, err := e.kit.ParseArgs(c.Name, string(c.Args))
		if err != nil {
			b.Fatal(err)
		}
		pre[i] = parsed{tl.Handler, args}
	}
	b.ReportAllocs()
	b.ResetTimer()
	st := e.base.NewState()
	for i := 0; b.Loop(); i++ {
		if i%64 == 0 {
			st = e.base.NewState()
		}
		if handlerOnly {
			p := pre[i%len(pre)]
			_, _ = p.h(ctx, st, p.args)
			continue
		}
		c := calls[i%len(calls)]
		e.kit.Call(ctx, st, c.Name, string(c.Args))
	}
}

func BenchmarkRetailMixed(b *testing.B) { benchCalls(b, "retail", func(string) bool { return true }) }

func BenchmarkRetailLookups(b *testing.B) {
	benchCalls(b, "retail", func(n string) bool {
		return n == "find_user_id_by_email" || n == "find_user_id_by_name_zip" || n == "get_item_details"
	})
}

func BenchmarkRetailWrites(b *testing.B) {
	benchCalls(b, "retail", func(n string) bool {
		return n == "cancel_pending_order" || n == "modify_pending_order_items" || n == "modify_pending_order_address" || n == "return_delivered_order_items"
	})
}

func BenchmarkAirlineMixed(b *testing.B) { benchCalls(b, "airline", func(string) bool { return true }) }

func BenchmarkAirlineSearch(b *testing.B) {
	benchCalls(b, "airline", func(n string) bool { return n == "search_direct_flight" || n == "search_onestop_flight" })
}

func BenchmarkAirlineBook(b *testing.B) {
	benchCalls(b, "airline", func(n string) bool { return n == "book_reservation" })
}

func BenchmarkCalculate(b *testing.B) {
	exprs := calcExprs(256)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = calculate(exprs[i%len(exprs)])
	}
}

func BenchmarkCheckAirlineDB(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(tau2Dir(b), "airline", "db.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CheckAirlineDB(data); err != nil {
			b.Fatal(err)
		}
	}
}
