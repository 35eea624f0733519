// duckdb_check.mjs checks that a synth release loads in DuckDB the way
// users query it (the queries of the dataset card): the sft config's column
// types (format 2: messages and tools are lists of JSON objects), its row
// count, and the invariants chat templates rely on (messages with only
// their own keys and no nulls, content a string, 9-alphanumeric tool-call
// ids, arguments a JSON object, tool messages naming their call and tool).
//
// Usage: node duckdb_check.mjs RELEASE_DIR [--rows N] [--readme FILE]
//
// --readme FILE also runs every ```sql block of FILE (the README's
// Quickstart query) on the release, its path to sft/*.parquet pointed at
// RELEASE_DIR, and fails when it returns no rows or a value still in its
// JSON quotes ("user" where a reader wants user).
//
// The expected row count is --rows N, else counts.sft_rows from
// RELEASE_DIR/manifest.json when present; without either the count is
// reported but not checked. Prints a one-line JSON summary on stdout and
// exits 1, naming every failed check on stderr, if anything is wrong.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";

function usage(msg) {
  console.error(`duckdb_check: ${msg}\nusage: node duckdb_check.mjs RELEASE_DIR [--rows N] [--readme FILE]`);
  process.exit(2);
}

function parseArgs(argv) {
  let dir;
  let rows;
  let readme;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--readme") {
      readme = argv[++i];
      if (readme === undefined) usage("--readme needs a file");
    } else if (a === "--rows") {
      const v = argv[++i];
      if (v === undefined || !/^\d+$/.test(v)) usage(`--rows needs a non-negative integer, got ${v}`);
      rows = Number(v);
    } else if (a.startsWith("-")) {
      usage(`unknown flag ${a}`);
    } else if (dir === undefined) {
      dir = a;
    } else {
      usage(`unexpected argument ${a}`);
    }
  }
  if (dir === undefined) usage("missing RELEASE_DIR");
  return { dir: resolve(dir), rows, readme };
}

