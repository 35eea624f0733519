// Package domains loads a domain by name: its database, tools, policy, blueprint generator and verification rules.
package domains

import (
	"fmt"
	"sort"
	"strings"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/verify"
)

// Domain is a loaded domain, ready for a run.
type Domain struct {
	Name    string
	Version string
	Policy  string
	Tools   *tools.Toolkit
	Base    *tools.Base
	Verify  verify.Domain
	// Generator builds the blueprint generator for a spec.
	Generator func(spec blueprints.Spec) (blueprints.Generator, error)
	// Files are the domain's defining files, shipped in a release's
	// domain/ folder so the release re-verifies on its own.
	Files map[string][]byte
}

// Names lists the built-in domains.
func Names() []string {
	names := []string{retail.Name}
	sort.Strings(names)
	return names
}

// Load builds a built-in domain for a seed.
func Load(name string, seed uint64) (*Domain, error) {
	switch name {
	case retail.Name:
		return loadRetail(seed)
	}
	return nil, fmt.Errorf("unknown domain %q: built-in domains are %s (--domain)", name, strings.Join(Names(), ", "))
}

// retailVersion changes whenever the generated database, tools or policy
// change, so releases record which retail they were built from.
const retailVersion = "1.0.0"

func loadRetail(seed uint64) (*Domain, error) {
	r, err := retail.New(seed)
	if err != nil {
		return nil, err
	}
	owner := func(st *tools.State, args map[string]any) string {
		if id, _ := args["order_id"].(string); id != "" {
			if v, ok := st.Get(retail.Orders, id); ok {
				if o, ok := v.(*retail.Order); ok {
					return o.UserID
				}
			}
		}
		if id, _ := args["user_id"].(string); id != "" {
			return id
		}
		return ""
	}
	d := &Domain{
		Name:    retail.Name,
		Version: retailVersion,
		Policy:  r.Policy,
		Tools:   r.Tools,
		Base:    r.Base,
		Verify: verify.Domain{
			Tools:     r.Tools,
			Base:      r.Base,
			AuthTools: []string{"find_user_id_by_email", "find_user_id_by_name_zip"},
			OpenTools: []string{"list_all_product_types", "get_product_details", "get_item_details", "calculate", "transfer_to_human_agents"},
			Owner:     owner,
		},
		Files: map[string][]byte{
			"policy.md":  []byte(r.Policy),
			"tools.json": []byte(r.Tools.OpenAI()),
		},
	}
	d.Generator = func(spec blueprints.Spec) (blueprints.Generator, error) {
		return blueprints.NewRetail(r, spec)
	}
	return d, nil
}
