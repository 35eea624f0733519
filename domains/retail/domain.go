package retail

import (
	"fmt"

	"github.com/synth-data/synth/tools"
)

// Name is the domain's name, as used by --domain.
const Name = "retail"

// Domain is a ready-to-use retail domain: the generated database, its
// immutable base for episodes, the toolkit and the agent policy.
type Domain struct {
	DB     *DB
	Base   *tools.Base
	Tools  *tools.Toolkit
	Policy string
}

// New builds the domain for a seed. The base's records are the DB's own
// pointers, so DB must be treated as read-only from here on.
func New(seed uint64) (*Domain, error) {
	db, err := Generate(seed)
	if err != nil {
		return nil, err
	}
	colls := map[string]map[string]any{
		Users:    make(map[string]any, len(db.Users)),
		Orders:   make(map[string]any, len(db.Orders)),
		Products: make(map[string]any, len(db.Products)),
	}
	for id, u := range db.Users {
		colls[Users][id] = u
	}
	for id, o := range db.Orders {
		colls[Orders][id] = o
	}
	for id, p := range db.Products {
		colls[Products][id] = p
	}
	base, err := tools.NewBase(colls)
	if err != nil {
		return nil, fmt.Errorf("retail: %w", err)
	}
	k, err := Toolkit()
	if err != nil {
		return nil, err
	}
	return &Domain{DB: db, Base: base, Tools: k, Policy: Policy()}, nil
}
