// Package audit re-checks finished releases on their own and renders them
// for people: Validator.Validate is synth validate, Reporter.Write is
// synth report.
//
// Validate trusts nothing a release says about itself. It holds the
// manifest to the files (each present, a regular file inside the release,
// of its listed size and sha256, nothing unlisted in the data folders),
// every Parquet file to the column contract, every SFT row to the full
// verifier and a replay of its tool calls, every DPO pair to a
// re-simulation of its flawed side, which must give the pair's rejected
// messages and fail the check the pair records, every rejected
// dialogue to the reason it was rejected for, the counts to the rows, each
// row's split to its blueprint's, and the instructions to their splits (the
// same task in train and test measures memorisation). The domain is the
// built-in of the release's name or the pack it ships in domain/, so a
// release of a user's pack re-verifies with nothing but its own folder.
//
// Findings are Defects, not errors: each names its file, row and check, and
// the Validation lists every one, so one run shows all that is wrong.
// Warnings (a first user message shared by two splits, a domain this
// synth no longer has) are listed apart and do not fail a release; the
// text output says of each kind what it means and what to do. The
// error return is for what stops the check itself (no folder, ctx
// cancelled). Rows are checked on Validator.Workers goroutines, and a panic
// while checking a row becomes a defect of that row: the verifier was
// written for synth's own dialogues, and a damaged row must not hide the
// rest. Every file is read within limitio's bounds, and a count is only
// compared when the files it covers were read whole.
//
// Reporter.Write lays out counts, config, distributions (as inline SVG,
// drawn in charts.go, whose label columns widen to the longest name) and
// the first dialogues as one HTML page that loads
// nothing from anywhere, so it looks the same offline, as a mail
// attachment or in a Hugging Face file view.
//
// Audit never writes into a release and never repairs one: a damaged
// release is the user's to rerun or re-merge.
package audit
