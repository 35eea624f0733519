package model

import "testing"

func TestNamedIn(t *testing.T) {
	cases := []struct {
		text, value string
		want        bool
	}{
		{"a stage instance with channel_id 6 already exists", "6", true},
		{"a stage instance with channel_id 36 already exists", "6", false},
		{"a user with name app-54 already exists", "app-54", true},
		{"a user with name app-54 already exists", "app-5", false},
		{"no label named bug.", "bug", true},
		{"debugging failed", "bug", false},
		{"anything", "", false},
	}
	for _, c := range cases {
		if got := NamedIn(c.text, c.value); got != c.want {
			t.Errorf("NamedIn(%q, %q) = %v, want %v", c.text, c.value, got, c.want)
		}
	}
}
