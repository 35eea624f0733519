package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBucketSpacesAndCorrects(t *testing.T) {
	clk := newFakeClock()
	b := newBucket(600, clk.now) // 10 a second, bursts of 10
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // any wait fails at once, so a wait shows as an error
	for i := range 10 {
		if err := b.take(ctx, 1); err != nil {
			t.Fatalf("take %d within the burst: %v", i, err)
		}
	}
	if err := b.take(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("the 11th take did not wait: %v", err)
	}
	clk.advance(100 * time.Millisecond) // one token earned
	if err := b.take(ctx, 1); err != nil {
		t.Fatalf("a take after 100ms: %v", err)
	}
	// A take larger than the bucket goes into debt instead of blocking forever.
	clk.advance(time.Minute)
	if err := b.take(ctx, 50); err != nil {
		t.Fatalf("a large take on a full bucket: %v", err)
	}
	if err := b.take(ctx, 1); err == nil {
		t.Fatal("a take while in debt did not wait")
	}
	// The response used less than estimated: the surplus comes back.
	b.adjust(45)
	if err := b.take(ctx, 1); err != nil {
		t.Fatalf("a take after the correction: %v", err)
	}
}

func TestBucketWaitsTheRightTime(t *testing.T) {
	b := newBucket(1200, time.Now) // 20 a second, bursts of 20
	ctx := context.Background()
	for range 20 {
		b.take(ctx, 1)
	}
	start := time.Now()
	for range 4 {
		if err := b.take(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 190*time.Millisecond {
		t.Fatalf("4 takes past the burst took %v, want at least 200ms at 20 a second", d)
	}
}
