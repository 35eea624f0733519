package release

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	"go.yaml.in/yaml/v3"
)

// Card renders the release's README.md: a Hugging Face dataset card whose
// YAML front matter declares the sft (and dpo) configs, their splits and
// features. The front matter is written through the YAML library, so no
// value (a --license, a domain name) can add or change a key. eng is what
// the engine that played the dialogues says of itself (its engine.Kind);
// a release of outside dialogues ignores it.
func Card(m *Manifest, files []FileEntry, eng engine.Card) string {
	var b strings.Builder
	b.WriteString(cardFrontMatter(m, files))

	fmt.Fprintf(&b, "# synth %s tool-use dialogues\n\n", m.Domain.Name)
	if m.Config["engine"] == EngineOutside {
		b.WriteString(outsideText(m))
	} else {
		b.WriteString(generatedText(m, eng))
	}
	b.WriteString("## Verification\n\nEvery row passed every check: tool-call arguments valid against the tool's JSON Schema; records valid against " +
		"the schemas in `domain/schemas/`; tool-call ids matched; authentication before account access; a proposal with the details and an explicit yes " +
		"before each write, one write at a time; the final database state equal to the state reached by replaying the ground truth on a fresh copy; " +
		"required outputs (refunds, price differences, answers) said to the user; a proper ending; and every rule of the domain's policy that its pack " +
		"declares (`rule:KIND:NAME`: figures stated before the yes and equal to what the write did, values the customer must give, messages and reminders " +
		"the policy prescribes, refusals, no write that changes nothing or that nobody asked for), each naming the policy sentence it enforces in `domain/domain.yaml`.\n\n")
	b.WriteString("| check | passed | failed | pass rate |\n|---|---|---|---|\n")
	names := slices.Sorted(maps.Keys(m.Checks))
	for _, n := range names {
		c := m.Checks[n]
		fmt.Fprintf(&b, "| %s | %d | %d | %.4f |\n", n, c.Passed, c.Failed, c.Rate)
	}
	fmt.Fprintf(&b, "\nBlueprints: %d; simulated: %d; verified: %d; rejected (kept in `rejected/` for audit): %d; "+
		"duplicates removed before export: %d exact, %d near (MinHash over user turns and over tool calls; each with its kept twin in `rejected/duplicates.jsonl.gz`).\n\n",
		m.Counts.Blueprints, m.Counts.Simulated, m.Counts.Verified, m.Counts.Rejected, m.Counts.Duplicates["exact"], m.Counts.Duplicates["near"])

	if h := m.Holdout; h != nil {
		fmt.Fprintf(&b, "Contamination guard: every task was checked against the %d held-out tasks of `%s` (for a pack imported from τ²-bench, the writes of τ²'s own tasks, its test set). "+
			"A task whose ground-truth writes equal one task's (the same tools with the same arguments, lists in any order) is never released: %d drawn tasks were dropped for it.\n\n", h.Tasks, h.File, h.Dropped)
	}

	if s := m.Stats; s != nil {
		b.WriteString("## Statistics\n\n")
		fmt.Fprintf(&b, "| measure | mean | min | max |\n|---|---|---|---|\n")
		for _, row := range []struct {
			name string
			s    Summary
		}{{"messages per dialogue", s.Messages}, {"user turns per dialogue", s.UserTurns}, {"tool calls per dialogue", s.ToolCalls}, {"read calls per dialogue", s.ReadCalls}} {
			fmt.Fprintf(&b, "| %s | %.2f | %d | %d |\n", row.name, row.s.Mean, row.s.Min, row.s.Max)
		}
		fmt.Fprintf(&b, "\nDistinct first user messages: %.1f%%; distinct sequences of user messages: %.1f%%. ", 100*s.DistinctFirst, 100*s.DistinctUsers)
		if u, a := s.DistinctN["user"], s.DistinctN["assistant"]; u != nil && a != nil {
			fmt.Fprintf(&b, "Distinct-1/-2 of user text: %.4f / %.4f; of assistant text: %.4f / %.4f. ", u["distinct_1"], u["distinct_2"], a["distinct_1"], a["distinct_2"])
		}
		fmt.Fprintf(&b, "Tool-sequence entropy: %.2f bits.\n\n", s.ToolSequenceEntropy)
		if c := s.Credit; c != nil && c.Rows > 0 {
			b.WriteString(creditStatsText(c))
		}
	}

	if d := m.DPO; d != nil {
		b.WriteString("## Preference pairs (dpo)\n\n")
		fmt.Fprintf(&b, "%d pairs. Each rejected side comes from a flawed agent that makes one realistic mistake; the dialogue was simulated onward "+
			"(the user kept answering in its profile) and verified, and the pair counts only if verification failed for the mistake's expected reason "+
			"(recorded in `rejected/dpo_failures-*.jsonl.gz`). The chosen side is the oracle's verified path from the same history. Pair mode: `%v`.\n\n",
			d.Pairs, m.Config["dpo_mode"])
		b.WriteString(histogram("Failure types", d.ByFailure))
		fmt.Fprintf(&b, "Flawed attempts: %d; no opportunity for the mistake: %d; verified anyway: %d; failed for another reason: %d; "+
			"mistake not in the rejected side however cut (dropped): %d.\n\n",
			d.Attempts, d.NotFired, d.NoFailure, d.OtherReason, d.LabelNotShown)
		b.WriteString(decisionText(m))
		if m.Config["dpo_tools"] == "cut" {
			b.WriteString("Tool results (`--dpo-tools cut`): chosen and rejected each end at their first tool call, so no tool message is in " +
				"them. TRL's DPO loss counts every completion token, tool observations included; cut pairs compare the agent's own decisions only.\n\n")
		} else {
			b.WriteString("Tool results (`--dpo-tools keep`): chosen and rejected keep the tool messages their calls got. TRL's DPO loss counts " +
				"every completion token, these included; `--dpo-tools cut` ends each side at its first tool call instead.\n\n")
		}
		b.WriteString(openAIPairsText(d))
		b.WriteString("Columns: `id`, `blueprint_id`, `domain`, `prompt` (shared history; ends with a user or tool message), `chosen`, `rejected` " +
			"(each starts with an assistant message), `tools`, `failure` (taxonomy label), `divergence_turn` (user turns before the divergence). " +
			"Load with `load_dataset(\"parquet\", data_files={\"train\": \"dpo/train-*.parquet\"})` and pass to TRL's `DPOTrainer` (explicit prompt).\n\n")
	}
	if l := m.LLM; l != nil {
		b.WriteString(llmSection(l))
	}
	b.WriteString("## Files\n\n- `sft/{split}-NNNNN-of-NNNNN.parquet`: the training rows (columns below).\n" +
		"- `blueprints/{split}-NNNNN-of-NNNNN.jsonl.gz`: every task with its ground truth, persona, behaviour and required outputs.\n" +
		"- `rejected/rejected-*.jsonl.gz`: dialogues that failed verification, with the failed check (audit, not training data); " +
		"`rejected/dpo_failures-*.jsonl.gz`: the verified failure behind each DPO pair.\n" +
		"- `domain/`: the policy, the tools and the record schemas used.\n- `manifest.json`: config, counts, pass rates and every file with its rows and sha256.\n\n")
	b.WriteString("Columns: `id`, `blueprint_id`, `domain`, `messages`, `tools`, `n_writes`, `n_reads`, `evidence` (reads needed before each write), " +
		"`behavior`, `engine`, `kind` (empty for the oracle's dialogue; `recovery` where the customer catches a flawed agent's mistake and the agent corrects it). Each message is the OpenAI chat message object with only the keys it has (`role`, `content`; `reasoning_content`, " +
		"`tool_calls`, `tool_call_id`, `name` when set; `weight`, below), each call's `arguments` an object; each tool is one OpenAI tool definition; " +
		"`labels` is the row's per-turn labels and rewards, one JSON object (below).\n\n" +
		"A recovery row's mistake must not be a training target: its assistant messages from `labels.mistake_from` (the flawed agent's first turn that is not the oracle's, as its near-miss pick announced) up to `labels.correcting` (exclusive; through the proposal the customer turned down) " +
		"carry `\"weight\": 0`, OpenAI fine-tuning's per-message key for assistant messages, and no other message carries `weight`. The OpenAI fine-tuning API skips them; " +
		"Axolotl's `chat_template` type does with `message_field_training: weight`; TRL's `SFTTrainer` ignores the key (`assistant_only_loss` trains every assistant turn), " +
		"so with TRL mask those messages (labels -100) or drop the rows whose `kind` is `recovery`.\n\n")
	b.WriteString(labelsText)
	b.WriteString(loading)
	b.WriteString(licenseText(m))
	return b.String()
}

