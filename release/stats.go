package release

import (
	"cmp"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// Stats are the distributions of a release, gathered as rows stream past
// in bounded memory. Stats of chunks merge into the stats of the release.
type Stats struct {
	Behaviors map[string]int `json:"behaviors"`
	Writes    map[string]int `json:"writes_per_task"`
	Evidence  map[string]int `json:"reads_per_write"`
	Intents   map[string]int `json:"intents"`
	// Situations counts the tasks holding each situation that makes one
	// hard (Situations): a forbidden request, a transfer, a question, a
	// change of mind, several requests.
	Situations    map[string]int `json:"situations"`
	Endings       map[string]int `json:"endings"`
	Messages      Summary        `json:"messages_per_dialogue"`
	UserTurns     Summary        `json:"user_turns_per_dialogue"`
	ToolCalls     Summary        `json:"tool_calls_per_dialogue"`
	ReadCalls     Summary        `json:"read_calls_per_dialogue"`
	DistinctFirst float64        `json:"distinct_first_user_messages"`
	DistinctUsers float64        `json:"distinct_user_message_sequences"`
	Rows          int            `json:"rows"`
	// DistinctN is distinct-1 and distinct-2 (unique n-grams over all
	// n-grams) of user and of assistant text.
	DistinctN map[string]map[string]float64 `json:"distinct_n"`
	// ToolSequenceEntropy is the Shannon entropy (bits) of the sequences of
	// tool names the dialogues call.
	ToolSequenceEntropy float64 `json:"tool_sequence_entropy_bits"`
	// Credit sums the rows' credit labels.
	Credit        *CreditStats       `json:"credit,omitempty"`
	ToolSequences map[string]int     `json:"-"`
	Ngrams        map[string]*ngrams `json:"-"`
	// Sketches travel in chunk summaries, not in the manifest. Exact sets
	// of hashes are kept too while small, so ordinary runs report exact
	// shares and only runs past exactLimit fall back to the sketches.
	FirstSketch *hll            `json:"-"`
	UsersSketch *hll            `json:"-"`
	FirstSet    map[uint64]bool `json:"-"`
	UsersSet    map[uint64]bool `json:"-"`
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

// NewStats makes empty stats; kindOf says whether a tool reads or writes.
func NewStats(kindOf func(string) string) *Stats {
	return &Stats{kindOf: kindOf, Behaviors: map[string]int{}, Writes: map[string]int{}, Evidence: map[string]int{},
		Intents: map[string]int{}, Situations: map[string]int{}, Endings: map[string]int{}, FirstSketch: newHLL(), UsersSketch: newHLL(),
		FirstSet: map[uint64]bool{}, UsersSet: map[uint64]bool{}, Credit: NewCreditStats(),
		ToolSequences: map[string]int{}, Ngrams: map[string]*ngrams{"user": newNgrams(), "assistant": newNgrams()}}
}

// ngrams counts unigrams and bigrams of a role's text, with sketches of
// the distinct ones.
type ngrams struct {
	Uni  *hll `json:"uni"`
	Bi   *hll `json:"bi"`
	NUni int  `json:"n_uni"`
	NBi  int  `json:"n_bi"`
}

func newNgrams() *ngrams { return &ngrams{Uni: newHLL(), Bi: newHLL()} }

func (g *ngrams) add(text string) {
	var prev uint64
	have := false
	EachWord(text, func(w string) {
		h := StringHash(w)
		g.Uni.add(h)
		g.NUni++
		if have {
			g.Bi.add(prev*31 + h)
			g.NBi++
		}
		prev, have = h, true
	})
}

// EachWord calls yield with each word of text, lower-cased: the runs of
// letters, digits, apostrophes, # and $ (and dots inside them, as in
// "12.50"), the words distinct-n counts.
func EachWord(text string, yield func(string)) {
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '#' || r == '$' || r == '.' && start >= 0 {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			yield(strings.ToLower(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		yield(strings.ToLower(text[start:]))
	}
}

func (g *ngrams) merge(o *ngrams) {
	g.Uni.merge(o.Uni)
	g.Bi.merge(o.Bi)
	g.NUni += o.NUni
	g.NBi += o.NBi
}

// Situations are what make a task more than one plain request, read
// from its goals: "refusal" (a request the policy forbids), "transfer",
// "question", "change_of_mind" (a value revised at the confirmation),
// "conditional" (a request made for the case a forbidden one is refused),
// "tool_error" (a first choice the write fails on in its tool, which
// the agent reads on a copy of the state and says cannot pay, or a first
// slot value whose write fails and whose error the agent relays),
// "unavailable" (a first replacement the record offers but not available),
// "tool_failure:KIND" (a failure the domain declares, returned at one
// write: declined_payment, timeout, ...),
// "several_requests", and the labels a pack gives its writes' tasks
// (hints.writes.*.situation: "compensation").
func Situations(bp *record.Blueprint) []string {
	var out []string
	has := func(f func(record.Goal) bool) bool { return slices.ContainsFunc(bp.Goals, f) }
	if has(func(g record.Goal) bool { return g.Kind == record.GoalRefuse }) {
		out = append(out, "refusal")
	}
	if has(func(g record.Goal) bool { return g.Kind == record.GoalTransfer }) {
		out = append(out, "transfer")
	}
	if has(func(g record.Goal) bool { return g.Kind == record.GoalInform }) {
		out = append(out, "question")
	}
	if has(func(g record.Goal) bool { return len(g.Revised) > 0 || len(g.RevisedItems) > 0 }) {
		out = append(out, "change_of_mind")
	}
	if has(func(g record.Goal) bool { return g.Instead }) {
		out = append(out, "conditional")
	}
	if has(func(g record.Goal) bool { return len(g.FailingItems) > 0 || len(g.FailingSlots) > 0 }) {
		out = append(out, "tool_error")
	}
	if has(func(g record.Goal) bool { return len(g.UnavailableNew) > 0 }) {
		out = append(out, "unavailable")
	}
	if len(bp.Goals) > 1 {
		out = append(out, "several_requests")
	}
	for _, f := range bp.Failures {
		out = append(out, "tool_failure:"+f.Kind)
	}
	// The pack's own labels (hints.writes.*.situation), once each.
	for _, g := range bp.Goals {
		if g.Situation != "" && !slices.Contains(out, g.Situation) {
			out = append(out, g.Situation)
		}
	}
	return out
}

// StringHash is the 64-bit FNV-1a hash of s.
func StringHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// exactLimit bounds the exact distinct sets (about 16 MB at the limit).
const exactLimit = 200000

// addExact adds hashes to an exact set; past the limit the set is dropped
// (nil) and the sketch answers instead.
func addExact(set map[uint64]bool, hs ...uint64) map[uint64]bool {
	if set == nil {
		return nil
	}
	for _, h := range hs {
		set[h] = true
	}
	if len(set) > exactLimit {
		return nil
	}
	return set
}

func mergeExact(dst, src map[uint64]bool) map[uint64]bool {
	if dst == nil || src == nil {
		return nil
	}
	for h := range src {
		dst[h] = true
	}
	if len(dst) > exactLimit {
		return nil
	}
	return dst
}

// maxToolSequences bounds the sequence counts a chunk keeps; past it,
// sequences count as one "other" bucket, so the entropy is a lower bound.
const maxToolSequences = 50000

// Merge adds another chunk's stats.
func (s *Stats) Merge(o *Stats) {
	for _, p := range []struct{ dst, src map[string]int }{{s.Behaviors, o.Behaviors}, {s.Writes, o.Writes}, {s.Evidence, o.Evidence}, {s.Intents, o.Intents}, {s.Situations, o.Situations}, {s.Endings, o.Endings}} {
		for k, v := range p.src {
			p.dst[k] += v
		}
	}
	if s.Credit == nil {
		s.Credit = NewCreditStats()
	}
	s.Credit.Merge(o.Credit)
	s.Messages.merge(o.Messages)
	s.UserTurns.merge(o.UserTurns)
	s.ToolCalls.merge(o.ToolCalls)
	s.ReadCalls.merge(o.ReadCalls)
	s.Rows += o.Rows
	s.FirstSketch.merge(o.FirstSketch)
	s.UsersSketch.merge(o.UsersSketch)
	s.FirstSet = mergeExact(s.FirstSet, o.FirstSet)
	s.UsersSet = mergeExact(s.UsersSet, o.UsersSet)
	for k, v := range o.ToolSequences {
		s.countSequence(k, v)
	}
	for role, g := range o.Ngrams {
		if s.Ngrams[role] == nil {
			s.Ngrams[role] = newNgrams()
		}
		s.Ngrams[role].merge(g)
	}
}

func (s *Stats) countSequence(seq string, n int) {
	if _, ok := s.ToolSequences[seq]; !ok && len(s.ToolSequences) >= maxToolSequences {
		seq = "(other)"
	}
	s.ToolSequences[seq] += n
}

// Distinct computes the distinct shares from the sketches; it is costly
// enough to run once, when the stats are complete.
func (s *Stats) Distinct() {
	s.DistinctFirst = Ratio(int(math.Round(s.FirstSketch.count())), s.Rows)
	s.DistinctUsers = Ratio(int(math.Round(s.UsersSketch.count())), s.Rows)
	if s.FirstSet != nil {
		s.DistinctFirst = Ratio(len(s.FirstSet), s.Rows)
	}
	if s.UsersSet != nil {
		s.DistinctUsers = Ratio(len(s.UsersSet), s.Rows)
	}
	// An estimate may overshoot by a hair; a share of distinct rows cannot.
	s.DistinctFirst = math.Min(s.DistinctFirst, 1)
	s.DistinctUsers = math.Min(s.DistinctUsers, 1)
	s.DistinctN = map[string]map[string]float64{}
	for role, g := range s.Ngrams {
		s.DistinctN[role] = map[string]float64{
			"distinct_1": math.Min(Ratio(int(math.Round(g.Uni.count())), g.NUni), 1),
			"distinct_2": math.Min(Ratio(int(math.Round(g.Bi.count())), g.NBi), 1),
		}
	}
	total := 0
	for _, n := range s.ToolSequences {
		total += n
	}
	h := 0.0
	for _, n := range s.ToolSequences {
		p := float64(n) / float64(total)
		h -= p * math.Log2(p)
	}
	s.ToolSequenceEntropy = math.Round(h*1000) / 1000
}

// Add counts one verified dialogue with its credit labels.
func (s *Stats) Add(bp *record.Blueprint, tr *record.Trajectory, l credit.Labels) {
	s.Rows++
	s.Credit.Add(l, tr.Engine)
	s.Behaviors[bp.Behavior]++
	s.Writes[strconv.Itoa(bp.NWrites)]++
	for _, e := range bp.Evidence {
		s.Evidence[strconv.Itoa(e)]++
	}
	for _, g := range bp.Goals {
		s.Intents[g.Intent]++
	}
	for _, k := range Situations(bp) {
		s.Situations[k]++
	}
	s.Endings[tr.Ending]++
	s.Messages.add(len(tr.Messages))
	users, calls, reads := 0, 0, 0
	seq := fnv.New64a()
	first := uint64(0)
	var tools []string
	for _, m := range tr.Messages {
		if g := s.Ngrams[m.Role]; g != nil {
			g.add(m.Content)
		}
		for _, c := range m.ToolCalls {
			tools = append(tools, c.Function.Name)
		}
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
	s.FirstSet = addExact(s.FirstSet, first)
	s.UsersSet = addExact(s.UsersSet, seq.Sum64())
	s.countSequence(strings.Join(tools, ">"), 1)
}

// Ratio is a/b rounded to four decimals, 0 when b is 0.
func Ratio(a, b int) float64 {
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

// NewCheckStats has an entry for every check, so a release lists them all.
func NewCheckStats() map[string]*CheckStats {
	m := map[string]*CheckStats{}
	for _, c := range verify.Checks() {
		m[c] = &CheckStats{}
	}
	return m
}

// AddVerdict counts a verdict's checks.
func AddVerdict(m map[string]*CheckStats, v record.Verdict) {
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
		cs.Rate = Ratio(cs.Passed, cs.Passed+cs.Failed)
	}
}

// SortedCounts orders a histogram's keys: numerically when they are
// numbers (writes, reads), alphabetically otherwise.
func SortedCounts(m map[string]int) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(x, y string) int {
		a, errA := strconv.Atoi(x)
		b, errB := strconv.Atoi(y)
		if errA == nil && errB == nil {
			return cmp.Compare(a, b)
		}
		return strings.Compare(x, y)
	})
	return keys
}
