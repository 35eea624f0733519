package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/synth-data/synth/engine"
	client "github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
)

// Instruction writing and review, after APIGen-MT: the writer turns the
// structured blueprint into the customer's instruction; a committee of
// judges votes on whether it entails exactly the ground truth and reads
// like a real customer; a majority accepts, else the writer rewrites it
// with the judges' feedback, up to --rewrites times. An instruction
// never accepted is replaced by the blueprint's template instruction.

const writerInstructions = "Write, in the second person, the instruction a simulated customer will follow: who they are, " +
	"how they identify themselves, why they contact support and every request in order with every detail the blueprint gives " +
	"(ids, amounts, names, dates, emails, zip codes, addresses, reasons, payment methods), what they must find out, " +
	"and what they do not know. Never reveal what the agent must look up. Reply with the instruction text only."

const judgeInstructions = "Decide two things about the instruction. entails: a customer following it would ask for exactly " +
	"the ground-truth actions of the blueprint, no more and no less, with every detail needed to identify each target. " +
	"realistic: it reads like a real customer's situation. Reply with a JSON object " +
	`{"entails": true|false, "realistic": true|false, "feedback": "what to fix"} and nothing else.`

// The system messages of the writer's and the judges' requests.
const (
	writerSystem = client.WriterHeader + "\n\n" + writerInstructions
	judgeSystem  = client.JudgeHeader + "\n\n" + judgeInstructions
)

// Writer writes customer instructions and has a committee review them.
type Writer struct {
	Judges   int // judges per review (0: every instruction is accepted)
	Rewrites int // rewrites with the judges' feedback before the template is kept
}

// Instruct replaces bp.Instruction with an accepted LLM instruction, or
// keeps the template one.
func (e Writer) Instruct(ctx context.Context, ch client.Chatter, bp *record.Blueprint, st *engine.LLMStats) error {
	rs := st.ReviewCounts()
	rs.Written++
	raw, err := json.Marshal(bp)
	if err != nil {
		return err
	}
	blueprint := client.Tag("blueprint", string(raw))
	var feedback []string
	for round := 0; round <= e.Rewrites; round++ {
		user := blueprint
		if round > 0 {
			rs.Rewrites++
			user += "\n\n" + client.Tag("feedback", strings.Join(feedback, "\n"))
		}
		req := openai.ChatCompletionRequest{Seed: Seed(bp, 0, client.Writer, "instruct", strconv.Itoa(round)), Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: writerSystem},
			{Role: openai.ChatMessageRoleUser, Content: user}}}
		resp, err := ch.Chat(ctx, client.Writer, client.StageInstruct, req)
		if err != nil {
			return fmt.Errorf("blueprint %s, instruction writer: %w", bp.ID, err)
		}
		text := strings.TrimSpace(resp.Choices[0].Message.Content)
		if text == "" || strings.Contains(text, "###") {
			feedback = []string{"The instruction was empty or held a stop token; write the full instruction as plain text."}
			continue
		}
		ok, fb, err := e.review(ctx, ch, bp, blueprint, text, round, rs)
		if err != nil {
			return err
		}
		if ok {
			if round == 0 {
				rs.AcceptedFirst++
			} else {
				rs.AcceptedAfterRewrite++
			}
			bp.Instruction = text
			return nil
		}
		feedback = fb
	}
	rs.KeptTemplate++
	return nil
}

// review asks the committee; it accepts when a strict majority votes
// entails and realistic. A reply that is not a review counts against.
func (e Writer) review(ctx context.Context, ch client.Chatter, bp *record.Blueprint, blueprint, text string, round int, rs *engine.ReviewStats) (bool, []string, error) {
	n := e.Judges
	if n == 0 {
		return true, nil, nil
	}
	votes := make([]client.Review, n)
	readable := make([]bool, n)
	user := blueprint + "\n\n" + client.Tag("instruction", text)
	g, gctx := errgroup.WithContext(ctx)
	for j := range n {
		g.Go(func() error {
			req := openai.ChatCompletionRequest{Seed: Seed(bp, 0, client.Judge, "review", strconv.Itoa(round), strconv.Itoa(j)), Messages: []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: judgeSystem},
				{Role: openai.ChatMessageRoleUser, Content: user}}}
			resp, err := ch.Chat(gctx, client.Judge, client.StageReview, req)
			if err != nil {
				return fmt.Errorf("blueprint %s, judge %d: %w", bp.ID, j+1, err)
			}
			r, err := client.ParseReview(resp.Choices[0].Message.Content)
			votes[j], readable[j] = r, err == nil
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return false, nil, err
	}
	yes := 0
	var feedback []string
	for j, r := range votes {
		rs.Votes++
		switch {
		case !readable[j]:
			rs.UnreadableVotes++
		case r.Entails && r.Realistic:
			yes++
			rs.VotesFor++
		case strings.TrimSpace(r.Feedback) != "":
			feedback = append(feedback, strings.TrimSpace(r.Feedback))
		}
	}
	if len(feedback) == 0 {
		feedback = []string{"Make the instruction state every ground-truth request with its details, as a real customer would."}
	}
	return 2*yes > n, feedback, nil
}
