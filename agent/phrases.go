package agent

// Agent language: several templates per move, each with alternatives.
// Slots in <angle brackets> carry facts and are never varied.

var greetIdentify = []string{
	"{Hi|Hello|Hi there|Thanks for reaching out|Happy to help}{!|.|,} {Before I can look into this|To get started|First|Before we continue}, {I need to verify your identity|I'll need to confirm who you are|I have to authenticate you}. {Could you give me|Please share|Can you provide} {your email address|the email on your account}, or {your full name and zip code|your name and zip code}?",
	"{I can help with that|Sure, I can help|Of course}{!|.} {First|To start}, {please tell me {the email address on your account|your email}, or {your first and last name together with your zip code|your name plus zip code}.|could you share {the email address on your account|your email}, or {your first and last name together with your zip code|your name plus zip code}?}",
}

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

var askPiece = map[string][]string{
	"target": {
		"{Which order|What order} {do you mean|are you referring to|is this about}? {You can give me the order id or describe it|An order id or a description works}{.|}",
		"{Could you tell me|Can you let me know} {which order this is about|which order you mean}?",
	},
	"items": {
		"{Which item|Which items} {would you like to|do you want to} <verb>?",
		"{Could you tell me {which items|which item} {you'd like to|you want to} <verb>?|Please tell me {which items|which item} {you'd like to|you want to} <verb>.}",
	},
	"new": {
		"{What would you like instead|Which option would you like instead|What should I switch it to}?",
		"{Which variant|What version} {would you like|do you want} {instead|in its place}?",
	},
	"payment": {
		"{Which payment method|What payment method} {would you like to use|should I use}{ for this|}?",
		"{How would you like to|Which method should I use to} <payverb>?",
	},
	"reason": {
		"{Could you tell me|May I ask|What's} {the reason for the cancellation|why you'd like to cancel}? {It can be|The options are} 'no longer needed' or 'ordered by mistake'.",
	},
	"address": {
		"{What's the new address|Which address should I use|What address would you like}{?|, including the zip code?}",
		"{Please give me the {full new address|new address with street, city, state and zip}.|Could you share the {full new address|new address with street, city, state and zip}?}",
	},
	"topic": {
		"{What can I help you with|What would you like to do}?",
	},
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

var refuse = map[string][]string{
	"status": {
		"{I'm sorry|Unfortunately|I'm afraid}, <detail>. {Our policy does not allow|Under our policy I can't} <action> {for an order in that status|in this case}.",
		"{Sorry|Unfortunately}, {I can't|I'm not able to} <action>: <detail>.",
	},
	"owner": {
		"{I'm sorry|Unfortunately}, {that order isn't on your account|that order does not belong to your account}, so I can't act on it.",
	},
}

var transferMsg = []string{
	"{I'm sorry|Unfortunately|I understand}{,|.} {that's not something I can handle here|that's outside what I can do in this chat}. {I'm transferring you to a human agent|I'll transfer you to a human agent who can help|Let me hand you over to a human colleague}{.| now.} {Please hold on.|Thanks for your patience.|}",
}
