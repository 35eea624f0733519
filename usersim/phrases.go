package usersim

// The phrase grammar. Each entry has several templates, each with nested
// alternatives, so one intent has hundreds of surface forms; profiles add
// their own openers, fillers and closers on top.

var greetings = []string{
	"{Hi|Hello|Hey|Hi there|Hello there|Good afternoon|Hey there|Morning|Good morning|Good evening}{,|,|,|!|.} ",
	"{Hi|Hello|Hey|Good day}, {I hope you can help me|I need some help|I'm hoping you can help|I could use some help|I need a hand with something|I have a question|I'm hoping you can sort something out}{.|!} ", "{Hi|Hello|Hey|Hi there}, {could|can} you help me {out|with something}? ",
	"",
}

// Pieces the user supplies, by name.
var pieces = map[string][]string{
	"target": {
		"{It's|I mean|That's} <target>{.|}",
		"<target>{.|}",
		"{The one I mean is|I'm talking about} <target>{.|}",
	},
	"items": {
		"{It's|I mean|That's} <items>{.|}",
		"<items>{.|}",
		"{The items are|I mean} <items>{.|}",
	},
	"new": {
		"{I'd like|I want|Please make it|I'd prefer} <new> instead{.|}",
		"<new>{, please|}{.|}",
		"{Switch it to|Change it to|Go with} <new>{.|}",
	},
	"reason": {
		"{It's|Because it's|The reason is it's|Honestly, it's} <reason>{.|}",
		"<reason>{.|}",
	},
	"payment": {
		"{Use|Please use|Put it on|Let's go with} <payment>{.|}",
		"<payment>{, please|}{.|}",
		"{I'd like to use|I want to use} <payment>{.|}",
	},
	"address": {
		"{The new address is|It's|Please send it to|Ship it to} <address>{.|}",
		"<address>{.|}",
	},
	"topic": {
		"{I need to|I want to} <topic>{.|}",
		"<topic>{.|}",
	},
}

// A yes is said in most dialogues, often twice: each sentence of it has
// many forms, or one recurs in a tenth of them. Every form holds a word
// the verifier takes for an explicit yes.
var confirms = []string{
	"{Yes|Yeah|Yep|Yes please|Sure|Correct|That's right|Yes, sounds good|Yes, perfect}, {go ahead|please do|do it|proceed|that's correct|go for it|please go ahead|that works}{.|!|}",
	"{Yes|Yeah|Yep|Sure|Yes, please}{, that's right|, all correct|, exactly| — go ahead|{, thanks|, thank you|, thanks a lot}|}{.|!}",
	"{That's all correct|Everything looks right|All good|Looks right to me|That's exactly it}{,| —} {go ahead|please proceed|yes|do it|you can go ahead}{.|!|}",
	"{Yes|Yep|Yeah|Yes, please|Right}, {I confirm|confirmed|I confirm that|that's confirmed|I can confirm that}{.|!|}",
}

var revisions = []string{
	"{Actually|Wait|Hmm, actually|On second thought|Sorry, actually}{,|...} {{can you|could you} {make it|change that to|use} <value> instead?|{let's|please} {make it|change that to|use} <value> instead.}",
	"{Wait|Hold on|Actually}{,|!} {I changed my mind|I'd rather go with something else}{ -|,} <value>{ instead|, please}{.|}",
}

var dones = []string{
	"{No|Nope|No thanks}, {that's all|that's everything|I'm all set|that covers it|nothing else|I'm good}{ for today| for now|}{ — thanks| — thank you| — thanks a lot| — thanks for your help| — appreciate it|, thanks|}{!|.}",
	"{That's it|That's all I needed|I'm good|I'm all set|That covers everything}, {thank you|thanks|thanks so much|many thanks|thanks for the help}{!|.}",
	"{Nothing else|No, I'm done|Nothing more|No, that's it}{,| —} {thanks|thank you for the help|have a nice day|have a good one|bye}{!|.}",
}

