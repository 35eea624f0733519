// render_check.mjs renders every row of synth releases through every chat
// template in ../shared/chat_templates (or $SYNTH_CHAT_TEMPLATES) with
// @huggingface/jinja, the way TRL's trainers would after loading the rows
// with Hugging Face datasets, and compares each rendering with the
// canonical conversation's.
//
// Usage: node render_check.mjs --synth BIN [--expect-fail] RELEASE_DIR...
//
// What a row goes through, reproduced from the sources (datasets @b7cb10b,
// 5.0.x; TRL @f2cd577; vLLM's chat_utils):
//
//  1. datasets' Parquet builder (packaged_modules/parquet/parquet.py) takes
//     the features from the first file: Features.from_arrow_schema(
//     pq.read_schema(f)). pyarrow's schema is the Parquet schema with the
//     stored Arrow schema (ARROW:schema) applied: a string column whose
//     stored field is the arrow.json extension is restored as arrow.json
//     (parquet/arrow/schema.cc, ApplyOriginalMetadata); without a stored
//     schema a Parquet JSON column reads as utf8 (extensions are off by
//     default). from_arrow_schema then uses the "huggingface" metadata's
//     feature for a column when its Arrow type equals the column's, else
//     generate_from_arrow_type: struct → dict of features, list → List,
//     arrow.json → Json(), anything else → Value.
//  2. Rows come out through the Python formatter (pa.Table.to_pylist, then
//     Features.decode_example → decode_nested_example): a struct gives a
//     dict with every field of the struct, None where the value is null
//     (so every message of a struct column carries every key); a list
//     gives a list; a Json() value is decoded with pandas' ujson_loads,
//     and a null one raises before datasets 5.0 (Json.decode_example ran
//     ujson_loads(None)), so a null in a Json() column is a failure here.
//     The values themselves are read here with DuckDB, which returns the
//     same things: struct rows as objects with every key, JSON as text.
//  3. TRL (trainer/sft_trainer.py and dpo_trainer.py, tokenize_fn) passes
//     example["tools"] (json.loads'ed when it is a string) and the
//     messages as they are (no None stripping since TRL 1.0, MIGRATION.md)
//     to tokenizer.apply_chat_template, which renders the template with
//     messages, tools, add_generation_prompt and the special tokens. SFT
//     renders messages; DPO renders prompt with add_generation_prompt and
//     prompt+chosen, prompt+rejected, and takes the completion as what
//     follows the prompt's tokens, so the prompt's rendering must be a
//     prefix of both (checked here on the text).
//
// The canonical conversation is what a server hands the same template at
// inference: the OpenAI messages as `synth export --format jsonl` writes
// them (the Chat Completions wire shape), with vLLM's _postprocess_messages
// applied (each call's arguments json.loads'ed into an object, {} when
// empty), and the tools array. A row passes when its loaded rendering is
// exactly the canonical one under every template, with no exception, and,
// for DPO, the prompt's rendering is a prefix of prompt+chosen's and of
// prompt+rejected's. A few templates are not prefix-preserving by their
// own design (the canonical conversation breaks exactly the same way);
// prefix_exceptions.json names them with the reason (docs/trainers/trl.md
// lists the same), and their breaks are counted apart
// (template_prefix_breaks) instead of failing. A break the canonical
// conversation does not share always fails, and so does an exception
// whose template kept the prefix in every pair checked: the list holds
// exactly the templates that cannot. Per template, dpo_prefix_kept counts
// the pairs whose prompt stays a prefix of both sides.
//
// Prints one JSON summary line per release and exits 1 on any failure
// (with --expect-fail: exits 1 unless some row fails, which is how make
// test checks that the check catches the format-1 rows it was written
// for). Without the templates folder it says so and exits 0, or 1 when
// SYNTH_REQUIRE_TEMPLATES=1.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DuckDBInstance } from "@duckdb/node-api";
import { Template } from "@huggingface/jinja";
import { tableFromIPC } from "apache-arrow";

const here = dirname(fileURLToPath(import.meta.url));

function usage(msg) {
  console.error(`render_check: ${msg}\nusage: node render_check.mjs --synth BIN [--expect-fail] RELEASE_DIR...`);
  process.exit(2);
}

function parseArgs(argv) {
  const a = { dirs: [], expectFail: false, synth: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--synth") a.synth = argv[++i];
    else if (argv[i] === "--expect-fail") a.expectFail = true;
    else if (argv[i].startsWith("-")) usage(`unknown flag ${argv[i]}`);
    else a.dirs.push(resolve(argv[i]));
  }
  if (!a.synth) usage("missing --synth BIN");
  if (a.dirs.length === 0) usage("missing RELEASE_DIR");
  return a;
}

