package usersim

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/record"
)

// Stop tokens of the tau2 protocol.
const (
	TokenStop       = "###STOP###"
	TokenTransfer   = "###TRANSFER###"
	TokenOutOfScope = "###OUT-OF-SCOPE###"
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
}

func profileOf(name string) (profile, error) {
	switch name {
	case Upfront:
		return profile{identityFirst: true, revealAll: true}, nil
	case Minimal:
		return profile{terse: true}, nil
	case Piecemeal:
		return profile{}, nil
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

// Pieces lists what a goal of an intent needs said before the agent can
// act: the agent asks for each missing piece, the user reveals them.
func Pieces(g record.Goal) []string {
	var ps []string
	if g.Target.Collection != "users" && g.Target.Label != "" {
		ps = append(ps, "target")
	}
	if len(g.Items) > 0 {
		ps = append(ps, "items")
	}
	if len(g.New) > 0 {
		ps = append(ps, "new")
	}
	for _, s := range []string{"reason", "payment", "address1", "topic"} {
		if _, ok := g.Slots[s]; ok {
			if s == "address1" {
				s = "address"
			}
			if s == "reason" && g.Kind != record.GoalWrite {
				continue
			}
			ps = append(ps, s)
		}
	}
	return ps
}

// Act is the meaning of a user turn. The embedded agent reads acts; the
// text says the same thing in words.
type Act struct {
	Type     string // identify, request, provide, confirm, revise, done
	Goal     int
	Intent   string
	Target   *record.Selector
	Items    []record.Selector
	New      []record.Selector
	Slots    map[string]string
	Identity map[string]string
}

// Ask is what the agent's last turn asked of the user.
type Ask struct {
	Kind    string // help, identify, identify_again, piece, confirm, anything_else, closing, transferred
	Goal    int
	Piece   string
	Done    []int // goals the agent has finished
	Refused bool  // the agent just refused a request
}

// Turn is one user message.
type Turn struct {
	Text string
	Acts []Act
	Stop string // a stop token when the user ends the conversation
}

// User is one simulated customer.
type User struct {
	speaker
	name    string
	current int
}

// New creates the user of a blueprint.
func New(bp *record.Blueprint, rng *rand.Rand) (*User, error) {
	s, err := newSpeaker(bp, rng)
	if err != nil {
		return nil, err
	}
	return &User{speaker: s, name: bp.Behavior}, nil
}

func (u *User) identity(wrong bool) (map[string]string, map[string]string) {
	k := u.bp.Persona.Known
	slots := map[string]string{"name": k["name"]}
	first, last, _ := strings.Cut(k["name"], " ")
	if k["email"] != "" {
		e := k["email"]
		if wrong {
			// Swap two letters of the local part: a believable slip.
			at := strings.IndexByte(e, '@')
			if at > 2 {
				b := []byte(e)
				b[0], b[1] = b[1], b[0]
				if b[0] == b[1] {
					b[0] = 'x'
				}
				e = string(b)
			}
		}
		slots["email"] = e
		slots["identity"] = k["email"]
		return map[string]string{"email": e}, slots
	}
	zip := k["zip"]
	if wrong {
		b := []byte(zip)
		b[len(b)-1] = '0' + (b[len(b)-1]-'0'+3)%10
		zip = string(b)
	}
	slots["zip"] = zip
	slots["identity"] = k["name"] + ", zip " + k["zip"]
	return map[string]string{"first_name": first, "last_name": last, "zip": zip}, slots
}

// goalSlots are the words a goal's templates draw on. When the user is
// about to change their mind, revisable slots carry the first value.
func (u *User) goalSlots(i int) map[string]string {
	g := u.bp.Goals[i]
	s := map[string]string{
		"target": g.Target.Label,
		"items":  blueprints.Labels(g.Items),
		"new":    blueprints.Labels(g.New),
	}
	for k, v := range g.Slots {
		s[k] = v
	}
	if u.prof.changes && !u.revised[i] {
		for k, v := range g.Revised {
			s[k] = v
		}
	}
	if _, ok := g.Slots["address1"]; ok {
		s["address"] = blueprints.Address(g.Slots)
	}
	if p := g.Slots["product"]; p != "" {
		s["product"] = strings.ToLower(p)
	}
	return s
}

func (u *User) pieceAct(i int, piece string, act *Act) {
	g := u.bp.Goals[i]
	slots := u.goalSlots(i)
	switch piece {
	case "target":
		t := g.Target
		act.Target = &t
		if p := g.Slots["product"]; p != "" {
			// A variant is named within its product.
			act.Slots = map[string]string{"product": p}
		}
	case "items":
		act.Items = g.Items
	case "new":
		act.New = g.New
	case "address":
		if act.Slots == nil {
			act.Slots = map[string]string{}
		}
		for _, k := range []string{"address1", "address2", "city", "state", "country", "zip"} {
			act.Slots[k] = g.Slots[k]
		}
	default:
		if act.Slots == nil {
			act.Slots = map[string]string{}
		}
		act.Slots[piece] = slots[piece]
	}
}

// Start is the user's opening message.
func (u *User) Start() Turn { return u.start(u) }

// openingIdentity volunteers the customer's identity in a statement: the
// answer-style forms ("Sure, it's ...") need a question.
func (u *User) openingIdentity() (Turn, bool) {
	id, slots := u.identity(false)
	tmpls := identifyEmail
	if id["email"] == "" {
		tmpls = identifyNameZip
	}
	return Turn{Text: u.say([]string{tmpls[0], tmpls[3]}, slots), Acts: []Act{{Type: "identify", Identity: id}}}, true
}

// request states goal i: with every piece for revealing profiles, with
// just the intent otherwise.
func (u *User) request(i int) (string, Act) {
	u.requested[i] = true
	u.current = i
	g := u.bp.Goals[i]
	act := Act{Type: "request", Goal: i, Intent: g.Intent}
	slots := u.goalSlots(i)
	reveal := u.prof.revealAll
	if !reveal {
		// Without the details the user names the thing vaguely.
		slots["target"] = u.vagueTarget(g)
	}
	if reveal || g.Kind == record.GoalRefuse || g.Kind == record.GoalTransfer || g.Kind == record.GoalInform {
		// Questions and forbidden requests are stated whole: there is
		// nothing to collect piece by piece.
		slots = u.goalSlots(i)
		for _, p := range Pieces(g) {
			u.pieceAct(i, p, &act)
		}
	}
	tmpls := requests[g.Intent]
	if len(tmpls) == 0 {
		tmpls = []string{"I need help with <target>."}
	}
	text := u.say(tmpls, slots)
	if reveal && g.Kind == record.GoalWrite {
		var extra []string
		for _, p := range Pieces(g) {
			if p == "target" {
				continue
			}
			extra = append(extra, u.say(pieces[p], slots))
		}
		text = joinSentences(append([]string{text}, extra...))
	}
	return text, act
}

func (u *User) vagueTarget(g record.Goal) string {
	if g.Target.Collection == "users" {
		return g.Target.Label
	}
	return expand(u.rng, "{an order|one of my orders|an order of mine|my order|a recent order}")
}

// Respond answers the agent's last turn.
func (u *User) Respond(ask Ask) Turn { return u.respond(u, ask) }

func (u *User) answerIdentity(ask Ask, wrong bool) Turn {
	id, slots := u.identity(wrong)
	tmpls := identifyEmail
	if id["email"] == "" {
		tmpls = identifyNameZip
	}
	switch {
	case ask.Kind == "identify_again":
		tmpls = identifyRetry
	case u.prof.terse:
		tmpls = tmpls[2:3]
	}
	return Turn{Text: u.say(tmpls, slots), Acts: []Act{{Type: "identify", Identity: id}}}
}

func (u *User) pieceText(i int, piece string) string {
	tmpls := pieces[piece]
	if u.prof.terse {
		tmpls = tmpls[1:2]
	}
	return u.say(tmpls, u.goalSlots(i))
}
