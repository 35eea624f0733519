// Package agent holds the embedded agents: a policy-keeping oracle that solves tasks by really reading and writing through the tools.
package agent
