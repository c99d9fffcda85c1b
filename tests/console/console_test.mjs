// The web console in a real browser (issue 18; docs/console.md): headless Chromium (Debian's
// chromium, driven by puppeteer-core) against a real server with real data written through the
// API. Each page loads without console errors, its key figures match the API, an approval in the
// inbox creates the Experience revision, the language switches, and the keyboard reaches and
// follows the navigation.
//   node tests/console/console_test.mjs NODE_MODULES BASE_URL TOKEN [SCREENSHOT_DIR]
import { createRequire } from "node:module";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const [nodeModules, base, token, shots] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(nodeModules), "noop.js"));
const puppeteer = require("puppeteer-core");
const SCOPE = "project:console-test";

async function api(method, p, body) {
  const res = await fetch(base + p, {
    method, headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}
const q = (o) => "?" + new URLSearchParams(o).toString();

// ---- real data, through the API ----------------------------------------------------------------
const first = await api("POST", "/v1/memory/remember", { scope_id: SCOPE, kind: "decision", text: "Store order amounts as integer cents, never as floating point." });
await api("POST", "/v1/memory/remember", { scope_id: SCOPE, kind: "fact", text: "订单导入器使用 PostgreSQL 15，表名为 orders_raw。" });
await api("POST", "/v1/memory/remember", { scope_id: SCOPE, kind: "constraint", text: "Import errors must name the CSV line number.", evidence: ["https://example.com/issues/42"] });
const temp = await api("POST", "/v1/memory/remember", { scope_id: SCOPE, kind: "working_note", text: "Run the importer with --dry-run before a release." });
await api("POST", "/v1/memory/entries/revise", { scope_id: SCOPE, citation: { ...first.entry.citation, memory_ref: temp.memory },
  text: "Store order amounts as integer cents (BIGINT), never as floating point.", reason: "the column type was decided" });
const revs = await api("GET", "/v1/memory/revisions" + q({ scope_id: SCOPE, limit: 1 }));
await api("POST", "/v1/memory/entries/retire", { scope_id: SCOPE, citation: { ...temp.entry.citation, memory_ref: revs.head }, reason: "obsolete" });
await api("POST", "/v1/sources/content", { scope_id: SCOPE, source_id: "session-1/turn-1", content: "Rows with unknown currencies are rejected now; 订单金额以分为单位。" });
const candidate = await api("POST", "/v1/experience/propose", { scope_id: SCOPE,
  proposal: { situation: "CSV rows with unknown currencies reached the ledger.", action: "Validated currency codes at import.",
              outcome: "Bad rows are rejected with their line number.", lesson: "Validate every code field at the import boundary." },
  source_refs: [{ name: "content", source_id: "session-1/turn-1" }], artifact_refs: [] });
await api("POST", "/v1/context/prepare", { scope_id: SCOPE, query: "how are order amounts stored?" });
await api("POST", "/v1/sources/content", { scope_id: SCOPE, source_id: "session-1/turn-2", content: "The CSV importer now reports the line number of every rejected row." });
// The daily review (through the fake model): an Experience candidate and a tomorrow note in a handoff.
const reviewed = await api("POST", "/v1/review/run", { scope_id: SCOPE });
assert.ok(reviewed.handoff, "the daily review wrote a handoff");

// ---- the browser -------------------------------------------------------------------------------
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--lang=en-US"] });
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 900 });
const problems = [];
page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`); });
page.on("pageerror", (e) => problems.push("page error: " + e.message));
page.on("requestfailed", (r) => problems.push("request failed: " + r.url()));
let passed = 0;
async function check(name, fn) {
  try { await fn(); passed++; console.log("ok   " + name); }
  catch (e) {
    console.log("FAIL " + name + ": " + e.message);
    console.log("     page: " + (await page.$eval("#view", (v) => v.textContent).catch(() => "?")).slice(0, 300));
    process.exitCode = 1;
  }
}
async function go(hash, ready) {
  await page.goto(base + "/ui" + hash, { waitUntil: "load" });
  await page.waitForSelector(ready, { timeout: 10000 });
  // A part of the page that is absent is left out: never a text "null", "undefined" or "[object Object]"
  // (the sources page once showed "null" where an idle flush's note was not).
  const leaked = await page.$$eval("#view *", (els) => els.flatMap((el) => [...el.childNodes])
    .filter((n) => n.nodeType === 3 && ["null", "undefined", "[object Object]", "NaN"].includes(n.nodeValue.trim()))
    .map((n) => `${n.parentElement.tagName.toLowerCase()}: ${n.nodeValue}`));
  const top = await page.$eval("#view", (v) => [...v.childNodes].filter((n) => n.nodeType === 3 && n.nodeValue.trim())
    .map((n) => "view: " + n.nodeValue));
  if (leaked.length || top.length) problems.push(`${hash}: ${[...top, ...leaked].join(", ")}`);
}
const text = (sel) => page.$eval(sel, (el) => el.textContent.trim());
async function shot(name) {
  if (!shots) return;
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, name + ".png") });
}
const stats = await api("GET", "/v1/stats" + q({ scope_id: SCOPE, period: "7d" }));

await check("sign in keeps the token out of the URL and in session storage", async () => {
  await go("#/login", "#token");
  await page.type("#token", token);
  await Promise.all([page.click("#signin"), page.waitForSelector("#fig-active", { timeout: 10000 })]);
  assert.ok(!page.url().includes(token));
  assert.equal(await page.evaluate(() => sessionStorage.getItem("pc.token")), token);
  assert.equal(await page.evaluate(() => localStorage.length), 0);
});

for (const lang of ["en", "zh"]) {
  await page.evaluate((l) => sessionStorage.setItem("pc.lang", l), lang);
  await page.reload({ waitUntil: "load" });  // the language is read when the page loads
  await check(`[${lang}] overview figures match /v1/stats`, async () => {
    await go("#/", "#fig-active");
    assert.equal(await text("#title"), lang === "zh" ? "概览" : "Overview");
    assert.equal(await text("#fig-active"), String(stats.inventory.memory.entries.active));
    assert.equal(await text("#fig-inactive"), String(stats.inventory.memory.entries.inactive));
    assert.equal(await text("#fig-pending"), String(stats.inventory.sources.memory_pending));
    assert.equal(await text("#fig-candidates"), String(stats.inventory.candidates.pending));
    const bars = await page.$$eval(".bar", (b) => b.map((x) => [x.dataset.label, Number(x.dataset.value)]));
    for (const k of stats.inventory.memory.entries.by_kind.filter((k) => k.active))
      assert.ok(bars.some(([l, v]) => l === k.kind && v === k.active), "a bar for " + k.kind);
    await shot(`overview-${lang}`);
  });
  await check(`[${lang}] scopes list the scope`, async () => {
    await go("#/scopes", "#scopes");
    assert.ok((await text("#scopes")).includes(SCOPE));
    await shot(`scopes-${lang}`);
  });
  await check(`[${lang}] entries: every active entry, with filters`, async () => {
    const listed = await api("GET", "/v1/memory/entries" + q({ scope_id: SCOPE, limit: 1000 }));
    await go("#/scopes/" + encodeURIComponent(SCOPE), "#entries tbody tr");
    assert.equal((await page.$$("#entries tbody tr")).length, listed.entries.length);
    const cites = await page.$$eval("#entries code", (c) => c.map((x) => x.textContent));
    for (const e of listed.entries) assert.ok(cites.includes(e.citation_ref), "citation of " + e.entry_id);
    await page.select("#f-kind", "decision");
    assert.equal((await page.$$("#entries tbody tr")).length, listed.entries.filter((e) => e.kind === "decision").length);
    await page.select("#f-kind", "");
    await page.click("#f-hyp");
    assert.equal((await page.$$("#entries tbody tr")).length, listed.entries.filter((e) => e.hypothesis).length);
    await page.click("#f-hyp");
    await page.type("#f-text", "PostgreSQL");
    assert.equal((await page.$$("#entries tbody tr")).length, 1);
    await shot(`entries-${lang}`);
  });
  await check(`[${lang}] an entry's history shows the word-level diff`, async () => {
    await go("#/scopes/" + encodeURIComponent(SCOPE) + "/entries/" + first.entry.citation.entry_id, "#versions li");
    assert.equal((await page.$$("#versions li")).length, 2);
    assert.equal(await text(".diff ins"), "(BIGINT)");
    await shot(`history-${lang}`);
  });
  await check(`[${lang}] the revision timeline matches the history`, async () => {
    const all = await api("GET", "/v1/memory/revisions" + q({ scope_id: SCOPE, limit: 100 }));
    await go("#/scopes/" + encodeURIComponent(SCOPE) + "/revisions", "#revisions li");
    assert.equal((await page.$$("#revisions li")).length, all.revisions.length);
    await shot(`revisions-${lang}`);
  });
  await check(`[${lang}] a past revision reads as it was`, async () => {
    await go("#/scopes/" + encodeURIComponent(SCOPE) + "?revision=1", "#entries tbody tr");
    assert.equal((await page.$$("#entries tbody tr")).length, 1);
  });
  await check(`[${lang}] search: the modes side by side, with capability reasons`, async () => {
    await go("#/scopes/" + encodeURIComponent(SCOPE) + "/search?q=" + encodeURIComponent("order amounts cents"), "#modes section");
    const fts = await text('section[data-mode="fts"]');
    assert.ok(fts.includes("integer cents"), fts);
    // Scores read as a share of the best hit: the top one is 100%, never 0.000.
    assert.ok(/(relevance|相关度) 100%/.test(fts), fts);
    assert.ok(!fts.includes("0.000"), fts);
    assert.ok((await text('section[data-mode="graph"]')).length > 0);
    assert.ok(await page.$('section[data-mode="graph"] .error'), "graph without triples says why");
    await shot(`search-${lang}`);
  });
  await check(`[${lang}] handoffs: each revision with its cited statements`, async () => {
    const history = await api("GET", "/v1/handoff/history" + q({ scope_id: SCOPE }));
    await go("#/scopes/" + encodeURIComponent(SCOPE) + "/handoffs", "#handoffs section");
    assert.equal((await page.$$("#handoffs section")).length, history.handoffs.length);
    assert.ok((await text("#handoffs")).includes("Tomorrow (daily review of"));
    await shot(`handoffs-${lang}`);
  });
  await check(`[${lang}] the audit log lists the scope's writes`, async () => {
    const audit = await api("GET", "/v1/audit" + q({ scope_id: SCOPE, limit: 200 }));
    await go("#/scopes/" + encodeURIComponent(SCOPE) + "/audit", "#audit tbody tr");
    assert.equal((await page.$$("#audit tbody tr")).length, audit.events.length);
    await shot(`audit-${lang}`);
  });
  await check(`[${lang}] prepare preview: the exact block and its bytes`, async () => {
    const want = await api("POST", "/v1/context/prepare", { scope_id: SCOPE, query: "how are order amounts stored?", max_bytes: 4000, explain: true });
    await go("#/scopes/" + encodeURIComponent(SCOPE) + "/prepare", "#task");
    await page.type("#task", "how are order amounts stored?");
    await page.$eval("#budget", (b) => { b.value = "4000"; });
    await page.click("form button[type=submit]");
    await page.waitForSelector("#content", { timeout: 10000 });
    assert.equal(await text("#content-bytes"), String(want.content_bytes));
    assert.equal(await page.$eval("#content", (c) => c.textContent), want.content);
    await shot(`prepare-${lang}`);
  });
}

