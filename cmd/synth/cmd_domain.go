package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/pipeline"
)

func cmdDomain(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("give a subcommand: synth domain list | show NAME")
	}
	switch args[0] {
	case "list":
		for _, n := range domains.Names() {
			fmt.Fprintln(stdout, n)
		}
		return nil
	case "show":
		if len(args) < 2 {
			return fmt.Errorf("give a domain name: synth domain show NAME (known: %s)", strings.Join(domains.Names(), ", "))
		}
		d, err := domains.Load(args[1], pipeline.Defaults().Seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "domain %s %s\n\ntools:\n", d.Name, d.Version)
		for _, t := range d.Tools.Tools() {
			fmt.Fprintf(stdout, "  %-32s %-8s %s\n", t.Name, t.Kind, firstSentence(t.Description))
		}
		fmt.Fprintf(stdout, "\npolicy:\n%s\n", d.Policy)
		return nil
	}
	return fmt.Errorf("unknown subcommand %q: synth domain list | show NAME", args[0])
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}
