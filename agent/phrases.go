package agent

// Agent language: several templates per move, each with alternatives.
// Slots in <angle brackets> carry facts and are never varied.

var identifyAgain = []string{
	"{I couldn't find any account|I wasn't able to find an account|There's no matching account} {with those details|for that information}. {Could you double-check|Can you check} {and try again|them for me}?",
	"{Hmm, that|That} {didn't match any account|doesn't match our records}. {Would you mind checking|Could you re-check} {the details|what you sent}?",
}

// Variety inside each sentence: a sentence said in most dialogues needs
// dozens of forms, or the same one recurs in a fifth of them.
var authed = []string{
	"{Thanks|Thank you|Thanks a lot|Great, thanks|Perfect, thank you|Thanks for that}{, <first>|}, {I've found your account|you're verified|I've located your account|your account is verified|I've pulled up your account|I can see your account now}.",
	"{Thank you|Thanks|Great|Perfect|All right}{, <first>|} — {your identity is confirmed|I've verified your account|you're all verified|I've confirmed it's you|that matches our records}.",
}

var askHelp = []string{
	"{How can I help you today|What can I do for you|What would you like help with today}?",
}

var askAnythingElse = []string{
	"{Is there anything else|Is there something else|Anything else} {I can help you with|I can do for you|you need|I can take care of|you'd like me to look into}{ today| right now|}?",
	"{Can I help with anything else|Can I help you with anything else|Is there something else you'd like to do|Do you need help with anything else|Would you like help with anything else}{ today| while I have you|}?",
}

var closings = []string{
	"{You're welcome|My pleasure|Glad I could help|Happy to help|Anytime}, {have a great day|take care|have a wonderful day|enjoy the rest of your day|have a good one|all the best}{!|.}",
	"{Thanks for contacting us|Thank you for reaching out|Thanks for getting in touch|Thank you for your patience}{, <first>|}, {have a nice day|goodbye|take care|and have a good one|and enjoy your day}{!|.}",
}

var found = []string{
	"{I found|I've found|Here's} <what>{.|:} <detail>",
	"{I see|Looking at your account, I see|Okay, I see} <what>{.|:} <detail>",
}

var confirmAsk = []string{
	"{Shall I|Should I|Would you like me to|Do you want me to} {proceed|go ahead|make this change|go ahead with this|carry this out}{ now| for you|}? {Please reply yes to confirm.|Just reply yes and I'll take care of it.|Reply yes if that's right.|A yes from you and I'll go ahead.|Say yes and it's done.|Once you say yes, I'll make the change.|I'll go ahead as soon as you reply yes.|A simple yes is all I need.|Just say yes to go ahead.|Reply yes and I'll process it.|If everything looks right, reply yes.|I'll need a yes from you before I proceed.|Reply yes to go ahead, or tell me what to change.|If that's all correct, a yes is enough.|}",
	"{Please confirm {that's correct|you want this done|these details are right|this is what you'd like|you'd like me to go ahead} (yes/no).|{Can you|Could you|Would you} confirm {that's correct|you want this done|these details are right|this is what you'd like|you'd like me to go ahead} (yes/no)?}",
}

var proposeLead = []string{
	"{Here's what I'll do|To confirm the details|Just to confirm|Before I make this change, here are the details}:",
	"{I'm about to|I'll now|I'm ready to}",
}

var doneLead = []string{
	"{Done|All set|All done|That's done|Finished|Success} — {the change went through|it's gone through|everything went through|that's in place now|it's been processed|your request is complete}{.|!}",
	"{I've completed that|The change went through|That's taken care of|It's all been processed|Everything is updated}{ for you|, as requested| successfully|}{.|!}",
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

// defaultChoice offers the target's own one besides the customer's
// things ("the original payment method").
var defaultChoice = []string{
	"{It can also be|You can also choose|Another option is} <default>{.| if you prefer.}",
	"{Or I can use|I can also use|Or we can go with} <default>{.| if you prefer.| instead.}",
}

// figureWillBe states a figure before the yes, figureIs after the write;
// the value is always said as it is, for the outputs check.
var figureWillBe = []string{
	"{The <what> will be|The <what> comes to|That makes the <what>|The <what> would be|So the <what> is} <value>.",
}

var figureIs = []string{
	"{The <what> is|The <what> came to|The final <what> is|The <what> was|Your <what> is} <value>.",
}