await check("the inbox revises a candidate and approves it into an Experience revision", async () => {
  await page.evaluate(() => sessionStorage.setItem("pc.lang", "en"));
  await page.reload({ waitUntil: "load" });
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/inbox", "#inbox");
  const pending = await api("POST", "/v1/artifact-candidates/list", { scope_id: SCOPE });
  assert.equal((await page.$$("#inbox tbody tr")).length, pending.candidates.length);
  await shot("inbox-en");
  // Revise first: the lesson edited in the page becomes version 2, which the approval commits.
  const row = `tr[data-candidate="${candidate.candidate_id}"]`;
  await page.click(`${row} button[data-action="revise"]`);
  await page.waitForSelector(`${row} textarea[name="lesson"]`);
  await page.$eval(`${row} textarea[name="lesson"]`, (el) => { el.value = "Validate every code field where rows are imported."; });
  await page.click(`${row} button[data-action="save"]`);
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("v2"), { timeout: 10000 }, row);
  await page.click(`${row} button[data-action="approve"]`);
  await page.waitForFunction((id) => !document.querySelector(`tr[data-candidate="${id}"]`) && document.querySelector("#title"),
                             { timeout: 10000 }, candidate.candidate_id);
  const after = await api("POST", "/v1/artifact-candidates/get", { scope_id: SCOPE, candidate_id: candidate.candidate_id });
  assert.equal(after.status, "approved");
  const exp = await api("POST", "/v1/experience/get", { scope_id: SCOPE, artifact: after.result_artifact });
  assert.equal(exp.content.lesson, "Validate every code field where rows are imported.");
  assert.equal(after.version, 2, "the revised version was approved");
});

