// Package retail is the built-in online-retail domain: a seeded database, typed tools and the agent policy.
package retail
