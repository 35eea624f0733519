package model

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"
)

// A value the customer invents for a field fits the field: a web
// address for a webhook, a file name for a file, a short phrase for an
// identity; a chat line only where free text goes (review 2, N4).
func TestInventedTextFitsTheField(t *testing.T) {
	url := regexp.MustCompile(`^https://example\.com/[a-z/]+$`)
	for _, tc := range []struct {
		name string
		fits *regexp.Regexp
	}{
		{"WebhookUrl", url},
		{"callback_uri", url},
		{"StatusCallback", url},
		{"file", regexp.MustCompile(`^[a-z]+-[a-z]+\.png$`)},
		{"sound", regexp.MustCompile(`^[a-z]+-[a-z]+\.mp3$`)},
		{"file_name", regexp.MustCompile(`^[a-z]+-[a-z]+\.png$`)},
		{"Identity", regexp.MustCompile(`^[a-z]+-[a-z]+$`)},
		{"Channel", regexp.MustCompile(`^[a-z]+-[a-z]+$`)},
		{"AuthPayload", regexp.MustCompile(`^[a-z]+-[a-z]+$`)},
		{"security_group", regexp.MustCompile(`^[a-z]+-[a-z]+$`)},
		{"description", nil},
	} {
		vals := InventedText(rand.New(rand.NewPCG(7, 7)), tc.name)
		if len(vals) == 0 {
			t.Fatalf("%s: no values", tc.name)
		}
		for _, v := range vals {
			chat := slices.Contains(notes, v)
			if tc.fits == nil {
				if !chat {
					t.Errorf("%s: %q, want a line of free text", tc.name, v)
				}
				continue
			}
			if parts := regexp.MustCompile(`^([a-z]+)-([a-z]+)`).FindStringSubmatch(v); parts != nil && parts[1] == parts[2] {
				t.Errorf("%s: %q repeats its noun", tc.name, v)
			}
			if chat || !tc.fits.MatchString(v) {
				t.Errorf("%s: %q does not fit the field (want %s)", tc.name, v, tc.fits)
			}
		}
	}
}