await check("sources and flush: cursor, high watermark, the last flush with its rejections", async () => {
  // A flush another client ran (here the API itself) is the page's "last flush": the server keeps it.
  await api("POST", "/v1/memory/flush", { scope_id: SCOPE });
  const byApi = (await api("GET", "/v1/memory/flush/last" + q({ scope_id: SCOPE }))).last_flush;
  assert.ok(byApi, "a flush that processed a window is recorded");
  const before = await api("GET", "/v1/sources" + q({ scope_id: SCOPE }));
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/sources", "#sources");
  assert.equal(await text("#fig-high"), String(before.high_watermark));
  assert.equal((await page.$$("#sources tbody tr")).length, before.sources.length);
  assert.ok((await text("#last-flush")).includes(`${byApi.previous_cursor} → ${byApi.current_cursor}`));
  // Two sources with the same first line: the fake model adds both, the server keeps one.
  for (const id of ["console-dup-1", "console-dup-2"])
    await api("POST", "/v1/sources/content", { scope_id: SCOPE, source_id: id, content: "The console test says this twice." });
  await page.click("#flush");
  await page.waitForFunction((c) => document.querySelector("#last-flush")?.textContent.includes(`→ ${c}`),
    { timeout: 10000 }, before.high_watermark + 2);
  const stats = await api("GET", "/v1/stats" + q({ scope_id: SCOPE, period: "today" }));
  assert.equal(stats.inventory.sources.memory_pending, 0, "the flush processed the window");
  assert.equal(await text("#fig-cursor"), String(stats.inventory.sources.memory_processed));
  const last = (await api("GET", "/v1/memory/flush/last" + q({ scope_id: SCOPE }))).last_flush;
  assert.equal(last.current_cursor, before.high_watermark + 2);
  assert.equal(last.rejected.length, 1, JSON.stringify(last.rejected));
  assert.equal((await page.$$("#last-flush-rejected .hit")).length, 1);
  assert.ok((await text("#last-flush-rejected")).includes(last.rejected[0].reason));
  assert.ok((await text("#last-flush")).includes(last.actor));
  // Nothing new: the page says the flush was idle and keeps showing the last one.
  await page.click("#flush");
  await page.waitForSelector("#flush-note", { timeout: 10000 });
  assert.ok((await text("#last-flush")).includes(`→ ${last.current_cursor}`));
  await shot("sources-en");
});

