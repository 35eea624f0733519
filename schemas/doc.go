// Package schemas holds the JSON Schemas of synth's records and validates records against them.
package schemas