// generatedText says how synth generated the release.
func generatedText(m *Manifest, eng engine.Card) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d verified multi-turn dialogues between a simulated customer and a tool-using agent in the **%s** domain, "+
		"generated by synth %s on its %s. Every dialogue was executed against the domain's database and verified; "+
		"none was judged by a model's opinion.\n\n", m.Counts.SFTRows, m.Domain.Name, m.SynthVersion, eng.Name)
	if m.Stopped == StoppedBudget {
		fmt.Fprintf(&b, "**Partial release:** the LLM budget ran out after %d of the %v blueprints asked for; this release holds that prefix.\n\n",
			m.BlueprintsDone, m.Config["n"])
	}

	b.WriteString("## How it was generated\n\n")
	fmt.Fprintf(&b, "%s- seed: %d\n- config fingerprint: `%s`\n\n", provenance(m), m.Seed, Short(m.Fingerprint))
	b.WriteString("Full config (rerun it with `synth run --config` on a file holding these keys to reproduce this release byte for byte):\n\n```yaml\n")
	keys := slices.Sorted(maps.Keys(m.Config))
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %v\n", k, yamlValue(m.Config[k]))
	}
	b.WriteString("```\n\n")
	b.WriteString("Pipeline: blueprints (tasks whose ground truth was executed and whose targets are identifiable) → " + eng.Pipeline + "\n\n")

	b.WriteString("## Intensity controls\n\n")
	fmt.Fprintf(&b, "- **Write intensity** (`n_writes`): writes per task, requested range `%v`.\n", m.Config["writes"])
	fmt.Fprintf(&b, "- **Read intensity** (`evidence`): read calls needed before each write's arguments are identifiable, requested range `%v`.\n", m.Config["reads"])
	fmt.Fprintf(&b, "- **Tools per row** (`tools`): %s\n\n", toolsText(m.Config["tools"]))
	if m.Stats != nil {
		b.WriteString(histogram("Writes per task", m.Stats.Writes))
		b.WriteString(histogram("Reads needed per write", m.Stats.Evidence))
		b.WriteString(histogram("Behaviour profiles", m.Stats.Behaviors))
		b.WriteString(histogram("Intents", m.Stats.Intents))
		b.WriteString(histogramOver("Situations (share of tasks; a task may hold several)", m.Stats.Situations, m.Stats.Rows))
	}
	b.WriteString(unusedText(m.UnusedWrites))

	return b.String()
}

