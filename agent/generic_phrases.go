package agent

// Language of the generic agent that speaks of the pack's things: the
// domain's nouns and parameter names are slots. The moves that need no
// domain words (greeting back, confirming, closing) are in phrases.go.

var genericGreetIdentify = []string{
	"{Hi|Hello|Hi there|Thanks for reaching out|Happy to help}{!|.|,} {Before I can look into this|To get started|First|Before we continue}, {I need to verify your identity|I'll need to confirm who you are|I have to authenticate you|I need to confirm your identity|I have to check it's you}{. {{Could you give me|Can you provide|Could you send me|May I have|Can you tell me} <ids>{?|, please?}|{Please share|Please send me|I'll need} <ids>.}|, so {could you give me|can you provide|could you send me|may I have|can you tell me} <ids>?}",
	"{I can help with that|Sure, I can help|Of course|Happy to help with that|I'd be glad to help|Certainly}{!|.} {First|To start|Before anything else|To begin}, {could you share|can you tell me|may I have|could you give me} <ids>{?| so I can verify your account?| so I can pull up your account?}",
}

var genericAskTarget = []string{
	"{|And |Now, |Okay, |First, }{which <noun>|what <noun>} {do you mean|are you referring to|is this about|are we talking about}? {{You can give me its <key> or describe it|Its <key> or a description works|Either its <key> or a short description is fine|Its <key> is enough, or just describe it|If you don't have the <key>, a description works too|<a_key> helps, but a description is fine|Describe it if the <key> isn't handy|Its <key> would be ideal, though a description works|You can name it by its <key> or tell me about it|No <key>? Just describe it}.|}",
	"{{Could you tell me|Can you let me know|Would you tell me} which <noun> {this is about|you mean|you have in mind|you're asking about}{?|, please?}|{Let me know|Tell me} which <noun> {this is about|you mean|you have in mind|you're asking about}{.|, please.}}",
}

// genericAskTargetKey asks for a record no list shows, which only its key
// (and its parents') can name: no description is offered.
var genericAskTargetKey = []string{
	"{|And |Now, |Okay, |First, }{which <noun>|what <noun>} {do you mean|are you referring to|is this about|are we talking about}? {{Please give me its <key>|I'll need its <key>|Its <key> is what I need|Could you share its <key>}{ and where it sits| and what it belongs to|}.|}",
	genericAskTarget[1],
}

var genericAskSearch = []string{
	"{Sure|Happy to help|Of course|Certainly|Gladly}{!|.|,} {what are you looking for|tell me what you need|which trip do you have in mind|what should I search for}: the <params>? {You can give me several <grid>|Several <grid> are fine|Feel free to give several <grid>}, and tell me how I should choose{, for example the cheapest|, say by price or duration|}.",
	"{I can search for that|Let me find you <a_noun>|I'll look for <a_noun> for you|I can find <a_noun> for you}{.|, no problem.} {Please tell me the <params>{ (several <grid> are fine)|}, and what matters most to you{, like price or duration|}.|Could you give me the <params>{ (several <grid> are fine)|}, and what matters most to you{, like price or duration|}?}",
}

var genericAskSlot = []string{
	"{What should the <what> be|What <what> would you like|Which <what> do you want}?",
	"{Could you tell me the <what> {you'd like|you want}?|Please tell me the <what> {you'd like|you want}.}",
}

// genericAskReason asks for a reason as why the customer wants the
// write (<act>, "cancel reservation 6K9DLQ"), never "What reason would
// you like?", as if a reason were something to pick for its own sake.
var genericAskReason = []string{
	"{What's the reason|May I ask the reason|Could you tell me the reason|Can I ask the reason} you'd like to <act>?",
	"{And |Now, |}{what's the reason you want to|what's your reason to|may I ask your reason to} <act>?",
}

// genericAskReasonBare asks for a reason when no phrase names the write
// yet (its target is still unknown).
var genericAskReasonBare = []string{
	"{What's the reason for this|May I ask the reason for this|Could you tell me the reason for this request|What's the reason behind this}?",
}

// genericAskSaid asks for a slot whose values the pack words ("travel
// insurance", "two checked bags"): the options are the question, never
// the parameter's name.
var genericAskSaid = []string{
	"{|And |Now, |Also, |Next, |Then }{would you like|do you want|should it be|shall I go with|do you prefer} <opts>?",
	"{|And |Now, |Also, |Next, }{which would you like|what would you prefer|which do you want|what's your preference|what should it be}: <opts>?",
}

// genericAskWhether asks for a slot whose two values the pack words as
// a thing and its absence ("travel insurance", "no travel insurance"):
// offered as a yes/no, never "travel insurance or no travel insurance?".
var genericAskWhether = []string{
	"{|And |Now, |Also, |Next, |Then }{would you like|do you want|shall I add|should I include|will you be wanting} <opt>{| on this}?",
	"{|And |Now, |Also, |Next, }{do you want|would you like} <opt>{, or not| or not}?",
}

