package usersim

import (
	"fmt"
	"strings"
)

// Behaviour profiles.
const (
	Upfront     = "upfront"
	Minimal     = "minimal"
	Piecemeal   = "piecemeal"
	Verbose     = "verbose"
	Impatient   = "impatient"
	Confused    = "confused"
	ChangesMind = "changes_mind"
	Typos       = "typos"
)

// Profiles lists the behaviour profiles in their canonical order.
func Profiles() []string {
	return []string{Upfront, Minimal, Piecemeal, Verbose, Impatient, Confused, ChangesMind, Typos}
}

type profile struct {
	identityFirst bool // give identity in the first message
	revealAll     bool // give every piece with the request
	terse         bool // 1–2 word answers
	verbose       bool
	impatient     bool
	typos         bool
	confused      bool
	changes       bool
	partial       bool // gives half of a two-part identity first (NCUser's incomplete turns)
}

func profileOf(name string) (profile, error) {
	switch name {
	case Upfront:
		return profile{identityFirst: true, revealAll: true}, nil
	case Minimal:
		return profile{terse: true}, nil
	case Piecemeal:
		return profile{partial: true}, nil
	case Verbose:
		return profile{identityFirst: true, revealAll: true, verbose: true}, nil
	case Impatient:
		return profile{identityFirst: true, revealAll: true, impatient: true}, nil
	case Confused:
		return profile{confused: true}, nil
	case ChangesMind:
		return profile{identityFirst: true, revealAll: true, changes: true}, nil
	case Typos:
		return profile{typos: true}, nil
	}
	return profile{}, fmt.Errorf("unknown behaviour profile %q (known: %s)", name, strings.Join(Profiles(), ", "))
}
