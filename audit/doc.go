// Package audit re-checks finished releases on their own and renders them for people.
package audit