await check("an action the server refuses says why on the page (a stale candidate version)", async () => {
  const pending = await api("POST", "/v1/artifact-candidates/list", { scope_id: SCOPE });
  assert.ok(pending.candidates.length > 0, "the daily review's candidate is waiting");
  const c = pending.candidates[0];
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/inbox", `tr[data-candidate="${c.candidate_id}"]`);
  // Someone else revises it meanwhile: the page's approve names version 1, now stale.
  await api("POST", "/v1/artifact-candidates/revise", { scope_id: SCOPE, candidate_id: c.candidate_id, expected_version: c.version,
    proposal: { ...c.proposal, lesson: c.proposal.lesson + " (edited elsewhere)" }, source_refs: c.source_refs, artifact_refs: c.artifact_refs });
  const before = problems.length;
  await page.click(`tr[data-candidate="${c.candidate_id}"] button[data-action="approve"]`);
  await page.waitForFunction(() => [...document.querySelectorAll("[role=alert]")].some((a) => a.textContent.includes("candidate_conflict")), { timeout: 10000 });
  // The browser logs the refused request itself (a 409); that one is expected here, nothing else.
  const added = problems.splice(before);
  assert.ok(added.every((p) => p.includes("409")), added.join("; "));
  const still = await api("POST", "/v1/artifact-candidates/get", { scope_id: SCOPE, candidate_id: c.candidate_id });
  assert.equal(still.status, "pending");
});

