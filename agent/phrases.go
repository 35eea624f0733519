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
	"{|So, |Now, |Okay, |Alright, |And }{is there anything else|is there something else|anything else} {I can help you with|I can do for you|you need|I can take care of|you'd like me to look into|on your list|I can sort out for you}{ today| right now| at the moment|}?",
	"{|So, |Now, |Okay, |Alright, |And }{can I help with anything else|can I help you with anything else|is there something else you'd like to do|do you need help with anything else|would you like help with anything else|is there more I can do for you|what else can I do for you}{ today| while I have you| at this point|}?",
}

var closings = []string{
	"{You're welcome|My pleasure|Glad I could help|Happy to help|Anytime}, {have a great day|take care|have a wonderful day|enjoy the rest of your day|have a good one|all the best}{!|.}",
	"{Thanks for contacting us|Thank you for reaching out|Thanks for getting in touch|Thank you for your patience}{, <first>|}, {have a nice day|goodbye|take care|and have a good one|and enjoy your day}{!|.}",
}

var found = []string{
	"{I found|I've found|Here's} <what>{.|:} <detail>",
	"{I see|I can see|Okay, I see} <what>{.|:} <detail>",
}

// foundAgain names a record the dialogue has been through already.
var foundAgain = []string{
	"{That's|It's|That would be} <what> again{, the one we just went through| — the same one as before|}.",
	"{Okay|Right|Got it}, {that's|it's} <what> {again|once more}.",
}

// foundYours is found for a customer who has an account: an employee
// or a developer is not looked up.
var foundYours = []string{
	"Looking at your account, I see <what>{.|:} <detail>",
}

var confirmAsk = []string{
	"{|So, |Okay, |Alright, }{shall I|should I|would you like me to|do you want me to|may I} {proceed|go ahead|make this change|go ahead with this|carry this out|put this through}{ now| for you| then|}? {{Please reply yes to confirm.|Just reply yes and I'll take care of it.|Reply yes if that's right.|A yes from you and I'll go ahead.|Say yes and it's done.|Once you say yes, I'll make the change.|I'll go ahead as soon as you reply yes.|A simple yes is all I need.|Just say yes to go ahead.|Reply yes and I'll process it.|If everything looks right, reply yes.|I'll need a yes from you before I proceed.|Reply yes to go ahead, or tell me what to change.|If that's all correct, a yes is enough.}|}",
	"{|So, |Now, |Okay, |Alright, |If that all looks right, }{please confirm {that's correct|you want this done|these details are right|this is what you'd like|you'd like me to go ahead|I should go ahead|everything is right} (yes/no).|{can you|could you|would you} confirm {that's correct|you want this done|these details are right|this is what you'd like|you'd like me to go ahead|I should go ahead|everything is right} (yes/no)?}",
}

var proposeLead = []string{
	"{Here's what I'll do|To confirm the details|Just to confirm|Before I make this change, here are the details|Here's the plan|Let me run this by you first|Before I go ahead, let me check this with you|So that we're on the same page|Let me read it back to you}:",
	"{I'm about to|I'll now|I'm ready to|I'm set to|I can now|If you agree, I'll|With your okay, I'll}",
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
	"{I'm sorry,|Unfortunately,|I'm afraid|I understand, but} {that's not something I can handle here|that's outside what I can do in this chat}.",
}

// retriedLead reports a write that went through on the second try,
// after a passing failure (a timeout, a rate limit).
var retriedLead = []string{
	"{The first try failed|The system hiccuped on the first try|My first attempt didn't go through} (<why>), {so I tried again|so I ran it once more} {and it went through|and this time it worked}{.|!}",
	"{It didn't go through at first|The first attempt was turned away} — <why> — {but the second try worked|but it went through when I tried again}{.|!}",
}

// failedHandover apologises for a write the service failed in a way the
// agent cannot work around, before the transfer.
var failedHandover = []string{
	"{I'm sorry|I'm really sorry|My apologies}, {that didn't go through|the system couldn't complete it}: <why>. {I can't resolve that from here|That's not something I can fix in this chat}, {so I'm transferring you to a human agent|so I'll hand you over to a human colleague who can help}{.| now.}",
}

var transferMsg = []string{
	"{I'm sorry,|Unfortunately,|I'm afraid|I understand, but} {that's not something I can handle here|that's outside what I can do in this chat}. {I'm transferring you to a human agent|I'll transfer you to a human agent who can help|Let me hand you over to a human colleague}{.| now.} {Please hold on.|Thanks for your patience.|}",
}

// What the agent says first when the customer turns a proposal down.
// writeFailed tells the customer a write its tool rejected, in the
// tool's words, before the agent asks for another choice.
var writeFailed = []string{
	"{I'm sorry|Sorry|Unfortunately|I'm afraid}, {that didn't go through|the system didn't accept that|that was turned down}{:| —} <why>.",
	"{I tried, but it|It} {didn't go through|was declined|was turned down}{:| —} <why>.",
}

var correctionLead = []string{
	"{Sorry about that|My apologies|Thanks for catching that|Apologies for the mix-up}{!|.} {Let me fix that.|I'll correct it.|Let me put that right.|}",
	"{You're right to check|Good catch}{, sorry|}{!|.} {I'll fix the details.|Let me correct that.}",
}

