package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/suggest"
	"github.com/synth-data/synth/internal/termtext"
)

// verb is one command or sub-command of synth: its synopsis, its help and
// its flags. Every verb parses its command line with parse, so -h and
// --help, a wrong flag, a missing value and a wrong number of arguments
// are answered alike by every verb, and a new verb gets that for free.
type verb struct {
	name    string // as typed after synth: "report", "domain show"
	args    string // its positional arguments in the synopsis: "DIR", "FILE..."
	need    string // what a missing argument is, for the error: "the release folder"
	summary string // one line, for synth --help
	about   string // what it does, for its own --help; paragraphs split by a blank line
	fs      *flag.FlagSet
	meta    map[string]string // flag → what its value is, where the usage does not say
	keys    map[string]string // flag → the config key it sets (synth run)
	order   []string          // the order its flags are listed in; default by name
	min     int               // positional arguments it needs
	max     int               // positional arguments it takes at most; -1: any number
}

// newVerb makes a verb taking between min and max positional arguments
// (max -1: any number). Its flag set prints nothing: parse answers.
func newVerb(name, args, need string, min, max int, summary, about string) *verb {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &verb{name: name, args: args, need: need, summary: summary, about: about, fs: fs, min: min, max: max,
		meta: map[string]string{}, keys: map[string]string{}}
}

// errHelp says help was asked for and printed: exit status 0.
var errHelp = errors.New("help printed")

// usageError is a command line synth cannot act on: it is printed with a
// pointer to the verb's help, and synth exits 2.
type usageError struct {
	verb string // "" for synth itself
	msg  string
}

func (e *usageError) Error() string { return e.msg }

// fail is a usage error of v.
func (v *verb) fail(format string, a ...any) error {
	return &usageError{verb: v.name, msg: fmt.Sprintf(format, a...)}
}

// parse reads args: flags before, between or after the positional
// arguments, which it returns in order; after "--" everything is
// positional. -h and --help print the help to stdout and return errHelp.
func (v *verb) parse(args []string, stdout io.Writer) ([]string, error) {
	flags, tail := args, []string(nil)
	if i := slices.Index(args, "--"); i >= 0 {
		flags, tail = args[:i], args[i+1:]
	}
	var pos []string
	for rest := flags; len(rest) > 0; {
		if err := v.fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				v.usage(stdout)
				return nil, errHelp
			}
			return nil, v.flagError(err)
		}
		if v.fs.NArg() == 0 {
			break
		}
		pos = append(pos, v.fs.Arg(0))
		rest = v.fs.Args()[1:]
	}
	pos = append(pos, tail...)
	switch {
	case len(pos) < v.min:
		return nil, v.fail("give %s: synth %s %s", v.need, v.name, v.args)
	case v.max >= 0 && len(pos) > v.max:
		return nil, v.fail("unexpected argument %q: synth %s takes %s (flags come as --name value)", pos[v.max], v.name, v.takes())
	}
	return pos, nil
}

func (v *verb) takes() string {
	if v.max == 0 {
		return "no arguments"
	}
	return v.args
}

