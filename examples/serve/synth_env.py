#!/usr/bin/env python3
"""A gymnasium-style environment over `synth serve` (Python stdlib only).

    env = SynthEnv("http://127.0.0.1:8090")
    obs, info = env.reset(options={"domain": "retail", "seed": 7, "index": 0})
    while True:
        action = policy(info["messages"], info["tools"])   # an OpenAI assistant message
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    env.close()

reset() returns the customer's first message as the observation and, in
info, the system prompt (the domain policy), the tools in the OpenAI
format and the dialogue so far (info["messages"], ready to send to a chat
model). step(action) takes the policy's assistant message ({"role":
"assistant", "content": ..., "tool_calls": [...]}) and returns the new
messages (tool results or the customer's reply), the reward (the step's
dense reward: chain steps completed over the chain's length; plus, on the
last step, the outcome reward, 1 when the verifier passed the dialogue),
terminated (the dialogue ended), truncated (it ended at max_turns), and in
info the step's credit labels, progress and, at the end, the verdict by
check. The class keeps info["messages"] up to date, so a policy reads the
whole conversation from it.

Run as a script it replays a recorded dialogue's assistant turns (a JSON
list of messages, or an object with "messages", such as a row of `synth
export --format openai`) and prints a summary as JSON:

    python3 synth_env.py --url http://127.0.0.1:8090 --domain retail --seed 7 --index 0 --replay dialogue.json
"""

import argparse
import json
import sys
import urllib.error
import urllib.request


class SynthError(RuntimeError):
    """A request the environment refused: status, message and the field at fault."""

    def __init__(self, status, message, field=None):
        super().__init__(f"{status} {field or ''}: {message}")
        self.status, self.message, self.field = status, message, field


class SynthEnv:
    """One `synth serve` session at a time, in the gymnasium Env shape."""

    def __init__(self, base_url="http://127.0.0.1:8090", timeout=120.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session_id = None
        self.messages = []
        self.tools = []

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            try:
                err = json.loads(e.read()).get("error", {})
            except ValueError:
                err = {}
            raise SynthError(e.code, err.get("message", e.reason), err.get("field")) from None

    def reset(self, *, seed=None, options=None):
        """Start a session. options: {"domain", "seed", "index"} (blueprint
        index of `synth run --domain D --seed S`) or {"release",
        "blueprint_id"}; seed, when given, overrides options["seed"]."""
        self.close()
        req = dict(options or {})
        if seed is not None:
            req["seed"] = seed
        r = self._call("POST", "/v1/sessions", req)
        self.session_id = r["session_id"]
        self.messages = list(r["messages"])
        self.tools = r["tools"]
        info = {k: r[k] for k in ("session_id", "blueprint_id", "domain", "split", "behavior", "system", "max_turns")}
        info.update(tools=self.tools, messages=self.messages, done=r["done"])
        return r["observation"], info

    def step(self, action):
        """Take the policy's assistant message; returns (observation,
        reward, terminated, truncated, info)."""
        if self.session_id is None:
            raise RuntimeError("step before reset")
        r = self._call("POST", f"/v1/sessions/{self.session_id}/step", {"message": action})
        self.messages.extend(r["assistant"])
        self.messages.extend(r["observation"])
        reward = r["reward"]
        done = r["done"]
        if done:
            reward += r["outcome_reward"]
        truncated = done and r.get("ending") == "max_turns"
        info = {k: r.get(k) for k in ("labels", "progress", "chain_length", "ending", "guard", "verdict",
                                      "outcome_reward", "dialogue_labels")}
        info["messages"] = self.messages
        return r["observation"], reward, done and not truncated, truncated, info

    def close(self):
        """End the session (the server reaps idle ones anyway)."""
        if self.session_id is not None:
            try:
                self._call("DELETE", f"/v1/sessions/{self.session_id}")
            except SynthError:
                pass
            self.session_id = None


def replay_policy(recorded):
    """A policy that says the recorded dialogue's assistant messages in order."""
    turns = iter([m for m in recorded if m.get("role") == "assistant"])

    def policy(_messages, _tools):
        return next(turns, {"role": "assistant", "content": ""})

    return policy


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8090")
    ap.add_argument("--domain")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--index", type=int)
    ap.add_argument("--release")
    ap.add_argument("--blueprint-id")
    ap.add_argument("--replay", required=True, help="JSON file of the dialogue whose assistant turns to say")
    a = ap.parse_args(argv)
    with open(a.replay) as f:
        recorded = json.loads(f.readline() if a.replay.endswith(".jsonl") else f.read())
    if isinstance(recorded, dict):
        recorded = recorded["messages"]
    if a.release:
        options = {"release": a.release, "blueprint_id": a.blueprint_id}
    else:
        options = {"domain": a.domain, "seed": a.seed, "index": a.index}
    env = SynthEnv(a.url)
    policy = replay_policy(recorded)
    _, info = env.reset(options=options)
    total, steps, done = 0.0, 0, info["done"]
    while not done:
        _, reward, terminated, truncated, step_info = env.step(policy(info["messages"], info["tools"]))
        total += reward
        steps += 1
        done = terminated or truncated
        info.update(step_info)
    env.close()
    verdict = info.get("verdict") or {}
    json.dump({"blueprint_id": info["blueprint_id"], "steps": steps, "return": total,
               "outcome_reward": info.get("outcome_reward"), "passed": verdict.get("passed"),
               "ending": info.get("ending")}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