var figureLead = []string{
	"{Of course|Certainly|Good question|Absolutely}{!|.} {Here are the full details.|I should have said so.|Let me go through it again.|}",
}

// holdRefusal answers a plea for an exception: the policy stands.
// identifyRest asks for the details a half identity lacks.
var identifyRest = []string{
	"{Thanks|Thank you|Got it|Thanks for that}{.|!} {I also need|I'll also need|To find your account I also need|I still need} <missing>{, please|}.",
	"{Thanks|Thank you|Got it}{.|!} {Could you also give me|Can you also tell me|What's} <missing>{, please|}?",
}

// steerBack answers a question off the task and returns to it, in words
// no refusal check takes for refusing the request itself.
var steerBack = []string{
	"{Good question|Fair question|I get that}{!|.} {That's outside what I handle in this chat|I don't have that information here|That's not something I look after here}{, but|; still,|, though} {let's finish your request first|I'll keep going with your request|let's get back to what you asked for}.",
	"{I'll have to leave that one aside|That's beyond what this chat covers|I don't have details on that}{, sorry|}. {For now, let's finish what you came in for|Let's get your request done|Back to your request}.",
}

// steerBackSelf answers a question about the agent itself ("are you a
// real person?") as an assistant honestly would, and returns to the task.
var steerBackSelf = []string{
	"{I'm a virtual assistant|I'm an automated assistant|I'm the automated assistant for this chat}{, not a person|, here for your request|}. {Let's get back to your request|Back to what you came in for|Let me keep going with your request}.",
	"{Ha, fair question|Good question}{!|.} {I'm an automated assistant|I'm a virtual assistant here}{, not a person|}. {Now, back to your request|Let's finish what you came in for}.",
}

var holdRefusal = []string{
	"{I understand|I hear you|I'm really sorry}{, and I wish I could help|}{.|,} {but I can't make an exception|but the policy doesn't allow exceptions here|but this isn't something I'm able to override}{.|, I'm afraid.}",
	"{I'm sorry|I understand how frustrating this is}, {but I'm not able to make an exception to the policy|but the policy is the same for every customer, so I can't make an exception}.",
}

// holdRefusalAgain answers a second plea: the stakes are heard, the
// rule is the same.
var holdRefusalAgain = []string{
	"{I really do understand why this matters to you|I can hear how important this is|I know this isn't the answer you wanted}, {but|and I'm sorry, but} {I'd be breaking the policy if I did it|the policy applies to every request alike|checking again won't change the outcome, I'm afraid}.",
	"{I'm sorry|I wish I had better news}{.|,} {I've looked at it again|I've gone over it once more}, and {it's still not something I'm allowed to do|the policy doesn't leave me any room here}.",
}

// holdRefusalHigher answers a call for a supervisor: no one applies a
// different policy, and a refusal is no reason for a transfer.
var holdRefusalHigher = []string{
	"{I understand|I hear you}{, but|. Still,} {a supervisor would apply exactly the same policy|anyone else here would have to give you the same answer|escalating it wouldn't change the outcome}{, so I can't pass this on|, I'm afraid}.",
	"{I'm sorry|I know it's frustrating}, but {even a supervisor can't override this|the same policy applies whoever you speak to}{.|, so the answer stays the same.}",
}

// defaultChoice offers the target's own one besides the customer's
// things ("the original payment method").
var defaultChoice = []string{
	"{It can also be|You can also choose|Another option is|There's also|You could also pick|It's also possible to use} <default>{.| if you prefer.| if that's easier.}",
	"{Or I can use|I can also use|Or we can go with|Or I could put it on|If you'd rather, I can use} <default>{.| if you prefer.| instead.| as before.}",
}

// insteadLead takes up a customer's plan B once the request it stood in
// for was refused.
var insteadLead = []string{
	"{Since that isn't possible|As that can't be done|Given that|Because of that|That being so}, {I'll go with your other request instead|let's do what you asked for in that case|I'll handle your fallback instead|let's move on to your other option}.",
	"{You mentioned|You said} {what you'd like|what to do} {in that case|if that wasn't possible}, so {let's do that|I'll handle that now|here it is}.",
}

// reminderFrames lead into a policy reminder, which is also said as it
// is as often as one of them.
var reminderFrames = []string{
	"Just so you know,", "One thing to keep in mind:", "Please note:", "For your information,", "Worth knowing:",
	"As a reminder,", "Also,", "Keep in mind that", "By the way,", "Note that", "Before you decide,", "A quick note:",
	"One more detail:", "It's worth mentioning that", "Just a heads-up:", "Something to consider:", "Good to know:",
	"I should mention that", "Let me mention that", "For the record,", "In case it matters,",
	"Quick reminder:", "Bear in mind that", "Just to flag it,", "For what it's worth,", "Do keep in mind that",
	"Heads-up:", "To be clear,", "Just so it's said,",
}

// slotOptions lists the values a slot takes after its question.
var slotOptions = []string{
	"{The options are|You can choose|You can pick|The choices are|It can be|Possible answers are|Pick one of} <opts>.",
	"{It's one of|Choose from|I can take} <opts>{.|, whichever you like.| — just say which.}",
}