// invalidValue is how the flag package reports a value its flag refused.
var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-(\S+): (.*)$`)

// flagError turns the flag package's errors into synth's: the flag as it
// is written in the help, and the closest flag for a misspelt one.
func (v *verb) flagError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		v.fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := suggest.Closest(name, names); s != "" {
			return v.fail("unknown flag %s (did you mean %s?)", dashed(name), dashed(s))
		}
		return v.fail("unknown flag %s", dashed(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return v.fail("%s needs a value: %s %s", dashed(name), dashed(name), v.metaOf(v.fs.Lookup(name)))
	}
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		return v.fail("invalid value %s for %s: %s", m[1], dashed(m[2]), m[3])
	}
	return v.fail("%s", msg)
}

// dashed writes a flag as the help does: -o, --out.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// metaOf is what a flag's value is: the meta given, the word the usage
// quotes in `backquotes`, else one named by its type; "" for a switch.
func (v *verb) metaOf(f *flag.Flag) string {
	if f == nil {
		return "VALUE"
	}
	if m, ok := v.meta[f.Name]; ok {
		return m
	}
	name, _ := flag.UnquoteUsage(f)
	switch name {
	case "":
		return ""
	case "int", "uint":
		return "N"
	case "float":
		return "F"
	}
	return strings.ToUpper(name)
}

// usage prints v's help: the synopsis, what it does, its flags.
func (v *verb) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: synth %s\n", v.synopsis())
	if v.summary != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(sentence(v.summary), 80, ""))
	}
	for _, p := range strings.Split(v.about, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			fmt.Fprintf(w, "\n%s\n", wrap(p, 80, ""))
		}
	}
	fmt.Fprint(w, "\nFlags:\n")
	for _, f := range v.flags() {
		head := "  " + dashed(f.Name)
		if m := v.metaOf(f); m != "" {
			head += " " + m
		}
		_, text := flag.UnquoteUsage(f)
		if d := f.DefValue; d != "" && d != "0" && d != "0s" && d != "false" && d != "[]" && !strings.Contains(text, "default") {
			text += " (default " + d + ")"
		}
		if k := v.keys[f.Name]; k != "" {
			text += " [" + k + "]"
		}
		fmt.Fprintf(w, "%s\n%s\n", head, wrap(text, 80, "      "))
	}
	fmt.Fprint(w, "  -h, --help\n      print this help\n")
}

// sentence makes a summary, written to follow a command's name in a list,
// a sentence of its own.
func sentence(s string) string {
	if r, n := utf8.DecodeRuneInString(s); r >= 'a' && r <= 'z' {
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	return s + "."
}

func (v *verb) synopsis() string {
	s := v.name
	if v.args != "" {
		s += " " + v.args
	}
	n := 0
	v.fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		s += " [flags]"
	}
	return s
}

// flags lists v's flags in its order, then the rest by name.
func (v *verb) flags() []*flag.Flag {
	var out []*flag.Flag
	for _, name := range v.order {
		if f := v.fs.Lookup(name); f != nil {
			out = append(out, f)
		}
	}
	v.fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(v.order, f.Name) {
			out = append(out, f)
		}
	})
	return out
}

// env is what a command prints to, and the bounder that runs the
// commands executing someone else's code again under a memory bound.
type env struct {
	stdin          io.Reader // synth mcp's stdio transport reads the client from it
	stdout, stderr io.Writer
	b              *bounder
}

// command is a verb as main dispatches it: how to make the verb (for its
// help and the reference in docs/cli.md), how to run it, or the
// sub-commands of a group such as domain.
type command struct {
	verb func() *verb
	run  func(ctx context.Context, e env, args []string) error
	subs []command
}

// find returns the command named name among cmds.
func find(cmds []command, name string) (command, bool) {
	for _, c := range cmds {
		if last(c.verb().name) == name {
			return c, true
		}
	}
	return command{}, false
}

func last(name string) string {
	return name[strings.LastIndexByte(name, ' ')+1:]
}

func names(cmds []command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = last(c.verb().name)
	}
	return out
}

// dispatch runs the command args name among cmds, the sub-commands of
// group ("" for synth's own). It returns the full name of the verb that
// ran, for its error messages.
func dispatch(ctx context.Context, cmds []command, group string, args []string, e env) (string, error) {
	what := "command"
	if group != "" {
		what = "subcommand"
	}
	c, ok := find(cmds, args[0])
	if !ok {
		msg := fmt.Sprintf("unknown %s %q", what, args[0])
		if s := suggest.Closest(args[0], names(cmds)); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return group, &usageError{verb: group, msg: msg}
	}
	v := c.verb()
	if c.subs == nil {
		return v.name, c.run(ctx, e, args[1:])
	}
	if len(args) == 1 {
		return v.name, v.fail("give a subcommand: %s", strings.Join(names(c.subs), ", "))
	}
	if isHelp(args[1]) {
		groupUsage(e.stdout, v, c.subs)
		return v.name, errHelp
	}
	return dispatch(ctx, c.subs, v.name, args[1:], e)
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// groupUsage prints the help of a group of sub-commands.
func groupUsage(w io.Writer, v *verb, subs []command) {
	fmt.Fprintf(w, "Usage: synth %s SUBCOMMAND [flags] [arguments]\n\n%s\n", v.name, wrap(sentence(v.summary), 80, ""))
	if v.about != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(v.about, 80, ""))
	}
	fmt.Fprint(w, "\nSubcommands:\n")
	listCommands(w, subs)
	fmt.Fprintf(w, "\nRun 'synth %s SUBCOMMAND --help' for a subcommand's flags.\n", v.name)
}

// listCommands prints each command's name and summary, one a line.
func listCommands(w io.Writer, cmds []command) {
	for _, c := range cmds {
		v := c.verb()
		fmt.Fprintf(w, "  %-23s%s\n", v.name, wrap(v.summary, 80, strings.Repeat(" ", 25))[25:])
	}
}

// helpFor prints the help of the verb path names (synth help domain
// show), or says which name is wrong.
func helpFor(cmds []command, path []string, w io.Writer) error {
	group := ""
	for i, name := range path {
		c, ok := find(cmds, name)
		if !ok {
			msg := fmt.Sprintf("no command %q to show the help of", strings.TrimSpace(group+" "+name))
			if s := suggest.Closest(name, names(cmds)); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", strings.TrimSpace(group+" "+s))
			}
			return &usageError{verb: "help", msg: msg}
		}
		v := c.verb()
		if c.subs == nil || i == len(path)-1 {
			if c.subs != nil {
				groupUsage(w, v, c.subs)
			} else {
				v.usage(w)
			}
			return nil
		}
		cmds, group = c.subs, v.name
	}
	return nil
}

// exitCode prints what err says and returns synth's exit status: 0 done
// (or help printed), 1 failed, 2 called wrongly.
func exitCode(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	if ue, ok := errors.AsType[*usageError](err); ok {
		prefix, see := "synth", "synth --help"
		if ue.verb != "" {
			prefix, see = "synth "+ue.verb, "synth "+ue.verb+" --help"
		}
		fmt.Fprintf(stderr, "%s: %s\nsee %s\n", prefix, termtext.Clean(ue.msg), see)
		return 2
	}
	if es, ok := errors.AsType[exitStatus](err); ok {
		return int(es)
	}
	// Errors quote what synth read (ids, file contents, paths). A
	// package's own prefix that repeats the verb is said once.
	msg := err.Error()
	for _, p := range []string{name + ": ", last(name) + ": "} {
		msg = strings.TrimPrefix(msg, p)
	}
	fmt.Fprintf(stderr, "synth %s: %s\n", name, termtext.Clean(limitio.Clip(msg, maxErrorBytes)))
	return 1
}

// maxErrorBytes bounds the error text synth prints: a message that
// quotes megabytes of someone's text says no more than its start does.
const maxErrorBytes = 64 << 10

// cliReference is docs/cli.md: synth's help, then every verb's, as
// synth prints them (synth help --markdown).
func cliReference() string {
	var b strings.Builder
	b.WriteString("# synth command reference\n\n" +
		"What `synth COMMAND --help` prints, for every command. Generated from the flag\n" +
		"definitions by `synth help --markdown > docs/cli.md`; a test fails when this page\n" +
		"and the help differ.\n\n## synth\n\n```text\n")
	cmds := commands()
	mainUsage(&b, cmds)
	b.WriteString("```\n")
	var walk func([]command)
	walk = func(cmds []command) {
		for _, c := range cmds {
			v := c.verb()
			fmt.Fprintf(&b, "\n## synth %s\n\n```text\n", v.name)
			if c.subs != nil {
				groupUsage(&b, v, c.subs)
			} else {
				v.usage(&b)
			}
			b.WriteString("```\n")
			walk(c.subs)
		}
	}
	walk(cmds)
	return b.String()
}
