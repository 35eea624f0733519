// Opens a synth HTML report in headless Chromium (Debian's, not one that
// Playwright downloads) and checks what a person would see: the page
// loads without console errors or network requests, every plot is an
// inline SVG with a non-zero size and bars in it, the dialogues render,
// and the filter box filters. Saves a screenshot.
//
//   node check_report.mjs REPORT.html SCREENSHOT.png
//
// CHROMIUM overrides the browser path (default /usr/bin/chromium).
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [report, shot] = process.argv.slice(2);
if (!report || !shot) {
  console.error("usage: node check_report.mjs REPORT.html SCREENSHOT.png");
  process.exit(2);
}

const failures = [];
const fail = (msg) => failures.push(msg);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  page.on("console", (m) => {
    if (m.type() === "error") fail(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => fail(`page error: ${e.message}`));
  const url = pathToFileURL(path.resolve(report)).href;
  page.on("request", (r) => {
    if (r.url() !== url) fail(`the page requested ${r.url()}; a report must be self-contained`);
  });
  const resp = await page.goto(url, { waitUntil: "load" });
  if (!resp || !resp.ok()) fail(`loading ${url} failed`);

  // Every plot is an inline SVG that the browser laid out with a size.
  const plots = await page.$$eval("figure.chart", (figs) =>
    figs.map((f) => {
      const svg = f.querySelector("svg");
      const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
      return { id: f.id, width: box.width, height: box.height, bars: svg ? svg.querySelectorAll("rect.bar").length : 0 };
    }),
  );
  const want = ["chart-writes", "chart-reads", "chart-checks", "chart-messages", "chart-toolcalls"];
  for (const id of want) {
    if (!plots.some((p) => p.id === id)) fail(`plot ${id} is missing`);
  }
  for (const p of plots) {
    if (!(p.width > 0 && p.height > 0)) fail(`plot ${p.id} has size ${p.width}x${p.height}`);
    if (p.bars === 0) fail(`plot ${p.id} has no bars`);
  }
  // Every label lies inside its plot: a long rule name is not cut at the
  // chart's edge.
  const cut = await page.$$eval("figure.chart svg", (svgs) =>
    svgs.flatMap((svg) => {
      const vb = svg.viewBox.baseVal;
      return [...svg.querySelectorAll("text")]
        .map((t) => ({ text: t.textContent, box: t.getBBox() }))
        .filter(({ box }) => box.x < vb.x - 0.5 || box.x + box.width > vb.x + vb.width + 0.5)
        .map(({ text }) => `${svg.closest("figure").id}: "${text}"`);
    }),
  );
  for (const c of cut) fail(`label cut at the plot's edge: ${c}`);

  // The dialogues render as a chat, and the filter narrows them.
  const total = await page.$$eval("details.dialogue", (d) => d.length);
  if (total === 0) fail("no dialogues");
  const bubbles = await page.$$eval("details.dialogue[open] .bubble", (b) => b.length);
  if (bubbles === 0) fail("the first dialogue shows no chat bubbles");
  const firstID = await page.$eval("details.dialogue code", (c) => c.textContent);
  await page.fill("#filter", firstID);
  const visible = await page.$$eval("details.dialogue", (d) => d.filter((x) => !x.hidden).length);
  if (visible !== 1) fail(`filtering by ${firstID} leaves ${visible} dialogues, want 1`);
  await page.fill("#filter", "");

  // The top of the page: header, plots and the first dialogue.
  await page.evaluate(() => window.scrollTo(0, 0));
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: 0, width: 1200, height: Math.min(height, 3200) } });
  console.log(`report ok: ${plots.length} plots, ${total} dialogues; screenshot ${shot}`);
} finally {
  await browser.close();
}
if (failures.length > 0) {
  for (const f of failures) console.error(f);
  process.exit(1);
}