// unusedText lists the write tools no task uses, with why, so a reader
// knows which of the domain's writes the release does not cover.
func unusedText(unused map[string]string) string {
	if len(unused) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Write tools no task uses (%d)\n\nNo task's ground truth uses these writes; each row says why, and what would cover it.\n\n| tool | why |\n|---|---|\n", len(unused))
	cell := strings.NewReplacer("|", "\\|", "\n", " ")
	for _, name := range slices.Sorted(maps.Keys(unused)) {
		fmt.Fprintf(&b, "| `%s` | %s |\n", name, cell.Replace(unused[name]))
	}
	b.WriteString("\n")
	return b.String()
}

// toolsText says what a row's tools column holds under --tools.
func toolsText(v any) string {
	mode, _ := v.(string)
	c, err := engine.ParseTools(mode)
	switch {
	case mode == "" || err != nil || c.All():
		return "every tool of the domain, in every row."
	case c.Distractors() == 0:
		return "the tools the task's ground truth uses and the generic ones (transfer, calculator), in the domain's order; the agent was given exactly these (plus, in a row, any other tool of the domain it called)."
	}
	return fmt.Sprintf("the tools the task's ground truth uses, the generic ones (transfer, calculator) and %d others drawn per task as distractors, in the domain's order; "+
		"the agent was given exactly these (plus, in a row, any other tool of the domain it called). A large API's rows so hold a choice of tools a model is given in practice.", c.Distractors())
}

// provenance lists the synth version and the domain a release was made
// with, as the card's first lines of how it came to be.
func provenance(m *Manifest) string {
	return fmt.Sprintf("- synth version: %s\n- domain: %s %s (files hash `%s`, initial state `%s`)\n",
		m.SynthVersion, m.Domain.Name, m.Domain.Version, Short(m.Domain.Hash), Short(m.Domain.StateHash))
}

