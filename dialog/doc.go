// Package dialog holds what the embedded customer and the embedded agent
// say to each other, below both of them.
//
// A customer's message is a Turn: its text, the Acts that say what the
// text means (identify, request, provide, confirm, revise, done), and a
// stop token when it ends the conversation (TokenStop, TokenTransfer,
// TokenOutOfScope: protocol, never text). The agent's reply carries an
// Ask, what it asked of the customer, which the customer answers next.
// usersim produces Turns and reads Asks; agent reads Turns and produces
// Asks; neither imports the other.
//
// Both speak through the same phrase grammar (grammar.go): a template
// has "{a|b|c}" alternatives, nested as deep as needed, and "<slot>"
// placeholders filled after the alternatives are chosen, so a fact (an
// email, an id, an amount) is never altered by choice or noise. Render
// expands, capitalises, fills and tidies in that order; the customer
// adds its behaviour's noise between the steps (Expand, Capitalize,
// Fill, Tidy).
package dialog
