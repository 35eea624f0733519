// Package corpus measures the language of a release's dialogues as a
// reader judging them would: how often the same sentence comes back (per
// role, as a share of dialogues), how varied the words are (distinct-1
// and distinct-2 per role, on the first 50 dialogues and on the whole
// sample), and how often the situations that make a dialogue worth
// training on occur (a customer turning a proposal down, pleading
// against a refusal, a tool error, a transfer, a recovery row).
//
// A Meter takes rows one at a time (Add) and gives a Summary; synth stats
// --language and synth report feed it the SFT rows of a release in file
// order, up to a sample size, so the figures of two releases compare.
package corpus
