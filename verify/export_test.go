package verify

import (
	"context"

	"github.com/synth-data/synth/record"
)

// ReplayedFigures are the disclosed figures the replay computes for each
// write of a dialogue that went through, in order, as NAME=VALUE.
func (v *Verifier) ReplayedFigures(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory) [][]string {
	var out [][]string
	for _, c := range v.replay(ctx, bp, tr).calls {
		if !c.write || c.failed || len(v.d.Model.Disclosed(c.name)) == 0 {
			continue
		}
		var fs []string
		for _, f := range c.figures {
			fs = append(fs, f.name+"="+f.value)
		}
		out = append(out, fs)
	}
	return out
}

// NthGoal is nthGoal, for the tamper tests.
var NthGoal = nthGoal

// SentencesOf splits a message into sentences as the disclose rule does.
var SentencesOf = sentencesOf