await check("a managed Skill is revised and approved in the inbox, then shown on the Skills page", async () => {
  const sources = await api("GET", "/v1/sources" + q({ scope_id: SCOPE }));
  const cited = sources.sources[0];
  const proposed = await api("POST", "/v1/skill/propose", { scope_id: SCOPE, source_refs: [{ name: "content", source_id: cited.idempotency_key || cited.source_id }],
    artifact_refs: [], proposal: { name: "csv-currency-check", description: "Use when an importer reads money columns.",
      instructions: "1. Check the currency column.\n2. Reject unknown codes with the row's line.", validation: ["a bad code is rejected"] } });
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/skills", "#managed-none");
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/inbox", `tr[data-candidate="${proposed.candidate_id}"]`);
  const row = `tr[data-candidate="${proposed.candidate_id}"]`;
  assert.ok((await text(row)).includes("csv-currency-check"));
  assert.ok((await text(row)).includes("a bad code is rejected"));
  await page.click(`${row} button[data-action="revise"]`);
  await page.waitForSelector(`${row} textarea[name="validation"]`);
  await page.$eval(`${row} textarea[name="validation"]`, (el) => { el.value = "a bad code is rejected\nthe row's line is named"; });
  await page.click(`${row} button[data-action="save"]`);
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("v2"), { timeout: 10000 }, row);
  await page.click(`${row} button[data-action="approve"]`);
  await page.waitForFunction((id) => !document.querySelector(`tr[data-candidate="${id}"]`) && document.querySelector("#title"),
                             { timeout: 10000 }, proposed.candidate_id);
  const after = await api("POST", "/v1/artifact-candidates/get", { scope_id: SCOPE, candidate_id: proposed.candidate_id });
  assert.equal(after.result_artifact.family, "skill");
  const skill = await api("POST", "/v1/skill/get", { scope_id: SCOPE, artifact: after.result_artifact });
  assert.deepEqual(skill.content.validation, ["a bad code is rejected", "the row's line is named"]);
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/skills", "#managed-skills");
  const managed = `tr[data-skill-artifact="${after.result_artifact.artifact_id}"]`;
  assert.ok((await text(managed)).includes("the row's line is named"));
  assert.ok((await text(managed)).includes(`skill/${after.result_artifact.artifact_id}@1`));
});

await check("the Skills page scans the roots, imports a package, and shows a changed one as unavailable", async () => {
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/skills", "#skills-none");
  await page.click("#scan");
  await page.waitForSelector("#skills tbody tr", { timeout: 10000 });
  const listed = await api("POST", "/v1/external-skills/list", { scope_id: SCOPE });
  assert.equal(listed.skills.length, 1);
  const row = `tr[data-skill="${listed.skills[0].registration.external_skill_id}"]`;
  assert.equal(await page.$eval(row, (r) => r.dataset.status), "available");
  assert.ok((await text("#scan-note")).includes("1"), await text("#scan-note"));
  assert.ok((await text(row)).includes("Tidy a Python change before review."));
  await shot("skills-en");
  // Import: the model's candidate waits in the inbox, citing the captured SKILL.md.
  await page.click(`${row} button[data-action="import"]`);
  await page.waitForFunction(() => document.querySelector("#scan-note")?.textContent.includes("cand_"), { timeout: 10000 });
  const pendingSkills = await api("POST", "/v1/artifact-candidates/list", { scope_id: SCOPE, family: "skill" });
  assert.equal(pendingSkills.candidates.length, 1);
  assert.ok(pendingSkills.candidates[0].source_refs[0].source_id.startsWith("external-skill:"));
  assert.ok((await text("#scan-note")).includes(pendingSkills.candidates[0].candidate_id));
  // Edited on disk: the registered version is gone; the page says so, and hands out no entrypoint.
  fs.appendFileSync(path.join(process.env.SKILLS_ROOT, "friendly-python", "SKILL.md"), "Then run mypy.\n");
  await page.reload({ waitUntil: "load" });  // the same address: go() would keep the page as it is
  await page.waitForSelector(row + '[data-status="unavailable"]', { timeout: 10000 });
  assert.ok(!(await text(row)).includes("SKILL.md"));
});