// outsideText says where a release synth verify --keep made came from.
func outsideText(m *Manifest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d multi-turn tool-use dialogues in the **%s** domain, made outside synth and kept by `synth verify --keep` (synth %s) because they passed "+
		"every check below. Every tool call was replayed on a fresh copy of the domain's database and its recorded result was equal to the replayed one; "+
		"the system message of each row is the domain's policy, and each tool result the exact text its call gives.\n\n", m.Counts.SFTRows, m.Domain.Name, m.SynthVersion)
	b.WriteString("## Where it came from\n\n")
	fmt.Fprintf(&b, "%s- seed of the database: %d\n\n", provenance(m), m.Seed)
	b.WriteString("| source file | sha256 | dialogues | passed | kept |\n|---|---|---|---|---|\n")
	for _, s := range m.Sources {
		fmt.Fprintf(&b, "| %s | `%s` | %d | %d | %d |\n", s.File, Short(s.SHA256), s.Dialogues, s.Passed, s.Kept)
	}
	b.WriteString("\nA passing dialogue is not kept when its ground-truth writes equal a held-out task's, or when it fails a check of synth's own rows " +
		"(its ground truth must replay without errors, its blueprint must be a complete record). Rerun `synth verify --domain DOMAIN --keep OUT FILE...` " +
		"on the same files to rebuild this release. Outside data carries no blueprint of synth's: each row's blueprint holds the given ground truth, " +
		"the first user message as its instruction, and no reads-needed evidence; every row is in the train split.\n\n")
	if m.Stats != nil {
		b.WriteString(histogram("Writes per task", m.Stats.Writes))
		b.WriteString(histogram("Intents", m.Stats.Intents))
		b.WriteString(histogramOver("Situations (share of tasks; a task may hold several)", m.Stats.Situations, m.Stats.Rows))
	}
	return b.String()
}

// cardMeta is the card's front matter, in the order the Hub shows it.
type cardMeta struct {
	License             string       `yaml:"license"`
	LicenseName         string       `yaml:"license_name,omitempty"`
	LicenseLink         string       `yaml:"license_link,omitempty"`
	PrettyName          string       `yaml:"pretty_name"`
	Language            []string     `yaml:"language"`
	AnnotationsCreators []string     `yaml:"annotations_creators"`
	LanguageCreators    []string     `yaml:"language_creators"`
	Tags                []string     `yaml:"tags"`
	TaskCategories      []string     `yaml:"task_categories"`
	SizeCategories      []string     `yaml:"size_categories"`
	Configs             []cardConfig `yaml:"configs"`
	DatasetInfo         []cardInfo   `yaml:"dataset_info"`
}

type cardConfig struct {
	ConfigName string         `yaml:"config_name"`
	Default    bool           `yaml:"default,omitempty"`
	DataFiles  []cardDataFile `yaml:"data_files"`
}

type cardDataFile struct {
	Split string `yaml:"split"`
	Path  string `yaml:"path"`
}

type cardInfo struct {
	ConfigName string        `yaml:"config_name"`
	Features   []cardFeature `yaml:"features"`
}

// cardFeature is one column in datasets' YAML form (Features._to_yaml_list):
// dtype for a value, list for a list; "list: json" is List(Json()).
type cardFeature struct {
	Name  string `yaml:"name"`
	Dtype string `yaml:"dtype,omitempty"`
	List  string `yaml:"list,omitempty"`
}

// LicenseOtherName and LicenseOtherLink complete the front matter when
// the license is "other", as the Hub asks: a name for the terms and where
// they are written (the card's License section).
const (
	LicenseOtherName = "synth-output-unlicensed"
	LicenseOtherLink = "README.md#license"
)