function loadTemplates() {
  const dir = process.env.SYNTH_CHAT_TEMPLATES || resolve(here, "../../../shared/chat_templates");
  if (!existsSync(dir)) return { dir, templates: null };
  const templates = readdirSync(dir)
    .filter((f) => f.endsWith(".jinja"))
    .sort()
    .map((f) => ({ name: f.replace(/\.jinja$/, ""), tmpl: new Template(readFileSync(join(dir, f), "utf8")) }));
  const exceptions = JSON.parse(readFileSync(join(here, "prefix_exceptions.json"), "utf8"));
  for (const t of templates) t.prefixException = exceptions[t.name];
  return { dir, templates };
}

// render is transformers' apply_chat_template(tokenize=False): the template
// with messages, tools, add_generation_prompt and the tokenizer's special
// tokens (fixed stand-ins here, the same on both sides). strftime_now is
// @huggingface/jinja's own, as transformers defines its own.
function render(t, messages, tools, addGenerationPrompt, kwargs) {
  return t.render({
    bos_token: "<|bos|>",
    eos_token: "<|eos|>",
    ...(kwargs ?? {}),
    messages,
    tools: tools ?? undefined,
    add_generation_prompt: addGenerationPrompt,
  });
}

// ---- 1. the features datasets would give each column -------------------

// arrowSchemaOf decodes the stored Arrow schema (an IPC schema message,
// base64) into a type tree: {kind: "struct", fields}, {kind: "list",
// elem}, {kind: "json"} or {kind: "value", dtype}.
function arrowTree(type, meta) {
  if (meta?.get("ARROW:extension:name") === "arrow.json") return { kind: "json" };
  const id = type.typeId;
  const name = String(type);
  if (type.children && name.startsWith("Struct")) {
    return { kind: "struct", fields: type.children.map((f) => ({ name: f.name, t: arrowTree(f.type, f.metadata) })) };
  }
  if (type.children && name.startsWith("List")) {
    const f = type.children[0];
    return { kind: "list", elem: arrowTree(f.type, f.metadata) };
  }
  return { kind: "value", dtype: name, id };
}

function storedSchema(b64) {
  const msg = Buffer.from(b64, "base64");
  // An IPC stream: the schema message, then the end-of-stream marker.
  const eos = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
  const table = tableFromIPC(Buffer.concat([msg, eos]));
  const out = {};
  for (const f of table.schema.fields) out[f.name] = arrowTree(f.type, f.metadata);
  return out;
}

// parquetTree rebuilds a column's type from parquet_schema() rows the way
// pyarrow does without a stored schema: JSON and strings as utf8.
function parquetTrees(rows) {
  let i = 1; // row 0 is the schema root
  function node() {
    const r = rows[i++];
    const n = Number(r.num_children ?? 0);
    if (n === 0) {
      const str = r.type === "BYTE_ARRAY" && (r.converted_type === "UTF8" || r.converted_type === "JSON");
      return { name: r.name, t: { kind: "value", dtype: str ? "Utf8" : String(r.type) } };
    }
    const kids = [];
    for (let k = 0; k < n; k++) kids.push(node());
    if (r.converted_type === "LIST" || String(r.logical_type ?? "").includes("List")) {
      // list > repeated group list > element
      return { name: r.name, t: { kind: "list", elem: kids[0].t.kind === "struct" && kids[0].t.fields.length === 1 ? kids[0].t.fields[0].t : kids[0].t } };
    }
    return { name: r.name, t: { kind: "struct", fields: kids.map((k) => ({ name: k.name, t: k.t })) } };
  }
  const out = {};
  const root = Number(rows[0].num_children);
  for (let k = 0; k < root; k++) {
    const c = node();
    out[c.name] = c.t;
  }
  return out;
}

// pyarrowType applies the stored type over the Parquet one: arrow.json is
// restored where the Parquet leaf is a string (ApplyOriginalMetadata).
function pyarrowType(stored, parquet) {
  if (!stored) return parquet;
  if (stored.kind === "json") return parquet.kind === "value" && parquet.dtype === "Utf8" ? { kind: "json" } : parquet;
  if (stored.kind === "list" && parquet.kind === "list") return { kind: "list", elem: pyarrowType(stored.elem, parquet.elem) };
  if (stored.kind === "struct" && parquet.kind === "struct" && stored.fields.length === parquet.fields.length) {
    return { kind: "struct", fields: parquet.fields.map((f, i) => ({ name: f.name, t: pyarrowType(stored.fields[i].t, f.t) })) };
  }
  return parquet;
}

