// Package airline is the built-in airline domain, written as a domain pack: flights, users, reservations, Starlark handlers and the agent policy.
package airline
