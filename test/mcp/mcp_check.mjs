// synth's environments through an outside MCP client: the official
// TypeScript SDK's, over stdio (synth mcp) and over streamable HTTP
// (synth serve's /mcp). For each transport it lists the tools and
// compares them with the tools.json of the domain's own release (a
// built-in's tools are built from its handlers, not kept as a file), resets to a task whose
// ground truth writes, calls that ground truth's reads and writes (each
// must succeed), makes a bad call (a tool result with isError, never a
// protocol error), ends the dialogue and reads the score.
//
// Run: npm ci --prefix test/mcp, then node --test test/mcp/mcp_check.mjs
// (SYNTH_BIN names the synth binary; default bin/synth, as make builds).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const root = path.resolve(import.meta.dirname, "..", "..");
const synth = process.env.SYNTH_BIN || path.join(root, "bin", "synth");
const SEED = 7;

// The first blueprint of synth run --seed SEED whose ground truth writes
// and meets no tool failure,
// and the tool definitions that run's release carries.
function taskWithWrite(domain) {
  const dir = mkdtempSync(path.join(tmpdir(), "synth-mcp-"));
  try {
    execFileSync(synth, ["run", "--domain", domain, "-n", "12", "--seed", String(SEED), "--quiet", "--out", path.join(dir, "rel")]);
    const bps = [];
    const folder = path.join(dir, "rel", "blueprints");
    for (const f of readdirSync(folder)) {
      for (const line of gunzipSync(readFileSync(path.join(folder, f))).toString().split("\n")) {
        if (line.trim()) bps.push(JSON.parse(line));
      }
    }
    bps.sort((a, b) => a.index - b.index);
    // A task that meets a declared tool failure (tool_failures) has its
    // write fail once on purpose; this check wants every call to go through.
    const bp = bps.find((b) => b.actions.some((a) => a.kind === "write") && !(b.tool_failures || []).length);
    assert.ok(bp, `no blueprint of ${domain} seed ${SEED} writes`);
    bp.tools = JSON.parse(readFileSync(path.join(dir, "rel", "domain", "tools.json"), "utf8"));
    return bp;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function text(result) {
  assert.equal(result.content.length, 1, JSON.stringify(result));
  assert.equal(result.content[0].type, "text");
  return result.content[0].text;
}

// play drives one client through a session: list, reset, the task's
// ground truth, a bad call, the end and the score.
async function play(client, domain, bp) {
  const want = bp.tools;
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), want.map((t) => t.function.name).sort(), "tools/list is the domain's tools");
  for (const t of tools) {
    const w = want.find((x) => x.function.name === t.name).function;
    assert.equal(t.description, w.description, `${t.name}: description`);
    assert.deepEqual(t.inputSchema, w.parameters, `${t.name}: input schema`);
    assert.equal(t.annotations.readOnlyHint === true, w["x-kind"] !== "write", `${t.name}: readOnlyHint`);
  }
  const instructions = client.getInstructions();
  assert.ok(instructions && instructions.length > 100, "the instructions are the domain policy");

  const reset = await client.getPrompt({ name: "reset", arguments: { index: String(bp.index) } });
  assert.equal(reset._meta["synth/episode"].blueprint_id, bp.id);
  assert.equal(reset.messages.length, 1);
  assert.equal(reset.messages[0].role, "user");
  assert.ok(reset.messages[0].content.text.length > 0, "the customer speaks first");

  let reads = 0;
  let writes = 0;
  for (const a of bp.actions) {
    const args = typeof a.arguments === "string" ? JSON.parse(a.arguments) : a.arguments;
    const r = await client.callTool({ name: a.tool, arguments: args });
    assert.notEqual(r.isError, true, `${a.tool}(${JSON.stringify(args)}): ${text(r)}`);
    assert.ok(text(r).length > 0);
    if (a.kind === "write") writes++;
    else reads++;
  }
  assert.ok(writes > 0);

  for (const bad of [
    { name: "no_such_tool", arguments: {} },
    { name: tools[0].name, arguments: { no_such_argument: 1 } },
  ]) {
    const r = await client.callTool(bad);
    assert.equal(r.isError, true, `${bad.name}: isError`);
    assert.match(text(r), /^Error: /);
  }

  // The agent says nothing: the dialogue ends, and is scored.
  const end = await client.getPrompt({ name: "say", arguments: { message: "" } });
  assert.equal(end.messages.length, 0);
  assert.equal(end._meta["synth/step"].done, true);
  const res = await client.readResource({ uri: "synth://episode" });
  const ep = JSON.parse(res.contents[0].text);
  assert.equal(ep.blueprint_id, bp.id);
  assert.equal(ep.done, true);
  assert.ok(ep.verdict, "a finished episode has the verifier's verdict");
  assert.equal(ep.verdict.passed, false, "a dialogue without a word to the customer does not verify");
  assert.equal(ep.outcome_reward, 0);
  assert.ok(ep.progress > 0 && ep.progress <= ep.chain_length, `the ground truth's calls made progress ${ep.progress}/${ep.chain_length}`);

  // A call after the end points to the reset; a reset starts afresh.
  const after = await client.callTool({ name: bp.actions[0].tool, arguments: bp.actions[0].arguments });
  assert.equal(after.isError, true);
  assert.match(text(after), /reset/);
  await client.getPrompt({ name: "reset", arguments: {} });
  const again = JSON.parse((await client.readResource({ uri: "synth://episode" })).contents[0].text);
  assert.equal(again.done, false);
  assert.equal(again.blueprint_id, bp.id);
  console.log(`${domain}: ${tools.length} tools listed; blueprint ${bp.id}: ${reads} reads and ${writes} writes answered, 2 bad calls as isError, scored progress ${ep.progress}/${ep.chain_length}`);
}

for (const domain of ["retail", "airline"]) {
  const bp = taskWithWrite(domain);

  test(`synth mcp --domain ${domain} over stdio`, async () => {
    const transport = new StdioClientTransport({ command: synth, args: ["mcp", "--domain", domain, "--seed", String(SEED)], stderr: "inherit" });
    const client = new Client({ name: "synth-ts-check", version: "1.0.0" });
    await client.connect(transport);
    try {
      await play(client, domain, bp);
    } finally {
      await client.close();
    }
  });

  test(`synth serve /mcp?domain=${domain} over streamable HTTP`, async () => {
    const server = spawn(synth, ["serve", "--addr", "127.0.0.1:0", "--root", ""], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const base = await new Promise((resolve, reject) => {
        let out = "";
        server.stdout.on("data", (d) => {
          out += d;
          const m = out.match(/listening on (http:\/\/[0-9.:]+)/);
          if (m) resolve(m[1]);
        });
        server.on("exit", (code) => reject(new Error(`synth serve exited ${code}: ${out}`)));
      });
      const client = new Client({ name: "synth-ts-check", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp?domain=${domain}&seed=${SEED}`)));
      try {
        await play(client, domain, bp);
      } finally {
        await client.close();
      }
    } finally {
      server.kill("SIGTERM");
    }
  });
}
