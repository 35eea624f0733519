// Package usersim simulates customers: behaviour profiles that decide what a user reveals and when, and a phrase grammar that says it.
package usersim
