package pipeline

import (
	"hash/fnv"
	"math"
	"sort"
	"strconv"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// Stats are the distributions of a release, gathered as rows stream past
// in bounded memory. Stats of chunks merge into the stats of the release.
type Stats struct {
	Behaviors     map[string]int `json:"behaviors"`
	Writes        map[string]int `json:"writes_per_task"`
	Evidence      map[string]int `json:"reads_per_write"`
	Intents       map[string]int `json:"intents"`
	Endings       map[string]int `json:"endings"`
	Messages      Summary        `json:"messages_per_dialogue"`
	UserTurns     Summary        `json:"user_turns_per_dialogue"`
	ToolCalls     Summary        `json:"tool_calls_per_dialogue"`
	ReadCalls     Summary        `json:"read_calls_per_dialogue"`
	DistinctFirst float64        `json:"distinct_first_user_messages"`
	DistinctUsers float64        `json:"distinct_user_message_sequences"`
	Rows          int            `json:"rows"`
	// Sketches travel in chunk summaries, not in the manifest.
	FirstSketch *hll `json:"-"`
	UsersSketch *hll `json:"-"`
	kindOf      func(tool string) string
}

// Summary is a running mean with range.
type Summary struct {
	Mean float64 `json:"mean"`
	Min  int     `json:"min"`
	Max  int     `json:"max"`
	Sum  int     `json:"sum"`
	N    int     `json:"n"`
}

func (s *Summary) add(v int) {
	s.merge(Summary{Min: v, Max: v, Sum: v, N: 1})
}

func (s *Summary) merge(o Summary) {
	if o.N == 0 {
		return
	}
	if s.N == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	if o.Max > s.Max {
		s.Max = o.Max
	}
	s.Sum += o.Sum
	s.N += o.N
	s.Mean = float64(int(float64(s.Sum)/float64(s.N)*100+0.5)) / 100
}

func newStats(kindOf func(string) string) *Stats {
	return &Stats{kindOf: kindOf, Behaviors: map[string]int{}, Writes: map[string]int{}, Evidence: map[string]int{},
		Intents: map[string]int{}, Endings: map[string]int{}, FirstSketch: newHLL(), UsersSketch: newHLL()}
}

// merge adds another chunk's stats.
func (s *Stats) merge(o *Stats) {
	for _, p := range []struct{ dst, src map[string]int }{{s.Behaviors, o.Behaviors}, {s.Writes, o.Writes}, {s.Evidence, o.Evidence}, {s.Intents, o.Intents}, {s.Endings, o.Endings}} {
		for k, v := range p.src {
			p.dst[k] += v
		}
	}
	s.Messages.merge(o.Messages)
	s.UserTurns.merge(o.UserTurns)
	s.ToolCalls.merge(o.ToolCalls)
	s.ReadCalls.merge(o.ReadCalls)
	s.Rows += o.Rows
	s.FirstSketch.merge(o.FirstSketch)
	s.UsersSketch.merge(o.UsersSketch)
}

// distinct computes the distinct shares from the sketches; it is costly
// enough to run once, when the stats are complete.
func (s *Stats) distinct() {
	s.DistinctFirst = ratio(int(math.Round(s.FirstSketch.count())), s.Rows)
	s.DistinctUsers = ratio(int(math.Round(s.UsersSketch.count())), s.Rows)
	// An estimate may overshoot by a hair; a share of distinct rows cannot.
	s.DistinctFirst = math.Min(s.DistinctFirst, 1)
	s.DistinctUsers = math.Min(s.DistinctUsers, 1)
}

func (s *Stats) add(bp *record.Blueprint, tr *record.Trajectory) {
	s.Rows++
	s.Behaviors[bp.Behavior]++
	s.Writes[strconv.Itoa(bp.NWrites)]++
	for _, e := range bp.Evidence {
		s.Evidence[strconv.Itoa(e)]++
	}
	for _, g := range bp.Goals {
		s.Intents[g.Intent]++
	}
	s.Endings[tr.Ending]++
	s.Messages.add(len(tr.Messages))
	users, calls, reads := 0, 0, 0
	seq := fnv.New64a()
	first := uint64(0)
	for _, m := range tr.Messages {
		if m.Role == "user" {
			h := fnv.New64a()
			h.Write([]byte(m.Content))
			if users == 0 {
				first = h.Sum64()
			}
			users++
			seq.Write([]byte(m.Content))
			seq.Write([]byte{0})
		}
		for _, c := range m.ToolCalls {
			calls++
			if s.kindOf(c.Function.Name) == record.KindRead {
				reads++
			}
		}
	}
	s.UserTurns.add(users)
	s.ToolCalls.add(calls)
	s.ReadCalls.add(reads)
	s.FirstSketch.add(first)
	s.UsersSketch.add(seq.Sum64())
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(int(float64(a)/float64(b)*10000+0.5)) / 10000
}

// CheckStats counts passes and failures per verification check.
type CheckStats struct {
	Passed int     `json:"passed"`
	Failed int     `json:"failed"`
	Rate   float64 `json:"pass_rate"`
}

func checkStats() map[string]*CheckStats {
	m := map[string]*CheckStats{}
	for _, c := range verify.Checks() {
		m[c] = &CheckStats{}
	}
	return m
}

func addVerdict(m map[string]*CheckStats, v record.Verdict) {
	for _, c := range v.Checks {
		cs := m[c.Name]
		if cs == nil {
			cs = &CheckStats{}
			m[c.Name] = cs
		}
		if c.Passed {
			cs.Passed++
		} else {
			cs.Failed++
		}
		cs.Rate = ratio(cs.Passed, cs.Passed+cs.Failed)
	}
}

func sortedCounts(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, errA := strconv.Atoi(keys[i])
		b, errB := strconv.Atoi(keys[j])
		if errA == nil && errB == nil {
			return a < b
		}
		return keys[i] < keys[j]
	})
	return keys
}
