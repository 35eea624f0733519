// Package emulate is an OpenAI-compatible server that plays synth's roles for tests, dry runs and load tests.
package emulate