await check("a Project's Handoff Report: tabs by Project, counts from the API, Markdown as text only", async () => {
  const project = await api("POST", "/v1/handoff-reports/projects/create",
    { project_key: "console-report", title: "Orders importer", default_locale: "en", timezone: "Asia/Shanghai" });
  await api("POST", "/v1/handoff-reports/workstreams/register", { project_id: project.project_id, scope_id: SCOPE,
    key: "PC-7", title: "Importer <b>bold</b> | *rows*", kind: "feature" });
  await api("POST", "/v1/handoff-reports/activities/record", { project_id: project.project_id, scope_id: SCOPE,
    source: "git_commit", source_event_id: "console-1", occurred_at: new Date().toISOString(), time_basis: "source_reported",
    title: "fix: <script>alert(1)</script> rows" });
  await go("#/reports", "#report");
  assert.equal(await page.$eval('#project-tabs a[aria-current="page"]', (a) => a.dataset.project), project.project_id);
  const r = await api("POST", "/v1/handoff-reports/get", { project_id: project.project_id, format: "json", include_evidence_checks: false });
  assert.equal(await text("#fig-continuable"), String(r.report.summary.continuable_count));
  assert.equal(await text("#fig-no-handoff"), String(r.report.summary.no_handoff_count));
  assert.match(await text("#selection-digest"), /^sha256:[0-9a-f]{64}$/);
  const report = await text("#report");
  assert.ok(report.includes("Project Overview") && report.includes("Workstream Details"), report.slice(0, 200));
  assert.ok(report.includes("Importer <b>bold</b> | *rows* (PC-7)"), "user text shown as text, unescaped");
  assert.equal(await page.$$eval("#report b, #report script, #report img", (els) => els.length), 0);
  assert.ok(await page.$("#report h3") && await page.$("#report table.report-table"));
  await shot("reports-en");
  await page.evaluate(() => sessionStorage.setItem("pc.lang", "zh"));
  await page.reload({ waitUntil: "load" });
  await go("#/reports/" + encodeURIComponent(project.project_id), "#report");
  assert.ok((await text("#report")).includes("项目概览"));
  assert.ok((await text("#title")).includes("报告"));
  await shot("reports-zh");
  await page.evaluate(() => sessionStorage.setItem("pc.lang", "en"));
  await page.reload({ waitUntil: "load" });
});

await check("[zh] the inbox and the sources page in Chinese", async () => {
  await page.evaluate(() => sessionStorage.setItem("pc.lang", "zh"));
  await page.reload({ waitUntil: "load" });
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/inbox", "#title");
  assert.ok((await text("#title")).includes("审核收件箱"));
  await shot("inbox-zh");
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/sources", "#sources");
  assert.ok((await text("#title")).includes("来源"));
  await shot("sources-zh");
  await go("#/scopes/" + encodeURIComponent(SCOPE) + "/skills", "#skills");
  assert.ok((await text("#title")).includes("技能"));
  assert.ok((await text("#skills")).includes("不可用"));
  await shot("skills-zh");
  await page.evaluate(() => sessionStorage.setItem("pc.lang", "en"));
  await page.reload({ waitUntil: "load" });
});

await check("the language switches by the button, and follows the browser", async () => {
  await go("#/", "#fig-active");
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#nav a").textContent === "概览");
  assert.equal(await page.evaluate(() => document.documentElement.lang), "zh-CN");
  await page.click("#lang");
  await page.waitForFunction(() => document.querySelector("#nav a").textContent === "Overview");
});

await check("the keyboard reaches the navigation and follows it", async () => {
  await go("#/", "#fig-active");
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(() => document.activeElement?.getAttribute("href") === "#/scopes")) break;
  }
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("href")), "#/scopes");
  await page.keyboard.press("Enter");
  // The overview has a "#scopes" table too, and hashchange fires after Enter returns: wait for the
  // scopes page itself (its heading), not for a selector the page being left still matches.
  await page.waitForFunction(() => document.querySelector("#scopes") &&
    document.querySelector("#view > h1")?.textContent === document.querySelector('#nav a[href="#/scopes"]')?.textContent,
    { timeout: 10000 });
  assert.equal(await page.evaluate(() => document.activeElement?.id), "title", "focus moves to the page's heading");
});

await check("no console errors, failed requests or text \"null\" on any page", async () => {
  assert.deepEqual(problems, []);
});

await browser.close();
console.log(`${passed} checks passed`);