// featureOfHF turns a Features.to_dict entry into the same type tree.
function featureOfHF(f) {
  if (f === undefined) return undefined;
  if (f._type === "Json") return { kind: "json" };
  if (f._type === "List" || f._type === "Sequence") return { kind: "list", elem: featureOfHF(f.feature) };
  if (f._type === "Value") return { kind: "value", dtype: f.dtype };
  if (!f._type) return { kind: "struct", fields: Object.entries(f).map(([name, v]) => ({ name, t: featureOfHF(v) })) };
  return { kind: "other", type: f._type };
}

// sameKind compares two trees as Arrow would compare the types, for the
// purpose here: structure and JSON-ness (Value dtypes are not decoded).
function sameKind(a, b) {
  if (!a || !b || a.kind !== b.kind) return false;
  if (a.kind === "list") return sameKind(a.elem, b.elem);
  if (a.kind === "struct") return a.fields.length === b.fields.length && a.fields.every((f, i) => f.name === b.fields[i].name && sameKind(f.t, b.fields[i].t));
  return true;
}

async function featuresOf(conn, file) {
  const kv = Object.fromEntries(
    (await conn.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sql(file)})`))
      .getRowObjectsJS()
      .map((r) => [r.k, r.v]),
  );
  const pq = parquetTrees((await conn.runAndReadAll(`SELECT * FROM parquet_schema(${sql(file)})`)).getRowObjectsJS());
  const stored = kv["ARROW:schema"] ? storedSchema(kv["ARROW:schema"]) : {};
  const hf = kv.huggingface ? JSON.parse(kv.huggingface)?.info?.features ?? {} : {};
  const features = {};
  for (const [col, ptype] of Object.entries(pq)) {
    const arrow = pyarrowType(stored[col], ptype);
    const meta = featureOfHF(hf[col]);
    features[col] = meta && sameKind(meta, arrow) ? meta : arrow;
  }
  return features;
}

const sql = (s) => `'${s.replaceAll("'", "''")}'`;

// ---- 2. decoding a row as datasets does ---------------------------------

class LoadError extends Error {}

function decode(feature, v, path) {
  if (v === null || v === undefined) {
    if (feature.kind === "json") throw new LoadError(`${path}: a null Json() value (datasets < 5.0 raises decoding it)`);
    return null;
  }
  switch (feature.kind) {
    case "json": {
      checkNumbers(v, path);
      return JSON.parse(v);
    }
    case "list":
      return Array.from(v, (x, i) => decode(feature.elem, x, `${path}[${i}]`));
    case "struct": {
      const out = {};
      for (const f of feature.fields) out[f.name] = decode(f.t, v[f.name] ?? null, `${path}.${f.name}`);
      return out;
    }
    default:
      return typeof v === "bigint" ? Number(v) : v;
  }
}

// checkNumbers fails a JSON text holding a number that pandas'
// ujson_loads (precise_float=False, what datasets decodes Json() with) may
// not read back as JSON.parse does: an integer beyond 2^53 (ujson keeps it
// exact, but the renderings compared here and any JavaScript consumer
// cannot; beyond ±2^63 ujson raises), or a fraction its fast path gets an
// ulp off (ujsonNumber).
function checkNumbers(text, path) {
  // Numbers outside strings: a string is skipped whole, escapes included.
  for (const m of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    const tok = m[0];
    if (tok.startsWith('"')) continue;
    const want = Number(tok);
    const exact = /^-?\d+$/.test(tok) ? Number.isSafeInteger(want) : ujsonNumber(tok) === want;
    if (!exact) throw new LoadError(`${path}: number ${tok} may not survive datasets' ujson decoding`);
  }
}

// ujsonNumber is ultrajsondec.c's decode_numeric without precise_float on
// a number with a fraction or an exponent: the integer part as a uint64,
// up to 15 fraction digits as a double, intValue + frac * g_pow10[n]
// (createDouble), then times pow(10, exp). The exponent is taken only
// where 10^exp is exact (0..22), so pow's rounding cannot differ; any
// other exponent gives NaN, which fails.
const ujsonPow10 = [1, 0.1, 0.01, 0.001, 0.0001, 0.00001, 0.000001, 0.0000001, 0.00000001, 0.000000001, 0.0000000001, 0.00000000001, 0.000000000001, 0.0000000000001, 0.00000000000001, 0.000000000000001];
function ujsonNumber(tok) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(tok);
  const iv = BigInt(m[2]);
  if (iv >= (m[1] ? 1n << 63n : 1n << 64n)) return NaN; // "Value is too big!" / "too small"
  let frac = 0;
  let n = 0;
  for (const d of m[3] ?? "") {
    if (n < 15) {
      frac = frac * 10 + Number(d);
      n++;
    }
  }
  let v = (Number(iv) + frac * ujsonPow10[n]) * (m[1] ? -1 : 1);
  if (m[4] !== undefined) {
    const e = Number(m[4]);
    if (e < 0 || e > 22) return NaN;
    v *= Number(`1e${e}`);
  }
  return v;
}

