// Package docs holds the rules the README and docs/ keep: the README is a
// front page (at most 300 lines) that points into docs/, every link
// between them resolves, and every measured figure names the test,
// benchmark or script that produces it.
package docs
