package agent

import (
	"strings"

	"github.com/synth-data/synth/model"
)

// Language of a write's figures. A figure of money is said with who
// pays whom ("you'll be charged", "you'll be refunded"): the customer
// says yes to an amount and a direction, and the verifier holds both to
// what the write then does (its direction words are verify's
// chargeWords and refundWords). The value is always said as it is, for
// the outputs check. <to> is " to <method>" or "".

// figureWillBe states a figure that moves no money before the yes (an
// amount of nothing, a count), figureIs after the write.
var figureWillBe = []string{
	"{The <what> will be|The <what> comes to|That makes the <what>|The <what> would be|So the <what> is} <value>.",
}

// figureChargeWillBe states, before the yes, money the customer pays.
var figureChargeWillBe = []string{
	"{You'll be charged|You will be charged|We'll charge you} <value><to> for the <what>.",
	"The <what> {will be|comes to|is} <value>, {which you'll pay|which you would pay|for you to pay}.",
	"{You'll pay|You'd pay|You will pay} <value> for the <what>.",
	"{That's|It comes to} <value> {for you to pay|due from you} for the <what>.",
	"The <what> of <value> will be charged<to>.",
}

// figureMoreWillBe states, before the yes, a difference the customer
// pays on top of what was paid.
var figureMoreWillBe = []string{
	"{That's|It's} an extra <value> for you to pay, the <what>.",
	"You'll pay <value> more{ for this|}, the <what>.",
	"{The <what> is|The <what> comes to} <value>{, which you'll pay| more for you to pay}.",
	"{You'll be charged|You will be charged} an extra <value><to>{, the <what>|}.",
}

// figureRefundWillBe states, before the yes, a figure that is money
// coming back to the customer (a negative price difference, a payment
// entry that is a refund): never "-$325", never a "price difference"
// the customer would read as a charge.
var figureRefundWillBe = []string{
	"{The <what> is|The <what> comes to} <value> in your favour{, so it goes back<to>|, refunded<to>|: that much comes back<to>}.",
	"{<value> will go back|You'll be refunded <value>|That's a refund of <value>}<to>{, the <what>|}.",
}

// figureRefundNamedWillBe states a figure named a refund: its name says
// the direction, said in words of its own.
var figureRefundNamedWillBe = []string{
	"{The <what> will be|The <what> comes to|You'll get a <what> of|You'll receive a <what> of} <value><to>.",
	"{You'll be refunded|You will be refunded} <value><to>{, the full <what>|}.",
	"<value> {will go back|will come back}<to>{ as your <what>|}.",
}

// figureRefundIs reports such a figure after the write.
var figureRefundIs = []string{
	"{<value> is going back|A refund of <value> is on its way|<value> has been refunded|You've been refunded <value>}<to>.",
	"{The <what> came to|The <what> was} <value>, and it's {on its way back|coming back}<to>.",
}

// figureChargeIs reports, after the write, money the customer paid.
var figureChargeIs = []string{
	"{You've been charged|We've charged you} <value><to>{ for the <what>|}.",
	"{The <what> came to|The <what> was} <value>{, which you paid|, paid by you}.",
	"The <what> of <value> has been charged<to>.",
}

// An id or a status neither "came to" nor is "final"; an amount does.
var figureIs = []string{
	"{The <what> is|The <what> is|For your records, the <what> is} <value>.",
}

// figureNone states money that comes to nothing, before or after the
// write: "$0" stays in it for the disclose check, in words that say there
// is nothing to pay.
var figureNone = []string{
	"{There's no|There won't be any|You won't pay any} <what> {for this|here|on this one}{: it's <value>.| (<value> in all).|, it comes to <value>.}",
	"{The <what> comes to|The <what> is|The <what> here is just} <value>{, so nothing to pay for that| — nothing to pay|, nothing extra}.",
	"{No <what> applies|Nothing is owed as a <what>|The <what> doesn't apply} here{ (<value>)|: <value>}.",
}

var figureIsMoney = []string{
	"{The <what> is|The <what> came to|The <what> was} <value>.",
}

// Ways a figure of a write is said (figureWay).
const (
	sayPlain     = iota // no money moves: the figure as it is
	sayCharge           // the customer pays it
	sayMore             // the customer pays it on top of what was paid
	sayBack             // it goes back to the customer
	sayBackNamed        // it goes back, and its name says so (a refund)
)

// figureBanks are, by the way a figure is said, its phrases before the
// yes and once the write is done (a plain amount done says figureIsMoney).
var figureBanks = [...]struct{ before, done []string }{
	sayPlain:     {figureWillBe, figureIs},
	sayCharge:    {figureChargeWillBe, figureChargeIs},
	sayMore:      {figureMoreWillBe, figureChargeIs},
	sayBack:      {figureRefundWillBe, figureRefundIs},
	sayBackNamed: {figureRefundNamedWillBe, figureRefundIs},
}

// figureWay is how a figure (name, raw) is said: with its direction when
// it moves money (back: to the customer).
func figureWay(name string, raw any, back bool) int {
	n, isNum := model.Number(raw)
	words := model.Words(name)
	switch {
	case isNum && n == 0 || !back && !model.IsMoney(name):
		return sayPlain
	case back && strings.Contains(words, "refund"):
		return sayBackNamed
	case back:
		return sayBack
	case strings.Contains(words, "difference"):
		return sayMore
	}
	return sayCharge
}
