// Package openapi imports OpenAPI 3.0/3.1 specs as domain packs.
package openapi