// genericAskCount asks for a count among a run of them: <what> is the
// pack's words after the number ("checked bags in total").
var genericAskCount = []string{
	"{|And |Now, |Also, |Next, }how many <what> {would you like|do you want|should it be}? {Anything from <lo> to <hi> works|It can be from <lo> to <hi>|You can have <lo> to <hi>|Any number from <lo> to <hi> is fine|Between <lo> and <hi> is possible}.",
	"{|And |Now, |Next, }{could you tell me how many <what> you'd like ({from <lo> to <hi>|<lo> to <hi>|<lo>–<hi>})?|please tell me how many <what> you'd like ({from <lo> to <hi>|<lo> to <hi>|<lo>–<hi>}).}",
}

var genericAskChoice = []string{
	"{|And |Now, |Next, |Then }{which <noun>|what <noun>} {would you like to use|should I use|do you want} for the <what>?",
	"{Could you tell me which <noun> to use for the <what>?|Please tell me which <noun> to use for the <what>.}",
}

// genericAskChoiceSame asks for a choice whose thing is what it is for
// (a payment method).
var genericAskChoiceSame = []string{
	"{|And |Now, |Next, |Lastly, |Then }{which <noun>|what <noun>} {would you like to use|should I use|do you want to use|shall I use|should I put this on}{| for this| this time}?",
	"{Could you tell me which <noun> to use|Can you tell me which <noun> you'd like|Which of your <noun>s should I use}{| for this| this time}{?|, please?}",
	"{Let me know|Tell me|Just let me know} which <noun> {to use|you'd like to use|I should use|you prefer}{| for this| this time}{.|, please.}",
}

// genericAskOtherSlot asks for another value after the tool turned the
// customer's first one down.
var genericAskOtherSlot = []string{
	"{Which other|What other|What different} <what> {would you like to use|should I use|shall I try}{| instead}?",
	"{Do you have another <what> in mind|Is there another <what> you'd like to use|Would you like to try a different <what>}{| instead}?",
}

// genericAskOther asks for another choice after the tool turned the
// customer's first one down.
var genericAskOther = []string{
	"{Which other|What other} <noun> {would you like to use|should I use|shall I try|can I put this on}{| instead}?",
	"{Do you have another <noun> I could use|Is there another <noun> you'd like to use|Would you like to try another <noun>}{| instead}?",
}

var genericFoundSearch = []string{
	"{I searched every combination you gave me|I've checked every combination|I went through every combination|I've searched all the options you gave me}, and {the one that fits|the best match|the one you asked for|the one that matches|your pick} is the <one> <summary>.",
	"{I've run the searches|Done searching|The searches are done|I've looked at every option}: {your choice would be|the match is|the one for you is|what fits best is} the <one> <summary>.",
}

var genericAskGroup = []string{
	"{What's the new <what>|What <what> should I use|Where should it go}? {Please give me the full <what>|I'll need the whole <what>|I need every part of the <what>|Please include the whole <what>}.",
	"{Could you tell me the new <what>{, in full|}?|Please tell me the new <what>{, in full|}.}",
}

var genericAskPick = []string{
	"{|And |Now, |Next, }{which <what>|what <what>} {do you mean|is this about|should it be|do you have in mind}? {{Please name each one|Tell me each of them|Name every one you mean|Please list each of them|List them all, please|Give me each one, please|I'll need each of them named|Name them one by one}.|}",
	"{Could you tell me|Can you let me know|Would you tell me} which <what> {you mean|this is about|it should be}{?|, please?}",
}

// genericAskNewOne asks for the replacement of the one item the
// customer named: "in its place", never "in their place".
var genericAskNewOne = []string{
	"{|And |Now, |Next, }{what would you like instead of|which option would you like instead of|what do you want in place of} the <what>?",
	"{{Could you tell me|Can you tell me|Would you tell me} what you'd like {instead|in exchange|in its place}{?|, please?}|{Please tell me|Let me know} what you'd like {instead|in exchange|in its place}.}",
}

var genericAskNew = []string{
	"{|And |Now, |Next, }{what would you like instead of|which option would you like instead of|what should replace|what do you want in place of} {each of the|the} <what>?",
	"{{Could you tell me|Can you tell me|Would you tell me} what you'd like {instead|in exchange|in their place}{?|, please?}|{Please tell me|Let me know} what you'd like {instead|in exchange|in their place}.}",
}

