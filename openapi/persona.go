package openapi

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/synth-data/synth/model"
)

// Roles of the people who talk to an imported API's agent.
const (
	roleCustomer  = "customer"
	roleEmployee  = "employee"
	roleOperator  = "operator"
	roleDeveloper = "developer"
)

// persona is who talks to the agent. An API with customer accounts has
// customers; most others are used by the people who run a business
// (employees), run systems (operators) or build on a platform
// (developers), and a museum's staff, not its visitors, delete its
// special events.
type persona struct {
	Role string
	Org  string // who the API belongs to: "DigitalOcean"
	// Who says who they are after "You are NAME, ".
	Who string
	// Call is how the policy names them: "customer", "user".
	Call string
}

// roleWords are words of collection nouns, paths and the API's
// description that say who uses an API.
var roleWords = map[string][]string{
	roleDeveloper: strings.Fields(`api apis app apps application applications key keys token tokens webhook webhooks deployment
		deployments build builds repository repositories repo registry registries function functions cluster clusters
		droplet droplets kubernetes container containers image images volume volumes snapshot snapshots database
		databases bucket buckets domain domains dns certificate certificates firewall firewalls vpc vpcs balancer
		balancers region regions bot bots guild guilds channel channels command commands integration integrations
		sdk oauth verification verifications otp sms model models inference endpoint endpoints environment
		environments secret secrets workspace workspaces project projects emoji emojis sticker stickers interaction
		interactions factor factors challenge challenges service services cdn`),
	roleOperator: strings.Fields(`server servers host hosts node nodes device devices fleet monitor monitors monitoring alert alerts
		incident incidents metric metrics log logs backup backups job jobs queue queues tenant tenants admin
		moderation ban bans audit audits policy policies group groups permission permissions cron schedule schedules
		pipeline pipelines runner runners agent_pool sensor sensors`),
	roleEmployee: strings.Fields(`invoice invoices order orders customer customers ticket tickets booking bookings reservation
		reservations event events exhibit exhibits exhibition museum gallery product products inventory shipment
		shipments employee employees payroll lead leads deal deals opportunity opportunities contact contacts article
		articles post posts page pages course courses student students patient patients appointment appointments store
		stores menu menus hours payment payments refund refunds supplier suppliers vendor vendors quote quotes
		contract contracts expense expenses account accounts ledger item items category categories venue venues
		room rooms guest guests member members donation donations campaign campaigns listing listings`),
}

var orgNoiseRE = regexp.MustCompile(`(?i)\b(api|apis|rest|http|https|openapi|swagger|specification|spec|service|server|public|v?\d+(\.\d+)*)\b|\([^)]*\)`)

// orgName is who an API belongs to, from its title: "DigitalOcean API"
// → "DigitalOcean", "Discord HTTP API (Preview)" → "Discord".
func orgName(title string) string {
	s := orgNoiseRE.ReplaceAllString(title, " ")
	s = strings.Trim(strings.Join(strings.Fields(s), " "), " -–:,")
	if s == "" {
		return oneLine(title)
	}
	return s
}

// choosePersona decides who talks to the agent: customers when the pack
// has a users collection, else the role whose words the API uses most
// (collection nouns count double), employees when nothing tells.
func choosePersona(title, desc string, colls []*collection, hasUsers bool) persona {
	org := orgName(title)
	if hasUsers {
		return persona{Role: roleCustomer, Org: org, Call: "customer", Who: "a customer of " + org}
	}
	score := map[string]int{}
	count := func(text string, weight int) {
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
		}) {
			for role, words := range roleWords {
				if slices.Contains(words, w) {
					score[role] += weight
				}
			}
		}
	}
	count(title+" "+trimText(desc, 2000), 1)
	for _, c := range colls {
		count(strings.ReplaceAll(c.Noun, "_", " ")+" "+strings.ReplaceAll(c.Name, "_", " "), 2)
	}
	role := roleEmployee
	for _, r := range []string{roleDeveloper, roleOperator} {
		if score[r] > score[role] {
			role = r
		}
	}
	p := persona{Role: role, Org: org, Call: "user"}
	records := recordWords(colls, 3)
	switch role {
	case roleDeveloper:
		p.Who = fmt.Sprintf("a developer who manages their own %s resources (%s) through an assistant", org, records)
	case roleOperator:
		p.Who = fmt.Sprintf("an operator who runs and administers %s (%s) with an assistant", org, records)
	default:
		p.Who = fmt.Sprintf("a member of staff at %s who keeps its %s up to date with an assistant", org, records)
	}
	return p
}

// recordWords names the first n kinds of records, in the plural.
func recordWords(colls []*collection, n int) string {
	var names []string
	for _, c := range colls {
		w := strings.ReplaceAll(pluralWord(snake(c.Noun)), "_", " ")
		if !slices.Contains(names, w) {
			names = append(names, w)
		}
	}
	if len(names) > n {
		names = names[:n]
	}
	if len(names) == 0 {
		return "records"
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// writePhrase is how the person asks for a mapped write whose operation
// has no summary to take words from: "{create|add} a new key".
func writePhrase(o *op) string {
	if o.Summary != "" || o.Handler.Coll == nil {
		return ""
	}
	noun := strings.ReplaceAll(o.Handler.Coll.Noun, "_", " ")
	switch o.Handler.Kind {
	case hCreate:
		if len(o.Handler.Scope) > 0 && o.Handler.Coll.Parent != nil {
			return "{add|create} " + model.A(noun) + " for {target}"
		}
		return "{create|add|set up} a new " + noun
	case hUpdate:
		if o.Handler.Adds != nil && o.Handler.Coll.Parent != nil {
			return "{add} " + model.A(noun) + " to {target}"
		}
		if o.Handler.Stamp != "" {
			// A sync says what it does in its own verb (sync_guild_template).
			verb, _, _ := strings.Cut(model.Words(o.Tool), " ")
			if verb == "" || verb == "put" || verb == "update" {
				verb = "refresh"
			}
			return "{" + verb + "} {target}"
		}
		return "{update|change} {target}"
	case hDelete:
		return "{delete|remove} {target}"
	}
	return ""
}