var nextGoal = []string{
	"{Yes, one more thing|Yeah, actually|Actually, yes|One more thing|Also, one more thing|There's one more thing|Yes, there is|Actually, there is|Now that you ask, yes|Yes, while I have you|Oh, one more thing|Come to think of it, yes|Yes, please, one more|There is, actually|Actually, I do|Yes, I do}{.|!|,|,} ",
	"{Yes|Sure|Yes, actually|Sure, now that you mention it}{, there's something else|, one more thing|, I also have another request|, I have one more request|, there's another thing}{.|:|!} ",
	"",
}

var acks = []string{
	"{Okay|Ok|I see|Alright|Got it|Understood|Oh, okay|Right}{,| —} {thanks|thank you|that's fine|fair enough|no problem|thanks for checking}{.|!|}",
	"{I see|Oh|Hmm|Ah}{,| —} {that's a shame|too bad|okay then|I understand|that's a pity|fair enough}{.|}",
}

var reminders = []string{
	"{Wait|Hold on|Um}{,|.} {you haven't|I don't think you've} {finished|done} {my other request|the other thing I asked for} yet{.|: }",
	"{Before we finish|Sorry, but}{,|} {there's still|I still have} {the other request|my other request} {open|pending}{.|: }",
}

// Profile colour.
// digressions are a talkative or piecemeal customer's question off the task, asked
// instead of an answer (NCUser's tangents): the agent steers back and
// asks again.
var digressions = []string{
	"{Oh, before that|Actually, quick question first|Sorry, random question|Before I forget|Side question|Oh, one thing first}{:|,} {do you know if|can you tell me whether|any idea if|is it true that} {support is open on weekends|there's a phone line I could call next time|I can get updates by text|there's a mobile app for this|this chat is saved somewhere|I could talk to the same person next time}?",
}

// asides are the same customer's question about the agent itself: the
// act says so (Intent "agent"), so the agent answers what it is rather
// than calling the question outside its chat.
var asides = []string{
	"{Hmm, wait|Hang on|Oh|Um}{.|,} {how long have you been doing this job|is it busy today|do you get a lot of people like me|are you a real person, by the way|am I talking to a bot}? {Just curious.|Sorry, I'm curious.|Anyway.|}",
}

// verboseFillers are said whatever the pack's domain (an airline, a
// cloud API), so none of them names a store, a delivery or shopping.
var verboseFillers = []string{
	"{By the way|Oh, and|Funny story|Just so you know}, {the weather here has been awful|my dog knocked over a lamp this morning|I've been with you for years|a friend recommended you|I'm typing this on my lunch break}{.|!}",
	"{I have to say|Honestly|To be fair}, {your site is usually great|it all went smoothly last time|this is my first time contacting support|I almost phoned rather than chatting}{.|!}",
	"{Sorry for the long message|Sorry, that was a lot|I hope this makes sense|Bear with me|Sorry if I ramble|I know that's a lot of words}{.|!|, I'm a bit scattered today.}",
}

var impatientOpeners = []string{
	"{Quick question|Need this fixed fast|I'm in a hurry|I don't have much time|Please be quick}{.|!|:} ",
	"{Hi|Hello|Hey}, {I'm short on time|make it quick please|let's be fast|I need this done quickly|I have a few minutes only}{.|!} ",
}

var impatientClosers = []string{
	"{Thanks|Thx|Ta|Cheers|Thanks in advance|Much appreciated}{.|!}",
	"{Please hurry|Quickly please|ASAP please|As fast as you can|I need it now|Quick, please}{.|!}",
	"",
}

// Non-native phrasings replace idiomatic requests for the typos profile.
var nonNative = map[string]string{
	"I'd like to":  "I would like make",
	"I want to":    "I am wanting to",
	"I need to":    "I must to",
	"Can you":      "You can",
	"Could you":    "Is possible you",
	"please":       "please kindly",
	"instead":      "in place",
	"That's all":   "Is all",
	"Thanks":       "Thank you very much for help",
	"I'm":          "I am",
	"the shipping": "shipping",
}
