package emulate

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
)

// BenchmarkAgentTurn measures the server's own cost of one agent turn of
// a registered session: decoding the request (policy, tools, history),
// finding the replay and encoding the response; no latency.
func BenchmarkAgentTurn(b *testing.B) {
	f := loadRetail(b)
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	bp := f.bps[0]
	session := llm.SessionID(bp.ID, 0)
	post := func(v any) *httptest.ResponseRecorder {
		body, _ := json.Marshal(v)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
		if rec.Code != http.StatusOK {
			b.Fatalf("%d: %s", rec.Code, rec.Body)
		}
		return rec
	}
	var res wireResponse
	if err := json.Unmarshal(post(customerRequest(b, bp, session, nil)).Body.Bytes(), &res); err != nil {
		b.Fatal(err)
	}
	// A mid-dialogue agent request: the first line and a few turns.
	msgs := []record.Message{{Role: "system", Content: f.d.Policy}, {Role: "user", Content: *res.Choices[0].Message.Content}}
	body, _ := json.Marshal(agentRequest(f, session, msgs))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
		if rec.Code != http.StatusOK {
			b.Fatalf("%d: %s", rec.Code, rec.Body)
		}
	}
}