// trlTools is TRL's tokenize_fn: json.loads a string tools column.
const trlTools = (t) => (typeof t === "string" ? JSON.parse(t) : t);

// ---- the canonical conversation ------------------------------------------

// vllmMessages is vLLM's _postprocess_messages on wire messages.
function vllmMessages(msgs) {
  return msgs.map((m) => {
    const out = { ...m };
    if (out.role === "assistant" && Array.isArray(out.tool_calls)) {
      if (out.tool_calls.length === 0) delete out.tool_calls;
      else
        out.tool_calls = out.tool_calls.map((c) => {
          const fn = { ...c.function };
          if (fn.arguments && typeof fn.arguments === "string") {
            try {
              fn.arguments = JSON.parse(fn.arguments);
            } catch {
              // A model's malformed call stays the text it was.
            }
          } else if (!fn.arguments) fn.arguments = {};
          return { ...c, function: fn };
        });
    }
    return out;
  });
}

function canonicalRows(synth, release) {
  const tmp = mkdtempSync(join(tmpdir(), "synth-render-"));
  try {
    execFileSync(synth, ["export", release, "--format", "jsonl", "-o", tmp], { stdio: ["ignore", "ignore", "inherit"] });
    const rows = { sft: new Map(), dpo: new Map() };
    for (const config of ["sft", "dpo"]) {
      const d = join(tmp, config);
      if (!existsSync(d)) continue;
      for (const f of readdirSync(d).sort()) {
        for (const line of readFileSync(join(d, f), "utf8").split("\n")) {
          if (line === "") continue;
          const r = JSON.parse(line);
          rows[config].set(r.id, r);
        }
      }
    }
    return rows;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- 3. rendering and comparing -----------------------------------------

function checkRelease(conn, templates, canonical, release) {
  return async () => {
    const summary = { release, sft_rows: 0, dpo_rows: 0, templates: {} };
    for (const t of templates) summary.templates[t.name] = { rendered: 0, failures: 0, template_prefix_breaks: 0, dpo_prefix_kept: 0, examples: [] };
    const fail = (t, id, what) => {
      const s = summary.templates[t.name];
      s.failures++;
      if (s.examples.length < 3) s.examples.push(`${id}: ${what}`.slice(0, 300));
    };
    for (const config of ["sft", "dpo"]) {
      const dir = join(release, config);
      if (!existsSync(dir)) continue;
      const files = readdirSync(dir).filter((f) => f.endsWith(".parquet") && !f.startsWith(".")).sort();
      if (files.length === 0) continue;
      // datasets takes the features from the first file that has them.
      const features = await featuresOf(conn, join(dir, files[0]));
      for (const f of files) {
        const raw = (await conn.runAndReadAll(`SELECT * FROM read_parquet(${sql(join(dir, f))})`)).getRowObjectsJS();
        for (const rawRow of raw) {
          const id = rawRow.id;
          const want = canonical[config].get(id);
          if (config === "sft") summary.sft_rows++;
          else summary.dpo_rows++;
          let row;
          let loadErr;
          try {
            row = {};
            for (const [col, feat] of Object.entries(features)) row[col] = decode(feat, rawRow[col], `${config}.${col}`);
          } catch (e) {
            loadErr = e;
          }
          for (const t of templates) {
            if (loadErr) {
              fail(t, id, `load: ${loadErr.message}`);
              continue;
            }
            if (!want) {
              fail(t, id, "no canonical row in the jsonl export");
              continue;
            }
            let failed = false;
            try {
              const kept = checkRow(
                t,
                config,
                row,
                want,
                (what) => {
                  failed = true;
                  fail(t, id, what);
                },
                () => summary.templates[t.name].template_prefix_breaks++,
              );
              if (config === "dpo" && kept) summary.templates[t.name].dpo_prefix_kept++;
            } catch (e) {
              failed = true;
              fail(t, id, `exception: ${e.message}`);
            }
            if (!failed) summary.templates[t.name].rendered++;
          }
        }
      }
    }
    return summary;
  };
}

function checkRow(t, config, row, want, fail, templateBreak) {
  const tools = trlTools(row.tools);
  const canonTools = want.tools;
  // TRL passes the row's chat_template_kwargs; a server gets the same
  // switches in the request (chat_template_kwargs), so both sides use them.
  const kw = row.chat_template_kwargs ?? {};
  if (config === "sft") {
    const got = render(t.tmpl, row.messages, tools, false, kw);
    const exp = render(t.tmpl, vllmMessages(want.messages), canonTools, false, kw);
    if (got !== exp) fail(`messages render differently from the canonical conversation at char ${firstDiff(got, exp)}: ${excerpt(got, exp)}`);
    return;
  }
  let kept = true;
  const prompt = render(t.tmpl, row.prompt, tools, true, kw);
  const canonPrompt = render(t.tmpl, vllmMessages(want.prompt), canonTools, true, kw);
  if (prompt !== canonPrompt) fail(`prompt renders differently from the canonical one: ${excerpt(prompt, canonPrompt)}`);
  for (const side of ["chosen", "rejected"]) {
    const got = render(t.tmpl, row.prompt.concat(row[side]), tools, false, kw);
    const exp = render(t.tmpl, vllmMessages(want.prompt.concat(want[side])), canonTools, false, kw);
    if (got !== exp) fail(`prompt+${side} renders differently from the canonical one: ${excerpt(got, exp)}`);
    if (got.startsWith(prompt)) continue;
    kept = false;
    const what = `the prompt's rendering is not a prefix of prompt+${side}'s (at char ${firstDiff(got, prompt)}: ${excerpt(got, prompt)})`;
    // The canonical conversation breaking the same way means the template
    // itself is not prefix-preserving for this shape of conversation: only
    // a template documented so in prefix_exceptions.json may do that.
    if (!exp.startsWith(canonPrompt) && t.prefixException) templateBreak(what);
    else fail(what);
  }
  return kept;
}

function firstDiff(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function excerpt(got, exp) {
  const i = firstDiff(got, exp);
  return `got ${JSON.stringify(got.slice(Math.max(0, i - 40), i + 60))}, want ${JSON.stringify(exp.slice(Math.max(0, i - 40), i + 60))}`;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { dir, templates } = loadTemplates();
  if (!templates || templates.length === 0) {
    const msg = `render_check: no chat templates in ${dir}; set SYNTH_CHAT_TEMPLATES to the folder (skipped)`;
    if (process.env.SYNTH_REQUIRE_TEMPLATES === "1") {
      console.error(msg.replace("(skipped)", "(required)"));
      process.exit(1);
    }
    console.log(msg);
    return;
  }
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  let failures = 0;
  let renders = 0;
  let breaks = 0;
  let pairs = 0;
  const kept = Object.fromEntries(templates.map((t) => [t.name, 0]));
  for (const release of args.dirs) {
    const canonical = canonicalRows(args.synth, release);
    const s = await checkRelease(conn, templates, canonical, release)();
    pairs += s.dpo_rows;
    for (const [name, v] of Object.entries(s.templates)) {
      failures += v.failures;
      renders += v.rendered;
      breaks += v.template_prefix_breaks;
      kept[name] += v.dpo_prefix_kept;
      if (v.examples.length === 0) delete v.examples;
    }
    console.log(JSON.stringify(s));
  }
  conn.closeSync();
  instance.closeSync();
  console.log(
    `render_check: ${templates.length} templates, ${renders} row renderings as the canonical conversation, ${failures} failures, ` +
      `${breaks} prefix breaks of templates that are not prefix-preserving (prefix_exceptions.json)`,
  );
  if (pairs > 0) {
    const per = templates.map((t) => `${t.name} ${kept[t.name]}`).join(", ");
    console.log(`render_check: DPO pairs whose prompt stays a prefix of prompt+chosen and prompt+rejected, of ${pairs}: ${per}`);
  }
  // The exceptions are exactly the templates that cannot keep the prefix:
  // one that kept it in every pair is listed for no reason.
  const stale = pairs > 0 && !args.expectFail ? templates.filter((t) => t.prefixException && kept[t.name] === pairs).map((t) => t.name) : [];
  if (stale.length > 0) {
    console.error(`render_check: FAIL: ${stale.join(", ")} kept the prompt a prefix in all ${pairs} pairs: remove them from prefix_exceptions.json and docs/trainers/trl.md`);
    process.exit(1);
  }
  if (args.expectFail) {
    if (failures === 0) {
      console.error("render_check: FAIL: --expect-fail, but every row rendered as the canonical conversation");
      process.exit(1);
    }
    return;
  }
  if (failures > 0) {
    console.error(`render_check: FAIL: ${failures} row renderings failed (see the examples above)`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(`render_check: FAIL: ${e.stack || e.message}`);
  process.exit(1);
});
