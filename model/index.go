package model

import (
	"context"
	"maps"
	"slices"
	"sort"

	"github.com/synth-data/synth/tools"
)

// OwnersWith lists the users whose list shows at least n records.
func (m *Model) OwnersWith(c *CollModel, n int) []string {
	if c.List == nil || c.List.Param == "" {
		return m.userKeys
	}
	if n == 1 {
		return m.owners[c.Name] // computed once: every task asks for it
	}
	return ownersFrom(m.byCount[c.Name], n)
}

func ownersFrom(byCount map[int][]string, n int) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(byCount)) {
		if k >= n {
			out = append(out, byCount[k]...)
		}
	}
	sort.Strings(out)
	return out
}

func (m *Model) UserKeyOfValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		return tools.Text(x[m.Users.Coll.Key])
	}
	return ""
}

// MisspellFails checks that the confused customer's first attempt
// (first parameter misspelt) identifies nobody.
func (m *Model) MisspellFails(ctx context.Context, im *IdentifyModel, known map[string]string) bool {
	args := map[string]any{}
	for i, param := range im.Params {
		text := known[param]
		if i == 0 {
			text = Misspell(text)
		}
		args[param] = Typed(m.ParamSchema(im.Tool, param), text)
	}
	out, ok := m.Read(ctx, nil, im.Tool, args)
	return !ok || m.UserKeyOfValue(out) == ""
}

// OwnedKeys lists a user's records of a collection: what its list
// shows, else the records whose owner field names the user.
func (m *Model) OwnedKeys(c *CollModel, user string) []string {
	if c.List != nil && c.List.Param != "" {
		return m.owned[c.Name][user]
	}
	return m.byOwner[c.Name][user]
}

// UserKeys lists the customers' keys in base order.
func (m *Model) UserKeys() []string { return m.userKeys }

// AllKeys lists the keys of an ownerless collection that its list tool
// shows.
func (m *Model) AllKeys(coll string) []string { return m.allKeys[coll] }

// ListPages is the number of calls that read a collection's list on the
// base, for a user ("" for a list of every record): one per page.
func (m *Model) ListPages(coll, user string) int { return max(1, m.pages[coll+"/"+user]) }

// Listed lists the keys of a user's records that the collection's list
// tool shows.
func (m *Model) Listed(coll, user string) []string { return m.owned[coll][user] }

// UsersListing lists the users whose list of a collection shows exactly k
// records.
func (m *Model) UsersListing(coll string, k int) []string { return m.byCount[coll][k] }

// ListGivesRecords reports whether a collection's list returns whole
// records (then the agent needs no read per record).
func (m *Model) ListGivesRecords(coll string) bool { return m.listRecs[coll] }

// FieldValues lists the distinct values a field of a collection's
// records takes in the base.
func (m *Model) FieldValues(coll, path string) []any { return m.collPools[coll][path] }

// Pool lists the values a customer may give a search parameter.
func (s *SearchModel) Pool(param string) []string { return s.pools[param] }
