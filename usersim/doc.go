// Package usersim simulates customers: behaviour profiles that decide what
// a user reveals and when, and a phrase grammar that says it.
//
// Generic is the customer of a pack's task (NewGeneric, from the pack's
// model.Model and one blueprint). It says only what the blueprint's
// persona knows, in the words of the pack's tools and hints, and it never
// ends the conversation while a goal it raised is open. The manner that
// does not depend on the domain lives in speaker: the Profiles (upfront,
// minimal, piecemeal, verbose, impatient, confused, changes_mind, typos)
// decide whether identity comes first, whether every piece comes with the
// request or only when asked, how terse the words are, whether a first
// choice is revised at the confirmation. Start opens; Respond answers the
// agent's last Ask. Each Turn carries its text and the Acts that say what
// it means, which the embedded agent reads, and a stop token
// (###STOP###, ###TRANSFER###) when the customer ends the dialogue as
// τ²-bench's protocol has it.
//
// An agent that is not synth's oracle (an LLM) hands over no Ask, so the
// customer reads the agent's words instead: Classify maps a message to an
// Ask with keyword rules, most specific first, and a Listener adds which
// goal it concerns and which goals are done, from the write calls that
// succeeded matched against the ground truth.
//
// The customer speaks through dialog's phrase grammar (dialog.Render:
// {a|b} groups, nested, pick one alternative each; <slot> slots carry
// facts and are filled after the choice, so a fact is never varied, split
// or capitalised into something else), as the agent does. The typos
// profile (grammar.go) adds keyboard noise between the grammar's steps
// that leaves every token carrying a fact (digits, @, #, capitalised
// names) and every decision word (yes, confirm) alone.
//
// Everything random draws from the rng passed in, the blueprint's "user"
// stream, in a fixed order, so a customer's words are a function of the
// blueprint; there are no globals beyond fixed phrase tables. The package
// plays a customer and nothing else: it never calls a tool, reads no
// database and does not judge the dialogue.
package usersim
