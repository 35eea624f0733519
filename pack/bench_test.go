package pack

import (
	"context"
	"testing"
	"time"
)

// BenchmarkHandlerCall measures a realistic write through the toolkit:
// schema validation of the arguments, a fresh Starlark thread, db.get,
// changing the record, db.put into the episode's overlay and rendering
// the result. Target: 20,000 calls/s per core (go test -bench HandlerCall -cpu 1).
func BenchmarkHandlerCall(b *testing.B) {
	p, err := LoadDir(context.Background(), initPack(b), 1, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var open string
	for _, k := range p.Base.Keys("tickets") {
		v, _ := p.Base.Get("tickets", k)
		if v.(map[string]any)["status"] == "open" {
			open = k
			break
		}
	}
	args := [2]string{
		`{"ticket_id": "` + open + `", "priority": "urgent"}`,
		`{"ticket_id": "` + open + `", "priority": "low"}`,
	}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		st := p.Base.NewState()
		i := 0
		for pb.Next() {
			if r := p.Tools.Call(ctx, st, "update_ticket_priority", args[i&1]); r.Err {
				b.Errorf("call: %s", r.Output)
				return
			}
			i++
		}
	})
	reportRates(b, cpu0)
}

// reportRates reports calls per wall-clock second and per CPU-second of
// the whole process (GC included); with -cpu 1 the second is the
// per-core throughput even when other processes share the machine.
func reportRates(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	if used := cpuTime() - cpu0; used > 0 {
		b.ReportMetric(float64(b.N)/used.Seconds(), "calls/cpu-s")
	}
}

// BenchmarkReadCall measures a read that scans a collection with db.find.
func BenchmarkReadCall(b *testing.B) {
	p, err := LoadDir(context.Background(), initPack(b), 1, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st := p.Base.NewState()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if r := p.Tools.Call(ctx, st, "get_customer_details", `{"customer_id": "C0007"}`); r.Err {
			b.Fatal(r.Output)
		}
	}
	reportRates(b, cpu0)
}
