// Package pool runs one function over the indices 0..n-1 on a fixed
// number of goroutines and hands the results over in index order.
//
// A run has three parts, all inside Run: a feeder that starts indices in
// order, at most Options.Window of them ahead of the last one delivered;
// Options.Workers goroutines that call the work function; and one
// goroutine that re-orders the results and calls the deliver function
// for index 0, 1, 2, ... in turn. Work cannot fail on its own: an
// index's failure travels in its result, so the caller decides in
// deliver, in index order, whether it ends the run. That keeps what a
// run writes independent of scheduling: the same indices are delivered
// in the same order whatever the worker count, and a failure is reported
// for the first index that failed, not the first failure to happen.
//
// The window bounds memory: a slow index holds back at most Window
// finished results. Options.Stop is an early-stop hook (synth's LLM
// budget): once it reports true no further index starts, the indices
// already started are delivered, and Run returns. Cancelling the
// context, or an error from deliver, stops every part and is returned.
package pool