func cardFrontMatter(m *Manifest, files []FileEntry) string {
	present := map[string]map[string]bool{"sft": {}, "dpo": {}}
	for _, f := range files {
		if cfg, _, ok := strings.Cut(f.Path, "/"); ok && present[cfg] != nil && strings.HasSuffix(f.Path, ".parquet") {
			present[cfg][f.Split] = true
		}
	}
	license, _ := m.Config["license"].(string)
	license = cmp.Or(license, "other")
	meta := cardMeta{
		License:    license,
		PrettyName: fmt.Sprintf("synth %s tool-use dialogues", m.Domain.Name),
		Language:   []string{"en"},
		// Customers, agents and the data itself were all produced by
		// programs (and, with the LLM engines, models): nothing was
		// written or labelled by people.
		AnnotationsCreators: []string{"machine-generated"},
		LanguageCreators:    []string{"machine-generated"},
		Tags:                []string{"synthetic", "tool-use", "function-calling", "agents", "sft"},
		TaskCategories:      []string{"text-generation"},
	}
	if license == "other" {
		meta.LicenseName, meta.LicenseLink = LicenseOtherName, LicenseOtherLink
	}
	rows := m.Counts.SFTRows
	if m.DPO != nil {
		rows += m.DPO.Pairs
	}
	meta.SizeCategories = []string{sizeCategory(rows)}
	str := func(n string) cardFeature { return cardFeature{Name: n, Dtype: "string"} }
	i32 := func(n string) cardFeature { return cardFeature{Name: n, Dtype: "int32"} }
	jsons := func(n string) cardFeature { return cardFeature{Name: n, List: "json"} }
	infos := map[string][]cardFeature{
		"sft": {str("id"), str("blueprint_id"), str("domain"), jsons("messages"), jsons("tools"), i32("n_writes"), i32("n_reads"),
			{Name: "evidence", List: "int32"}, str("behavior"), str("engine"), str("kind"), {Name: "labels", Dtype: "json"}},
		"dpo": {str("id"), str("blueprint_id"), str("domain"), jsons("prompt"), jsons("chosen"), jsons("rejected"), jsons("tools"),
			str("failure"), i32("divergence_turn")},
	}
	for _, cfg := range []string{"sft", "dpo"} {
		if len(present[cfg]) == 0 {
			continue
		}
		if cfg == "dpo" {
			meta.Tags = append(meta.Tags, "dpo")
		}
		c := cardConfig{ConfigName: cfg, Default: cfg == "sft"}
		for _, s := range Splits {
			if present[cfg][s] {
				c.DataFiles = append(c.DataFiles, cardDataFile{Split: s, Path: cfg + "/" + s + "-*.parquet"})
			}
		}
		meta.Configs = append(meta.Configs, c)
		meta.DatasetInfo = append(meta.DatasetInfo, cardInfo{ConfigName: cfg, Features: infos[cfg]})
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	// "- item" at its key's indentation, as the Hub's own cards write it.
	enc.CompactSeqIndent()
	if err := enc.Encode(meta); err != nil {
		// Encoding plain strings, bools and slices cannot fail.
		return "---\n---\n\n"
	}
	enc.Close()
	return "---\n" + buf.String() + "---\n\n"
}

// licenseText is the card's License section, which license_link points
// to when the license is "other".
func licenseText(m *Manifest) string {
	license, _ := m.Config["license"].(string)
	if license == "" || license == "other" {
		return "## License\n\nNo license was chosen when this release was generated (`--license other`). The rows are synthetic: " +
			"check the terms of the domain and, for the LLM engines, of the models used, then set one with `synth run --license ID`.\n"
	}
	return "## License\n\n`" + strings.ReplaceAll(license, "`", "'") + "` (as given to `synth run --license`).\n"
}

func sizeCategory(n int) string {
	switch {
	case n < 1000:
		return "n<1K"
	case n < 10000:
		return "1K<n<10K"
	case n < 100000:
		return "10K<n<100K"
	case n < 1000000:
		return "100K<n<1M"
	}
	return "1M<n<10M"
}

// Short is the first 12 characters of a hash, for text.
func Short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func yamlValue(v any) string {
	switch x := v.(type) {
	case map[string]any:
		// Flow style: JSON is valid YAML, and sorted keys keep it stable.
		raw, _ := json.Marshal(x)
		return string(raw)
	case string:
		return fmt.Sprintf("%q", x)
	case nil:
		return "null"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = yamlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func histogram(title string, m map[string]int) string {
	return histogramOver(title, m, 0)
}

// histogramOver is histogram with shares of over (0: of the counts' sum).
func histogramOver(title string, m map[string]int, over int) string {
	if len(m) == 0 {
		return ""
	}
	total := over
	if total == 0 {
		for _, v := range m {
			total += v
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n\n| value | count | share |\n|---|---|---|\n", title)
	for _, k := range SortedCounts(m) {
		fmt.Fprintf(&b, "| %s | %d | %.1f%% |\n", k, m[k], 100*float64(m[k])/float64(total))
	}
	b.WriteString("\n")
	return b.String()
}

// creditStatsText sums the rows' labels for the card's statistics.
func creditStatsText(c *CreditStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Per-turn labels (`labels`): chain length (ground-truth actions per task) mean %.2f; label coverage V_d %.4f "+
		"(%d of %d chain steps; %d of %d rows fully covered). Action classes of the assistant turns: ",
		float64(c.ChainSteps)/float64(c.Rows), c.Coverage, c.CoveredSteps, c.ChainSteps, c.FullyCovered, c.Rows)
	total := 0
	for _, n := range c.Classes {
		total += n
	}
	for i, k := range SortedCounts(c.Classes) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.1f%%", k, 100*float64(c.Classes[k])/float64(total))
	}
	b.WriteString(". Gold Action Recall (turns whose class is the ground truth's at that point): ")
	for i, e := range slices.Sorted(maps.Keys(c.Gold)) {
		if i > 0 {
			b.WriteString("; ")
		}
		g := c.Gold[e]
		fmt.Fprintf(&b, "%s engine %.4f (%d of %d turns)", e, g.Recall, g.Matched, g.Turns)
	}
	b.WriteString(".\n\n")
	return b.String()
}

// labelsText documents the labels column and the rewards it holds.
const labelsText = "## Per-turn labels and rewards (`labels`)\n\n" +
	"Each sft row's `labels`, and the `labels` key of each record in `rejected/rejected-*.jsonl.gz`, is the dialogue labelled turn by turn " +
	"against its blueprint's ground truth (the blueprint's `actions`: the chain). Message indices count from 0 over `messages`, the system prompt included. " +
	"`synth validate` recomputes every row's labels and fails on a difference.\n\n" +
	"| field | meaning |\n|---|---|\n" +
	"| `chain_length` | C, the number of ground-truth actions (reads and writes) |\n" +
	"| `progress` | k, the chain steps done by the end (the last turn's `progress`) |\n" +
	"| `coverage` | V_d = k/C, the share of the chain steps the labels tie to a turn (1 when C is 0); 1 on every sft row |\n" +
	"| `pivotal` | message index of the pivotal mistake: in a failed dialogue its first off-chain or wrong turn (a call no ground-truth action matches, a write without a confirmation since the last write, a refusal or transfer the task does not call for), else the turn the failed check names, else the agent's last; in a recovery row (`kind` `recovery`) the proposal the customer turned down; -1 otherwise |\n" +
	"| `correcting` | in a recovery row, message index of the agent's turn after the customer's correction; -1 otherwise |\n" +
	"| `mistake_from` | in a recovery row, message index of the first assistant turn of the mistake: the first that is not the oracle's dialogue (the flawed agent's near-miss pick, announced turns before the proposal, or the proposal itself), at or before `pivotal`; -1 otherwise |\n" +
	"| `outcome` | the terminal reward: 1 verified, 0 failed (null for a dialogue not yet verified) |\n" +
	"| `steps[i]` | ground-truth action i: `message`, the assistant turn that did it (-1: not done), and `by`: `call` (a call with its tool and arguments), `write` (a read the dialogue did without, done by the matched write that needs it, whose argument provenance shows where its values came from instead), `outcome` (a step a verified dialogue reached another way: a read no write needs, a write whose state another call made, as the state check found; done at the agent's last turn) |\n" +
	"| `turns[j].message` | index of the j-th assistant message |\n" +
	"| `turns[j].class` | its action class: `read`, `write`, `transfer` or `generic` for tool calls (by the tool's kind; a message with a write is `write`), `ask`, `confirm`, `inform`, `refuse`, `transfer` for words, read by the simulated customer's own classifier |\n" +
	"| `turns[j].gold` | the class the ground truth calls for at that point: the next undone chain step's call, `ask` while a value that call needs has not been said (by the customer or a tool result), `confirm` before a write, `refuse` for a forbidden request owed before anything of the next request, with the chain done a refusal or transfer owed, else `inform`; the turn's own class where the ground truth admits it too: re-reading what the next write needs, `ask` for a piece of the request the customer has not stated, `confirm` or `write` once the write's values are said and only reads it can do without come first, `inform` right after a write, a lookup of values said, a refusal held or made with a plan B |\n" +
	"| `turns[j].on_chain` | every call matches a ground-truth action (same tool, same arguments; in a verified dialogue a write matches its tool's action by the state check), or the words are a step the ground truth needs: the confirmation followed by the chain write, the first statement of a required output, the refusal of a forbidden request, the announced transfer |\n" +
	"| `turns[j].serves` | index in `actions` of the write the turn serves: the write itself, a read it needs, its confirmation; -1 for none |\n" +
	"| `turns[j].progress` | the dense reward: chain steps done up to and including this turn (distinct ground-truth actions matched, plus the reads a matched write needs) |\n" +
	"| `turns[j].calls[k]` | `tool`, `kind`, `action` (the matched ground-truth action, -1 off-chain or for a write whose call failed: its retry does the step) and, for a write, `args`: each scalar argument's `path` in the arguments (`$.item_ids[0]`), `source` (`tool`, `user` or `none`), `message` where the value first appeared (-1 for none) and `at`, its JSON path in that tool result |\n\n" +
	"Rewards a trainer can use as they are: the sparse terminal reward `outcome`; the dense per-turn reward `progress` (or its increment, the steps a turn completed), " +
	"normalised by `chain_length`; the action-class target `gold` (Gold Action Recall is the share of turns whose `class` equals `gold`); " +
	"`pivotal` and `correcting` to focus distillation on the mistake and the recovery. In DuckDB: " +
	"`SELECT labels->>'$.coverage', json_extract(labels, '$.turns[*].class') FROM 'sft/*.parquet'`.\n\n"

const loading = "## Loading\n\n" +
	"With Hugging Face `datasets` (≥ 4.7; from this folder, or from the Hub once pushed) the rows are ready for TRL as they are, " +
	"no `map` needed:\n\n" +
	"```python\nfrom datasets import load_dataset\nfrom trl import SFTConfig, SFTTrainer\n\n" +
	"ds = load_dataset(\"parquet\", data_files={\"train\": \"sft/train-*.parquet\", \"validation\": \"sft/validation-*.parquet\"})\n" +
	"trainer = SFTTrainer(model=\"Qwen/Qwen3-0.6B\", train_dataset=ds[\"train\"], args=SFTConfig(output_dir=\"out\"))\n```\n\n" +
	"`messages` and `tools` are stored as `Json()` columns: each message and each tool is a JSON object in a Parquet JSON column " +
	"(Arrow's `arrow.json` extension), which `datasets` hands over as the object itself. A message has only the keys it has, and " +
	"a call's `arguments` is an object, so the row is exactly the conversation a server passes the chat template at inference; " +
	"every template TRL ships renders it as it renders that conversation (synth's CI checks this on every row). Why this storage: " +
	"`datasets` turns an `arrow.json` column into `Json()` (features.py, generate_from_arrow_type) and pyarrow restores that type " +
	"from the stored Arrow schema (the `huggingface` schema metadata carries the same features); a struct column would come back with " +
	"every key on every message, `None` where unset, which TRL no longer strips and templates such as Llama 3.1's and Mistral's reject.\n\n" +
	"With DuckDB (a Parquet JSON column reads as `JSON`):\n\n" +
	"```sql\nSELECT m->>'role' AS role, m->>'content' AS content\nFROM (SELECT unnest(messages) AS m FROM 'sft/*.parquet') LIMIT 10;\n\n" +
	"-- every tool call with its arguments\nSELECT c->>'$.function.name' AS tool, c->'$.function.arguments' AS arguments\n" +
	"FROM (SELECT unnest(from_json(m->'tool_calls', '[\"json\"]')) AS c\n      FROM (SELECT unnest(messages) AS m FROM 'sft/*.parquet')\n" +
	"      WHERE m->'tool_calls' IS NOT NULL);\n```\n\n" +
	"With Polars (the JSON values read as strings; set `POLARS_UNKNOWN_EXTENSION_TYPE_BEHAVIOR=load_as_storage` to silence its " +
	"warning about the extension type):\n\n" +
	"```python\nimport polars as pl\n\ndf = pl.read_parquet(\"sft/*.parquet\")\n" +
	"msgs = df.select(\"id\", pl.col(\"messages\")).explode(\"messages\").with_columns(\n" +
	"    role=pl.col(\"messages\").str.json_path_match(\"$.role\"), content=pl.col(\"messages\").str.json_path_match(\"$.content\"))\n```\n\n" +
	"With pyarrow:\n\n```python\nimport json, pyarrow.parquet as pq\n\nt = pq.read_table(\"sft/\")\n" +
	"first = [json.loads(m) for m in t.column(\"messages\")[0].as_py()]\n```\n\n" +
	"For trainers that do not read this layout, `synth export DIR --format openai|sharegpt|jsonl -o OUT` writes OpenAI fine-tuning JSONL, " +
	"LLaMA-Factory / Axolotl ShareGPT, or these rows as JSON lines.\n\n"

// decisionText says where pairs are cut and how their labels are held.
func decisionText(m *Manifest) string {
	if m.Config["dpo_mode"] == dpo.PairSession {
		return "Every label is checked against the rejected side itself: it makes the labelled mistake (runs the wrong write or tool, " +
			"calls before authenticating, ends without the write, ...). Session pairs hold whole conversations, so their sides span customer " +
			"turns: under chat templates that render reasoning only after the last user message (Qwen3.5, Qwen3.6) the prompt is then not a " +
			"prefix of prompt + completion.\n\n"
	}
	return "Chosen and rejected each end before the next customer turn: the pair is cut where the agent decides, so prompt + completion " +
		"keeps the prompt a prefix under every chat template that allows it. Every label is checked against the rows themselves: the rejected " +
		"side makes the labelled mistake (runs the wrong write or tool, calls before authenticating, ends without the write, ...) or, where it " +
		"stops at a proposal, its words show it (another order named, a figure or reminder left out, an id no tool returned). Both sides end " +
		"where the mistake is shown, so that what follows it (a tool's answer, the agent's words on it) does not make them differ in length.\n\n"
}

// openAIPairsText says which pairs OpenAI's preference format takes.
func openAIPairsText(d *engine.DPOStats) string {
	if d.AssistantOnly == d.Pairs {
		return fmt.Sprintf("`synth export --format openai` writes all %d pairs as preference rows: every completion is assistant messages only, "+
			"as `preferred_output` and `non_preferred_output` require.\n\n", d.Pairs)
	}
	return fmt.Sprintf("`synth export --format openai` writes the %d pairs whose completions are assistant messages only, as OpenAI's "+
		"`preferred_output` and `non_preferred_output` require, and leaves out the other %d, whose completions hold tool results; "+
		"they are in the Parquet files and the jsonl and sharegpt exports (`--dpo-tools cut` makes every pair fit).\n\n", d.AssistantOnly, d.Pairs-d.AssistantOnly)
}

// llmSection reports what the LLM engines did and used.
func llmSection(l *engine.LLMStats) string {
	var b strings.Builder
	b.WriteString("## LLM\n\n")
	roles := slices.Sorted(maps.Keys(l.Models))
	for _, r := range roles {
		fmt.Fprintf(&b, "- %s: `%s`\n", r, l.Models[r])
	}
	fmt.Fprintf(&b, "\nTokens used (responses from the network or the cache alike): %d prompt, %d completion over %d responses; "+
		"estimated cost at the config's prices: $%.4f.\n\n", l.Total.PromptTokens, l.Total.CompletionTokens, l.Total.Responses, l.Total.CostUSD)
	b.WriteString(histogram("Trial that first verified", l.TrialsToPass))
	if len(l.Failures) > 0 {
		b.WriteString(histogram("Failed dialogues by label", l.Failures))
	}
	if r := l.Review; r != nil {
		fmt.Fprintf(&b, "Instructions written by the LLM: %d; accepted by the judges' majority at once: %d, after rewriting: %d; "+
			"never accepted (template instruction kept): %d.\n\n", r.Written, r.AcceptedFirst, r.AcceptedAfterRewrite, r.KeptTemplate)
	}
	if r := l.Refine; r != nil {
		fmt.Fprintf(&b, "Lines offered for rewriting: %d; rewrites kept: %d; originals kept (every rewrite lost an entity): %d; "+
			"dialogues that failed re-verification and were kept as skeletons: %d.\n\n", r.Lines, r.Kept, r.Rejected, r.Fallbacks)
	}
	return b.String()
}
