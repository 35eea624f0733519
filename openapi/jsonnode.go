package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pb33f/go-yaml"
)

// jsonNode decodes a JSON document into the YAML node tree the importer
// walks, with lines and columns. A YAML parser reads JSON too, but it
// is several times slower on the megabyte-sized JSON specs APIs publish,
// and its messages for broken JSON say less than encoding/json's.
func jsonNode(raw []byte) (*yaml.Node, error) {
	d := &jsonDecoder{dec: json.NewDecoder(bytes.NewReader(raw)), raw: raw}
	d.dec.UseNumber()
	for i, b := range raw {
		if b == '\n' {
			d.lines = append(d.lines, i)
		}
	}
	n, err := d.value()
	if err != nil {
		return nil, d.explain(err)
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("malformed JSON: extra data after the document at %s", lineCol(raw, int(d.dec.InputOffset())))
	}
	return n, nil
}

type jsonDecoder struct {
	dec   *json.Decoder
	raw   []byte
	lines []int // offsets of the newlines
	depth int
}

// maxJSONDepth matches encoding/json's own nesting limit; deeper
// documents are not OpenAPI specs.
const maxJSONDepth = 10000

// pos is the line and column of the byte before the decoder's offset
// (the last byte of the token just read).
func (d *jsonDecoder) pos() (int, int) {
	off := max(int(d.dec.InputOffset())-1, 0)
	i := sort.SearchInts(d.lines, off)
	col := off + 1
	if i > 0 {
		col = off - d.lines[i-1]
	}
	return i + 1, col
}

func (d *jsonDecoder) value() (*yaml.Node, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, err
	}
	return d.node(tok)
}

func (d *jsonDecoder) node(tok json.Token) (*yaml.Node, error) {
	line, col := d.pos()
	n := &yaml.Node{Line: line, Column: col}
	switch v := tok.(type) {
	case json.Delim:
		d.depth++
		defer func() { d.depth-- }()
		if d.depth > maxJSONDepth {
			return nil, fmt.Errorf("malformed JSON: nested more than %d levels at %s", maxJSONDepth, lineCol(d.raw, int(d.dec.InputOffset())))
		}
		if v == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
			for d.dec.More() {
				kt, err := d.dec.Token()
				if err != nil {
					return nil, err
				}
				ks, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("malformed JSON: an object key is not a string at %s", lineCol(d.raw, int(d.dec.InputOffset())))
				}
				kl, kc := d.pos()
				key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ks, Line: kl, Column: kc - len(ks) - 1}
				val, err := d.value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, key, val)
			}
		} else {
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
			for d.dec.More() {
				val, err := d.value()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
		}
		if _, err := d.dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", v, yaml.DoubleQuotedStyle
	case json.Number:
		n.Kind, n.Value = yaml.ScalarNode, string(v)
		n.Tag = "!!int"
		if strings.ContainsAny(string(v), ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(v)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}

// explain says where a JSON document is malformed or cut off.
func (d *jsonDecoder) explain(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("truncated JSON: the document ends early at %s; the file is incomplete", lineCol(d.raw, len(d.raw)))
	case errors.As(err, &se):
		if strings.Contains(se.Error(), "unexpected end") {
			return fmt.Errorf("truncated JSON: the document ends early at %s; the file is incomplete", lineCol(d.raw, len(d.raw)))
		}
		return fmt.Errorf("malformed JSON at %s: %s", lineCol(d.raw, int(se.Offset)), se.Error())
	case strings.HasPrefix(err.Error(), "malformed JSON"):
		return err
	}
	return fmt.Errorf("malformed JSON at %s: %w", lineCol(d.raw, int(d.dec.InputOffset())), err)
}
