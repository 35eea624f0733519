package release

import (
	"strconv"

	"github.com/synth-data/synth/credit"
)

// CreditStats sum the credit labels (package credit) of a release's
// rows: chain lengths, how much of each chain the labels cover, the mix
// of action classes, and per engine the Gold Action Recall.
type CreditStats struct {
	Rows        int            `json:"rows"`
	ChainLength map[string]int `json:"chain_length"`
	// ChainSteps and CoveredSteps sum C and k over the rows; Coverage is
	// their ratio and FullyCovered counts the rows whose k is C.
	ChainSteps   int            `json:"chain_steps"`
	CoveredSteps int            `json:"covered_steps"`
	Coverage     float64        `json:"coverage"`
	FullyCovered int            `json:"fully_covered_rows"`
	Classes      map[string]int `json:"action_classes"`
	// Gold is, per engine, the assistant turns whose action class is the
	// class the ground truth calls for at that point.
	Gold map[string]*GoldRecall `json:"gold_action_recall"`
}

// GoldRecall is Gold Action Recall over some dialogues.
type GoldRecall struct {
	Matched int     `json:"matched"`
	Turns   int     `json:"turns"`
	Recall  float64 `json:"recall"`
}

// NewCreditStats makes empty credit stats.
func NewCreditStats() *CreditStats {
	return &CreditStats{ChainLength: map[string]int{}, Classes: map[string]int{}, Gold: map[string]*GoldRecall{}}
}

// Add counts the labels of one dialogue of an engine.
func (c *CreditStats) Add(l credit.Labels, engine string) {
	c.Rows++
	c.ChainLength[strconv.Itoa(l.ChainLength)]++
	c.ChainSteps += l.ChainLength
	c.CoveredSteps += l.Progress
	if l.Progress == l.ChainLength {
		c.FullyCovered++
	}
	c.Coverage = Ratio(c.CoveredSteps, c.ChainSteps)
	for _, tu := range l.Turns {
		c.Classes[tu.Class]++
	}
	m, n := credit.GoldRecall(l)
	c.gold(engine, GoldRecall{Matched: m, Turns: n})
}

func (c *CreditStats) gold(engine string, o GoldRecall) {
	g := c.Gold[engine]
	if g == nil {
		g = &GoldRecall{}
		c.Gold[engine] = g
	}
	g.Matched += o.Matched
	g.Turns += o.Turns
	g.Recall = Ratio(g.Matched, g.Turns)
}

// Merge adds another chunk's credit stats.
func (c *CreditStats) Merge(o *CreditStats) {
	if o == nil {
		return
	}
	c.Rows += o.Rows
	c.ChainSteps += o.ChainSteps
	c.CoveredSteps += o.CoveredSteps
	c.FullyCovered += o.FullyCovered
	c.Coverage = Ratio(c.CoveredSteps, c.ChainSteps)
	for k, v := range o.ChainLength {
		c.ChainLength[k] += v
	}
	for k, v := range o.Classes {
		c.Classes[k] += v
	}
	for e, g := range o.Gold {
		c.gold(e, *g)
	}
}
