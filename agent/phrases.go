package agent

// Agent language: several templates per move, each with alternatives.
// Slots in <angle brackets> carry facts and are never varied.

var identifyAgain = []string{
	"{I couldn't find any account|I wasn't able to find an account|There's no matching account} {with those details|for that information}. {Could you double-check|Can you check} {and try again|them for me}?",
	"{Hmm, that|That} {didn't match any account|doesn't match our records}. {Would you mind checking|Could you re-check} {the details|what you sent}?",
}

var authed = []string{
	"{Thanks|Thank you|Thanks, <first>|Great, thanks}{,|!|.} {I've found your account|you're verified|I've located your account}.",
	"{Thank you|Thanks}{, <first>|}. {Your identity is confirmed|I've verified your account}.",
}

var askHelp = []string{
	"{How can I help you today|What can I do for you|What would you like help with today}?",
}

var askAnythingElse = []string{
	"{Is there anything else|Anything else} {I can help you with|I can do for you|you need}{ today|}?",
	"{Can I help with anything else|Is there something else you'd like to do}{ today|}?",
}

var closings = []string{
	"{You're welcome|My pleasure|Glad I could help}{!|.} {Have a great day|Take care|Have a wonderful day|Enjoy the rest of your day}{!|.}",
	"{Thanks for contacting us|Thank you for reaching out}{, <first>|}{!|.} {Have a nice day|Goodbye|Take care}{!|.}",
}

var found = []string{
	"{I found|I've found|Here's} <what>{.|:} <detail>",
	"{I see|Looking at your account, I see|Okay, I see} <what>{.|:} <detail>",
}

var confirmAsk = []string{
	"{Shall I proceed|Would you like me to proceed|Do you want me to go ahead|Can you confirm you'd like to proceed}? {Please reply yes to confirm.|Please confirm with yes.|}",
	"{Please confirm|Can you confirm} {that's correct|you want this done} (yes/no).",
}

var proposeLead = []string{
	"{Here's what I'll do|To confirm the details|Just to confirm|Before I make this change, here are the details}:",
	"{I'm about to|I'll now|I'm ready to}",
}

var doneLead = []string{
	"{Done|All set|That's done|Success}{!|.}",
	"{I've completed that|The change went through|That's taken care of}{.|!}",
}

// passOver is the silent_refusal flaw's answer to a forbidden request:
// it neither does it nor says that it cannot be done.
var passOver = []string{
	"{I've looked into|I've checked|I've gone over} <what>{.|, thanks.}",
}

// transferSorry comes before a transfer message the policy prescribes.
var transferSorry = []string{
	"{I'm sorry|Unfortunately|I understand}{,|.} {that's not something I can handle here|that's outside what I can do in this chat}.",
}

var transferMsg = []string{
	"{I'm sorry|Unfortunately|I understand}{,|.} {that's not something I can handle here|that's outside what I can do in this chat}. {I'm transferring you to a human agent|I'll transfer you to a human agent who can help|Let me hand you over to a human colleague}{.| now.} {Please hold on.|Thanks for your patience.|}",
}

// What the agent says first when the customer turns a proposal down.
var correctionLead = []string{
	"{Sorry about that|My apologies|Thanks for catching that|Apologies for the mix-up}{!|.} {Let me fix that.|I'll correct it.|Let me put that right.|}",
	"{You're right to check|Good catch}{, sorry|}{!|.} {I'll fix the details.|Let me correct that.}",
}

var figureLead = []string{
	"{Of course|Certainly|Good question|Absolutely}{!|.} {Here are the full details.|I should have said so.|Let me go through it again.|}",
}

// holdRefusal answers a plea for an exception: the policy stands.
var holdRefusal = []string{
	"{I understand|I hear you|I'm really sorry}{, and I wish I could help|}{.|,} {but I can't make an exception|but the policy doesn't allow exceptions here|but this isn't something I'm able to override}{.|, I'm afraid.}",
	"{I'm sorry|I understand how frustrating this is}, {but I'm not able to make an exception to the policy|but the policy is the same for every customer, so I can't make an exception}.",
}