// readmeQueries returns the ```sql blocks of a Markdown file, each with
// its path to a release's sft/*.parquet replaced by sftGlob.
function readmeQueries(file, sftGlob) {
  const text = readFileSync(file, "utf8");
  const blocks = [...text.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks.map((sql) => sql.replace(/'[^']*\/sft\/\*\.parquet'/g, sqlString(sftGlob)));
}

// expectedRows returns the row count to check against, and where it came from.
function expectedRows(dir, flag) {
  if (flag !== undefined) return { rows: flag, source: "--rows" };
  const manifest = join(dir, "manifest.json");
  if (!existsSync(manifest)) return { rows: undefined, source: "none" };
  let m;
  try {
    m = JSON.parse(readFileSync(manifest, "utf8"));
  } catch (e) {
    throw new Error(`${manifest}: not valid JSON: ${e.message}`);
  }
  const n = m?.counts?.sft_rows;
  if (n === undefined) return { rows: undefined, source: "none" };
  if (!Number.isInteger(n) || n < 0) throw new Error(`${manifest}: counts.sft_rows is ${JSON.stringify(n)}, want a count`);
  return { rows: n, source: "manifest.json" };
}

// The types DuckDB must see: a Parquet JSON column reads as JSON.
const WANT_TYPES = {
  id: "VARCHAR",
  blueprint_id: "VARCHAR",
  domain: "VARCHAR",
  messages: "JSON[]",
  tools: "JSON[]",
  n_writes: "INTEGER",
  n_reads: "INTEGER",
  evidence: "INTEGER[]",
  behavior: "VARCHAR",
  engine: "VARCHAR",
  kind: "VARCHAR",
  labels: "JSON",
};

// The keys a message may have; anything else, or a null, breaks templates.
// weight (0) marks a recovery row's mistake turns, which templates ignore.
const MESSAGE_KEYS = "['role', 'content', 'reasoning_content', 'tool_calls', 'tool_call_id', 'name', 'weight']";

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const sftDir = join(args.dir, "sft");
  if (!existsSync(sftDir)) throw new Error(`${sftDir}: no such directory; is ${args.dir} a synth release?`);
  const files = readdirSync(sftDir).filter((f) => f.endsWith(".parquet") && !f.startsWith("."));
  if (files.length === 0) throw new Error(`${sftDir}: no .parquet files`);
  const expected = expectedRows(args.dir, args.rows);

  const src = `read_parquet(${sqlString(join(sftDir, "*.parquet"))})`;
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  const query = async (sql) => (await conn.runAndReadAll(sql)).getRowObjects();
  const one = async (sql) => {
    const [row] = await query(sql);
    // COUNT(*) arrives as a BigInt.
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]));
  };

  const failures = [];
  const fail = (msg) => failures.push(msg);

  const described = await query(`DESCRIBE SELECT * FROM ${src}`);
  const types = Object.fromEntries(described.map((r) => [r.column_name, String(r.column_type).replaceAll('"', "")]));
  for (const [col, want] of Object.entries(WANT_TYPES)) {
    if (!(col in types)) fail(`column ${col} is missing`);
    else if (types[col] !== want) fail(`column ${col} has type ${types[col]}, want ${want}`);
  }
  for (const col of Object.keys(types)) {
    if (!(col in WANT_TYPES)) fail(`unexpected column ${col}`);
  }

  const { rows } = await one(`SELECT count(*) AS rows FROM ${src}`);
  if (expected.rows !== undefined && rows !== expected.rows) {
    fail(`sft has ${rows} rows, ${expected.source} says ${expected.rows}`);
  }

  const msgs = `(SELECT unnest(messages) AS m FROM ${src})`;
  const m = await one(`
    SELECT count(*) AS messages,
           count(*) FILTER (WHERE (m->>'role') IS NULL OR (m->>'role') NOT IN ('system', 'user', 'assistant', 'tool')) AS bad_roles,
           count(*) FILTER (WHERE json_type(m, '$.content') IS DISTINCT FROM 'VARCHAR') AS null_content,
           count(*) FILTER (WHERE len(list_filter(json_keys(m), k -> NOT list_contains(${MESSAGE_KEYS}, k))) > 0) AS foreign_keys,
           count(*) FILTER (WHERE len(list_filter(json_keys(m), k -> json_type(m, '$."' || k || '"') = 'NULL')) > 0) AS null_keys,
           count(*) FILTER (WHERE (m->>'role') = 'tool') AS tool_messages,
           count(*) FILTER (WHERE (m->>'role') = 'tool' AND (coalesce((m->>'tool_call_id'), '') = '' OR coalesce((m->>'name'), '') = '')) AS bad_tool_messages
    FROM ${msgs}`);
  if (m.bad_roles) fail(`${m.bad_roles} messages have a role other than system/user/assistant/tool`);
  if (m.null_content) fail(`${m.null_content} messages have no string content (chat templates need "")`);
  if (m.foreign_keys) fail(`${m.foreign_keys} messages have keys a message does not have`);
  if (m.null_keys) fail(`${m.null_keys} messages have a key holding null`);
  if (m.bad_tool_messages) fail(`${m.bad_tool_messages} tool messages lack tool_call_id or name`);

  const tc = await one(`
    SELECT count(*) AS tool_calls,
           count(*) FILTER (WHERE NOT coalesce(regexp_full_match((c->>'id'), '[A-Za-z0-9]{9}'), false)) AS bad_ids,
           count(*) FILTER (WHERE (c->>'type') IS DISTINCT FROM 'function') AS bad_types,
           count(*) FILTER (WHERE coalesce((c->>'$.function.name'), '') = '') AS missing_names,
           count(*) FILTER (WHERE json_type(c, '$.function.arguments') IS DISTINCT FROM 'OBJECT') AS bad_arguments
    FROM (SELECT unnest(from_json((m->'tool_calls'), '["json"]')) AS c FROM ${msgs} WHERE (m->'tool_calls') IS NOT NULL)`);
  if (tc.bad_ids) fail(`${tc.bad_ids} tool calls have an id that is not 9 alphanumerics`);
  if (tc.bad_types) fail(`${tc.bad_types} tool calls have a type other than "function"`);
  if (tc.missing_names) fail(`${tc.missing_names} tool calls have no function name`);
  if (tc.bad_arguments) fail(`${tc.bad_arguments} tool calls have arguments that are not a JSON object`);

  // The tools: each an OpenAI function tool.
  const tl = await one(`
    SELECT count(*) AS rows_without_tools,
           (SELECT count(*) FROM (SELECT unnest(tools) AS t FROM ${src}) WHERE (t->>'type') IS DISTINCT FROM 'function' OR coalesce((t->>'$.function.name'), '') = '') AS bad_tools
    FROM ${src} WHERE len(tools) = 0`);
  if (tl.bad_tools) fail(`${tl.bad_tools} tools are not {"type": "function", "function": {"name": ...}}`);

  // The dpo config, when the release has one: its columns, its row count
  // against the manifest, and the pair invariants DPO trainers rely on.
  let dpo = null;
  const dpoDir = join(args.dir, "dpo");
  if (existsSync(dpoDir)) {
    const dsrc = `read_parquet(${sqlString(join(dpoDir, "*.parquet"))})`;
    const ddesc = await query(`DESCRIBE SELECT * FROM ${dsrc}`);
    const dtypes = Object.fromEntries(ddesc.map((r) => [r.column_name, String(r.column_type).replaceAll('"', "")]));
    const WANT_DPO = {
      id: "VARCHAR", blueprint_id: "VARCHAR", domain: "VARCHAR", prompt: "JSON[]", chosen: "JSON[]",
      rejected: "JSON[]", tools: "JSON[]", failure: "VARCHAR", divergence_turn: "INTEGER",
    };
    for (const [col, want] of Object.entries(WANT_DPO)) {
      if (dtypes[col] !== want) fail(`dpo column ${col} has type ${dtypes[col]}, want ${want}`);
    }
    dpo = await one(`
      SELECT count(*) AS pairs,
             count(*) FILTER (WHERE (prompt[len(prompt)]->>'role') NOT IN ('user', 'tool')) AS bad_prompt_end,
             count(*) FILTER (WHERE (chosen[1]->>'role') <> 'assistant' OR (rejected[1]->>'role') <> 'assistant') AS bad_starts,
             count(*) FILTER (WHERE chosen = rejected) AS identical,
             count(DISTINCT failure) AS failure_types
      FROM ${dsrc}`);
    const un = await one(`
      SELECT (SELECT count(*) FROM (SELECT unnest(prompt) FROM ${dsrc})) AS prompt_messages,
             (SELECT count(*) FROM (SELECT unnest(chosen) FROM ${dsrc})) AS chosen_messages,
             (SELECT count(*) FROM (SELECT unnest(rejected) FROM ${dsrc})) AS rejected_messages,
             (SELECT count(*) FROM (SELECT unnest(from_json((c->'tool_calls'), '["json"]')) FROM (SELECT unnest(rejected) AS c FROM ${dsrc}))) AS rejected_tool_calls`);
    Object.assign(dpo, un);
    if (dpo.bad_prompt_end) fail(`${dpo.bad_prompt_end} DPO prompts do not end with a user or tool message`);
    if (dpo.bad_starts) fail(`${dpo.bad_starts} DPO pairs do not start chosen and rejected with an assistant message`);
    if (dpo.identical) fail(`${dpo.identical} DPO pairs have chosen equal to rejected`);
    const manifest = join(args.dir, "manifest.json");
    if (existsSync(manifest)) {
      const want = JSON.parse(readFileSync(manifest, "utf8"))?.counts?.dpo_pairs;
      if (want !== undefined && want !== dpo.pairs) fail(`dpo has ${dpo.pairs} rows, manifest.json says ${want}`);
    }
  }

  let readmeRows = null;
  if (args.readme) {
    const queries = readmeQueries(args.readme, join(sftDir, "*.parquet"));
    if (queries.length === 0) fail(`${args.readme} has no \`\`\`sql block to run`);
    readmeRows = 0;
    for (const sql of queries) {
      let got;
      try {
        got = await query(sql);
      } catch (e) {
        fail(`${args.readme}'s query fails: ${e.message}\n${sql}`);
        continue;
      }
      readmeRows += got.length;
      if (got.length === 0) fail(`${args.readme}'s query returns no rows:\n${sql}`);
      const quoted = got.flatMap((r) => Object.values(r)).filter((v) => typeof v === "string" && /^"[\s\S]*"$/.test(v));
      if (quoted.length > 0) fail(`${args.readme}'s query returns values in their JSON quotes (${quoted[0].slice(0, 40)}): use ->> to read a JSON field as text\n${sql}`);
    }
  }

  conn.closeSync();
  instance.closeSync();

  const summary = {
    ok: failures.length === 0,
    dir: args.dir,
    files: files.length,
    rows,
    expected_rows: expected.rows ?? null,
    messages: m.messages,
    tool_messages: m.tool_messages,
    tool_calls: tc.tool_calls,
  };
  if (dpo) summary.dpo = dpo;
  if (readmeRows !== null) summary.readme_rows = readmeRows;
  if (failures.length > 0) summary.failures = failures;
  console.log(JSON.stringify(summary));
  if (failures.length > 0) {
    for (const f of failures) console.error(`duckdb_check: FAIL: ${f}`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(`duckdb_check: FAIL: ${e.message}`);
  process.exit(1);
});