// unavailableNew tells the customer the replacement it named is one the
// record has but not available, before asking for another.
var unavailableNew = []string{
	"{I'm sorry|Sorry|Unfortunately|I'm afraid}, <label> {isn't available|is not available right now|is out of stock|is currently unavailable}.",
	"{I checked, and|I looked it up:|Looking at the product,} <label> {isn't available|is currently unavailable|is out of stock}{, I'm afraid|, sorry|}.",
}

// choiceShort tells the customer that the thing it chose to pay with
// (a gift card) holds less than the write would charge to it, before
// asking for another: never proposed, since the tool would reject it.
var choiceShort = []string{
	"{I checked, and|I looked at your account, and|I've checked, and} <choice> {has|holds} <balance>{ on it|}, which {doesn't cover|isn't enough for|falls short of} the <what> of <amount>{, so it can't be used for this|}.",
	"{Unfortunately,|I'm sorry, but} <choice> {can't cover this|won't cover this}: the <what> {is|comes to} <amount>, and it {has only <balance> left|holds only <balance>}.",
	"The <what> {comes to|is|would be} <amount>, but <choice> {only has|holds only|has just} <balance>{ on it|}, so {I can't use it|it can't pay for this|it won't cover it}.",
}

// choiceUnusable is choiceShort where the agent cannot compare a
// balance with the amount: it says the tool's reason.
var choiceUnusable = []string{
	"{I'm sorry, but|Unfortunately,} <choice> can't be used for this: <why>.",
	"{I checked, and|Looking at your account,} <choice> {won't work|can't be used} here: <why>.",
}

// toolRefuse gives the reason the tool refused a write tried first.
// The reason stands inside a sentence of varied words (<reason> is <why>
// with its first word lowered where it is a plain word): a policy's
// condition is the same text in every dialogue that cites it, and said
// as a sentence of its own it would repeat word for word.
var toolRefuse = []string{
	"{I'm sorry, {I can't|I'm not able to}|Unfortunately, {I can't|I'm not able to}|I'm afraid I {can't|am not able to}} <what>{, because|, since|, as|:} <reason>.",
	"{I've checked, and|I looked into it, and} {I'm sorry, but|unfortunately} I can't <what>: {the policy doesn't allow it here|this isn't allowed}. {That's because|The reason is that|It comes down to this:} <reason>.",
	"{I've looked at it:|Having checked,|I'm sorry:} <reason>, {so I can't|which means I can't|so I'm not able to} <what>.",
}

var genericRefuse = []string{
	"I'm sorry, I can't <what>: <why>.",
	"{Unfortunately|I'm afraid} <target> can't be changed that way: <why>. So I can't <what>.",
}

// Pieces of a proposal (propose.go), said inside its sentence.

// proposeObject follows the verb phrase with what it acts on.
var proposeObject = []string{": <object>", " — <object>", ", namely <object>", ", that is <object>"}

// proposeSwap pairs a picked element with its replacement.
var proposeSwap = []string{"<old> for <new>", "<old>, to be replaced by <new>", "<new> in place of <old>"}

// proposeSwapMany pairs each of several: no form with a comma of its own.
var proposeSwapMany = []string{"<old> for <new>", "<new> in place of <old>"}

// proposePeople names the people a write is for: by name, never in a
// list of what it comes with ("with travel insurance, passengers Hiro
// Zhou and no checked bags" reads as a record, and miscounts one).
var proposePeople = []string{"for <who>"}

// proposeAccount names the customer's own record by its key, which the
// customer gave and the yes is to.
var proposeAccount = []string{"under your <noun> <id>", "on your <noun> (<id>)", "for your <noun>, <id>"}

// proposeOwnKey is proposeAccount where the write's phrase names the
// account already.
var proposeOwnKey = []string{"under <what> <id>", "<what> <id>", "for <what> <id>"}

// proposeSame says a value the write keeps from the record.
var proposeSame = []string{"keeping the same <what>", "on the same <what> as now", "with the <what> unchanged"}

// proposeSet says a value the customer gave.
var proposeSet = []string{"the <what> set to <value>", "<value> as the <what>", "the <what> <value>", "the new <what> <value>"}

// proposeWhy gives the customer's reason as a clause.
var proposeWhy = []string{"since <clause>", "as <clause>", "because <clause>"}

// proposeOn says the lists a booking copies (its flights).
var proposeOn = []string{"on <what>", "with <what>", "taking <what>"}

// proposePayInline and proposePay name what pays (or is refunded): in
// the sentence, or after it.
var proposePayInline = []string{", using <pay>", ", with <pay>", ", through <pay>"}

var proposePay = []string{
	"{I'll use|I'll be using|I'll go with} <pay>{ for it| for this|}.",
	"{This will use|This goes through} <pay>.",
	"{It'll go through|It'll be on} <pay>.",
	"{I'll put it through|I'll handle it through|I'll do this via|It'll all run through} <pay>.",
	"<pay> {is what I'll use for it|is what this goes through|will be used for it}.",
}
