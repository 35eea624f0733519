package llm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func validConfig() Config {
	return Config{BaseURL: "http://127.0.0.1:8089/v1", Model: "m"}.WithDefaults()
}

func TestConfigCheck(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want []string // substrings of the error; none means valid
	}{
		{"defaults with a model and a URL", func(*Config) {}, nil},
		{"per-role models without llm.model", func(c *Config) {
			c.Model = ""
			c.Roles = map[Role]RoleConfig{Agent: {Model: "a"}, User: {Model: "u"}, Judge: {Model: "j"}, Writer: {Model: "w", Temperature: f32(0)}}
		}, nil},
		{"missing base URL", func(c *Config) { c.BaseURL = "" }, []string{"llm.base_url: required"}},
		{"base URL without a scheme", func(c *Config) { c.BaseURL = "localhost:8089/v1" }, []string{"llm.base_url", "not an http(s) URL"}},
		{"credentials in the URL", func(c *Config) { c.BaseURL = "https://u:p@example.com/v1" }, []string{"llm.base_url: must not carry credentials"}},
		{"a missing role model", func(c *Config) {
			c.Model = ""
			c.Roles = map[Role]RoleConfig{Agent: {Model: "a"}, User: {Model: "u"}, Judge: {Model: "j"}}
		}, []string{"llm.roles.writer.model: required"}},
		{"no model at all", func(c *Config) { c.Model, c.Roles = "", nil }, []string{"llm.roles.agent.model: required", "llm.roles.user.model", "llm.roles.judge.model", "llm.roles.writer.model"}},
		{"unknown role", func(c *Config) { c.Roles["critic"] = RoleConfig{Model: "x"} }, []string{"llm.roles.critic: unknown role"}},
		{"sampling out of range", func(c *Config) {
			c.Roles[Agent] = RoleConfig{Model: "a", Temperature: f32(2.5), TopP: f32(-0.1), MaxTokens: -1}
		}, []string{"llm.roles.agent.temperature", "llm.roles.agent.top_p", "llm.roles.agent.max_tokens"}},
		{"bad key variable", func(c *Config) { c.APIKeyEnv = "sk-live-123" }, []string{"llm.api_key_env", "not an environment variable name"}},
		{"bad timeout", func(c *Config) { c.Timeout = "soon" }, []string{"llm.timeout"}},
		{"negative timeout", func(c *Config) { c.Timeout = "-1s" }, []string{"llm.timeout"}},
		{"bad limits", func(c *Config) { c.MaxConcurrency, c.RPM, c.TPM, c.MaxRetries = -1, -1, -1, -2 }, []string{"llm.max_concurrency", "llm.rpm", "llm.tpm", "llm.max_retries"}},
		{"bad header", func(c *Config) { c.Headers = map[string]string{"X Bad": "v", "X-Env": "${unclosed"} }, []string{`llm.headers: "X Bad"`, "llm.headers.X-Env: unclosed"}},
		{"negative price", func(c *Config) { c.Prices = map[string]Price{"m": {Input: -1}} }, []string{"llm.prices.m"}},
		{"a cost budget needs prices", func(c *Config) { c.MaxCost = 5 }, []string{`llm.prices: no price for model "m"`}},
		{"a cost budget with prices", func(c *Config) { c.MaxCost = 5; c.Prices = map[string]Price{"m": {Input: 1, Output: 2}} }, nil},
		{"negative budgets", func(c *Config) { c.MaxCost, c.MaxTokens = -1, -1 }, []string{"llm.max_cost", "llm.max_tokens"}},
		{"no key and no retries are fine", func(c *Config) { c.APIKeyEnv, c.MaxRetries = NoKey, -1 }, nil},
		{"a server and a reasoning field", func(c *Config) { c.Server, c.ReasoningField = ServerVLLM, FieldReasoningContent }, nil},
		{"unknown server and field", func(c *Config) { c.Server, c.ReasoningField = "tgi", "thinking" }, []string{`llm.server: "tgi"`, `llm.reasoning_field: "thinking"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validConfig()
			c.Roles = map[Role]RoleConfig{}
			for k, v := range validConfig().Roles {
				c.Roles[k] = v
			}
			tc.edit(&c)
			err := c.WithDefaults().Check()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	in := Config{Model: "m", Roles: map[Role]RoleConfig{Judge: {Model: "big", Temperature: f32(0)}}}
	c := in.WithDefaults()
	if c.APIKeyEnv != DefaultAPIKeyEnv || c.Timeout != DefaultTimeout || c.MaxConcurrency != DefaultMaxConcurrency || c.MaxRetries != DefaultMaxRetries {
		t.Errorf("defaults not filled: %+v", c)
	}
	if c.Roles[Agent].Model != "m" || c.Roles[Judge].Model != "big" || *c.Roles[Judge].Temperature != 0 {
		t.Errorf("roles %+v", c.Roles)
	}
	if len(in.Roles) != 1 {
		t.Errorf("WithDefaults wrote the caller's map: %+v", in.Roles)
	}
	again := c.WithDefaults()
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(again)
	if !bytes.Equal(a, b) {
		t.Errorf("WithDefaults is not idempotent:\n%s\n%s", a, b)
	}
}

func TestConfigJSONRoundTrip(t *testing.T) {
	// The shape a YAML config takes after the pipeline turns it into JSON.
	raw := `{"base_url":"http://h:1/v1","api_key_env":"MY_KEY","headers":{"X-Org":"${ORG}"},"timeout":"30s",
		"roles":{"agent":{"model":"a","temperature":0,"seed":3},"user":{"model":"u","top_p":0.9,"max_tokens":200},
		"judge":{"model":"j"},"writer":{"model":"w"}},"max_concurrency":8,"rpm":600,"tpm":100000,"max_retries":2,
		"cache":"off","prices":{"a":{"input":1,"output":2},"u":{"input":0,"output":0},"j":{"input":3,"output":15},"w":{"input":0.5,"output":1}},"max_cost":1.5,"max_tokens":1000000}`
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	if err := c.WithDefaults().Check(); err != nil {
		t.Fatal(err)
	}
	if c.Roles[Agent].Temperature == nil || *c.Roles[Agent].Temperature != 0 || *c.Roles[Agent].Seed != 3 || c.Roles[User].MaxTokens != 200 {
		t.Fatalf("roles decoded wrong: %+v", c.Roles)
	}
	out, _ := json.Marshal(c)
	var back Config
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	out2, _ := json.Marshal(back)
	if !bytes.Equal(out, out2) {
		t.Fatalf("round trip changed the config:\n%s\n%s", out, out2)
	}
	if !bytes.Contains(out, []byte(`"temperature":0`)) {
		t.Fatalf("a temperature of 0 was lost in %s", out)
	}
}

// The field an assistant turn's reasoning goes back in is the one each
// server reads on input; reasoning_field overrides it (vLLM before 0.20).
func TestReasoningFieldOf(t *testing.T) {
	for _, tc := range []struct{ server, override, want string }{
		{"", "", FieldReasoningContent},
		{ServerVLLM, "", FieldReasoning},
		{ServerOllama, "", FieldReasoning},
		{ServerSGLang, "", FieldReasoningContent},
		{ServerLlamaCPP, "", FieldReasoningContent},
		{ServerOpenAI, "", FieldNone},
		{ServerVLLM, FieldReasoningContent, FieldReasoningContent},
	} {
		c := Config{Server: tc.server, ReasoningField: tc.override}
		if got := c.ReasoningFieldOf(); got != tc.want {
			t.Errorf("server %q, reasoning_field %q: %s, want %s", tc.server, tc.override, got, tc.want)
		}
	}
}
