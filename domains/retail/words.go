package retail

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
)

// The word lists are data, not code, so that they can be reviewed and
// extended without touching the generator.
//
//go:embed words/*.txt words/*.jsonl
var wordFiles embed.FS

// optionSpec is one option dimension of a product, e.g. size: S, M, L.
type optionSpec struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// productSpec is one product type: its name, the range its base price is
// drawn from, and its option dimensions in display order.
type productSpec struct {
	Name    string       `json:"name"`
	Price   [2]float64   `json:"price"`
	Options []optionSpec `json:"options"`
}

// combinations is the number of distinct option combinations.
func (p productSpec) combinations() int {
	n := 1
	for _, o := range p.Options {
		n *= len(o.Values)
	}
	return n
}

type city struct {
	Name, State, ZipPrefix string
}

type wordLists struct {
	first, last, streets []string
	cities               []city
	products             []productSpec
}

// loadWords parses the embedded lists. It runs per Generate call rather
// than once into a package variable: parsing takes well under a
// millisecond, and it keeps the package free of mutable globals.
func loadWords() (*wordLists, error) {
	var w wordLists
	var err error
	if w.first, err = readLines("words/first_names.txt"); err != nil {
		return nil, err
	}
	if w.last, err = readLines("words/last_names.txt"); err != nil {
		return nil, err
	}
	if w.streets, err = readLines("words/streets.txt"); err != nil {
		return nil, err
	}
	lines, err := readLines("words/cities.txt")
	if err != nil {
		return nil, err
	}
	for i, l := range lines {
		f := strings.Split(l, ",")
		if len(f) != 3 || f[0] == "" || len(f[1]) != 2 || len(f[2]) != 3 {
			return nil, fmt.Errorf("words/cities.txt:%d: want CITY,ST,ZIP3, got %q", i+1, l)
		}
		w.cities = append(w.cities, city{Name: f[0], State: f[1], ZipPrefix: f[2]})
	}
	if w.products, err = readProducts("words/products.jsonl"); err != nil {
		return nil, err
	}
	return &w, nil
}

// readLines returns the non-blank lines of an embedded file, rejecting
// duplicates because a duplicate silently skews the draw.
func readLines(name string) ([]string, error) {
	b, err := wordFiles.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var out []string
	seen := make(map[string]bool)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		if seen[l] {
			return nil, fmt.Errorf("%s:%d: duplicate entry %q", name, n, l)
		}
		seen[l] = true
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is empty", name)
	}
	return out, nil
}

func readProducts(name string) ([]productSpec, error) {
	lines, err := readLines(name)
	if err != nil {
		return nil, err
	}
	out := make([]productSpec, 0, len(lines))
	names := make(map[string]bool)
	for i, l := range lines {
		var p productSpec
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if p.Name == "" || names[p.Name] {
			return nil, fmt.Errorf("%s:%d: empty or duplicate product name %q", name, i+1, p.Name)
		}
		names[p.Name] = true
		if p.Price[0] <= 0 || p.Price[1] < p.Price[0] {
			return nil, fmt.Errorf("%s:%d: %s: bad price range %v", name, i+1, p.Name, p.Price)
		}
		if len(p.Options) == 0 {
			return nil, fmt.Errorf("%s:%d: %s has no options", name, i+1, p.Name)
		}
		dims := make(map[string]bool)
		for _, o := range p.Options {
			if o.Name == "" || dims[o.Name] || len(o.Values) == 0 {
				return nil, fmt.Errorf("%s:%d: %s: empty, duplicate or valueless option %q", name, i+1, p.Name, o.Name)
			}
			dims[o.Name] = true
			vals := make(map[string]bool)
			for _, v := range o.Values {
				if v == "" || vals[v] {
					return nil, fmt.Errorf("%s:%d: %s: option %q has an empty or duplicate value %q", name, i+1, p.Name, o.Name, v)
				}
				vals[v] = true
			}
		}
		out = append(out, p)
	}
	return out, nil
}
