#!/usr/bin/env python3
"""How a release talks: distinct-2, proposals read out as fields, reads per write.

Usage: synth export REL --format jsonl -o EX; scripts/talk-stats.py EX REL [EX REL ...]

distinct-2 is unique word bigrams / all word bigrams over all user (agent)
messages. A proposal is the agent's message that a user message and then a
write call follow; a field is a "name: value" clause in it ("cabin: economy;").
Reads per write counts the read and write calls the dialogues make (kinds
from the release's domain/tools.json), beside the blueprints' n_reads/n_writes.
"""
import glob
import json
import re
import sys

FIELD = re.compile(r"(?:^|[;—]\s*|\.\s+|with these details\s*—?\s*)([a-z][a-z _]{0,30}):\s+\S")


def distinct2(texts):
    total, uniq = 0, set()
    for t in texts:
        w = [x.strip(".,") for x in re.findall(r"[\w'$.,-]+", t.lower())]
        for pair in zip(w, w[1:]):
            total += 1
            uniq.add(pair)
    return len(uniq) / max(total, 1)


def measure(ex, rel):
    kinds = {t["function"]["name"]: t["function"].get("x-kind") for t in json.load(open(rel + "/domain/tools.json"))}
    users, agents = [], []
    rows = props = fields1 = fields3 = rcalls = wcalls = bp_reads = bp_writes = 0
    for f in sorted(glob.glob(ex + "/sft/*.jsonl")):
        for line in open(f):
            r = json.loads(line)
            rows += 1
            bp_reads += r["n_reads"]
            bp_writes += r["n_writes"]
            ms = r["messages"]
            for i, m in enumerate(ms):
                if m["role"] == "user":
                    users.append(m["content"])
                if m["role"] != "assistant":
                    continue
                for c in m.get("tool_calls") or []:
                    k = kinds.get(c["function"]["name"])
                    rcalls += k == "read"
                    wcalls += k == "write"
                if not m.get("content"):
                    continue
                agents.append(m["content"])
                if i + 2 < len(ms) and ms[i + 1]["role"] == "user" and ms[i + 2]["role"] == "assistant":
                    if any(kinds.get(c["function"]["name"]) == "write" for c in ms[i + 2].get("tool_calls") or []):
                        props += 1
                        n = len(FIELD.findall(m["content"]))
                        fields1 += n >= 1
                        fields3 += n >= 3
    print(f"{ex}: rows {rows}  user distinct-2 {distinct2(users):.3f}  agent distinct-2 {distinct2(agents):.3f}  "
          f"proposals {props}: >=3 fields {fields3} ({fields3 / max(props, 1):.0%}), >=1 field {fields1} ({fields1 / max(props, 1):.0%})  "
          f"reads/write {rcalls / max(wcalls, 1):.2f} ({rcalls}/{wcalls}), blueprints {bp_reads / max(bp_writes, 1):.2f}")


if __name__ == "__main__":
    a = sys.argv[1:]
    if not a or len(a) % 2:
        sys.exit(__doc__)
    for ex, rel in zip(a[::2], a[1::2]):
        measure(ex, rel)
