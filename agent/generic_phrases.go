package agent

// Language of the generic agent that speaks of the pack's things: the
// domain's nouns and parameter names are slots. The moves that need no
// domain words (greeting back, confirming, closing) are in phrases.go.

var genericGreetIdentify = []string{
	"{Hi|Hello|Hi there|Thanks for reaching out|Happy to help}{!|.|,} {Before I can look into this|To get started|First|Before we continue}, {I need to verify your identity|I'll need to confirm who you are|I have to authenticate you}. {Could you give me <ids>?|Please share <ids>.|Can you provide <ids>?}",
	"{I can help with that|Sure, I can help|Of course}{!|.} {First|To start}, {could you share|can you tell me} <ids>?",
}

var genericAskTarget = []string{
	"{Which <noun>|What <noun>} {do you mean|are you referring to|is this about}? {You can give me its <key> or describe it|Its <key> or a description works|Either its <key> or a short description is fine|Its <key> is enough, or just describe it|If you don't have the <key>, a description works too}.",
	"{Could you tell me|Can you let me know} which <noun> {this is about|you mean}?",
}

var genericAskSearch = []string{
	"{Sure|Happy to help|Of course}{!|.} {What are you looking for|Tell me what you need}: the <params>? {You can give me several <grid>|Several <grid> are fine}, and tell me how I should choose{, for example the cheapest|}.",
	"{I can search for that|Let me find you <a_noun>}. {Please tell me the <params>{ — several <grid> are fine —|}, and what matters most to you{, like price or duration|}.|Could you give me the <params>{ — several <grid> are fine —|}, and what matters most to you{, like price or duration|}?}",
}

var genericAskSlot = []string{
	"{What should the <what> be|What <what> would you like|Which <what> do you want}?",
	"{Could you tell me the <what> {you'd like|you want}?|Please tell me the <what> {you'd like|you want}.}",
}

// genericAskSaid asks for a slot whose values the pack words ("travel
// insurance", "two checked bags"): the options are the question, never
// the parameter's name.
var genericAskSaid = []string{
	"{Would you like|Do you want|Should it be} <opts>?",
	"{Which would you like|What would you prefer|Which do you want}: <opts>?",
}

var genericAskChoice = []string{
	"{Which <noun>|What <noun>} {would you like to use|should I use} for the <what>?",
	"{Could you tell me which <noun> to use for the <what>?|Please tell me which <noun> to use for the <what>.}",
}

// genericAskChoiceSame asks for a choice whose thing is what it is for
// (a payment method).
var genericAskChoiceSame = []string{
	"{Which <noun>|What <noun>} {would you like to use|should I use}?",
	"{Could you tell me which <noun> to use?|Please tell me which <noun> to use.}",
}

var genericFoundSearch = []string{
	"{I searched every combination you gave me|I've checked every combination}{ and found <n> <noun>|}. {The one that fits|The best match|The one you asked for} is: <summary>.",
	"{I've run the searches|Done searching}{; there are <n> <noun> in all|}. {Your choice would be|The match is}: <summary>.",
}

var genericAskGroup = []string{
	"{What's the new <what>|What <what> should I use|Where should it go}? {Please give me the full <what>|I'll need the whole <what>|I need every part of the <what>|Please include the whole <what>}.",
	"{Could you tell me the new <what>{, in full|}?|Please tell me the new <what>{, in full|}.}",
}

var genericAskPick = []string{
	"{Which <what>|What <what>} {do you mean|is this about}? {Please name each one|Tell me each of them|Name every one you mean|Please list each of them|List them all, please}.",
	"{Could you tell me which <what> {you mean|this is about}?|Please tell me which <what> {you mean|this is about}.}",
}

var genericAskNew = []string{
	"{What would you like instead|Which option would you like instead} of {each of the|the} <what>?",
	"{Could you tell me what you'd like {instead|in exchange}?|Please tell me what you'd like {instead|in exchange}.}",
}

// toolRefuse gives the reason the tool refused a write tried first.
var toolRefuse = []string{
	"{I'm sorry|Unfortunately|I'm afraid}, {I can't|I'm not able to} <what>. <why>.",
	"{I've checked, and|I looked into it, and} {I'm sorry, but|unfortunately} I can't <what>: {the policy doesn't allow it here|this isn't allowed}. <why>.",
}

var genericRefuse = []string{
	"I'm sorry, I can't <what>: <why>.",
	"{Unfortunately|I'm afraid} <target> can't be changed that way: <why>. So I can't <what>.",
}
