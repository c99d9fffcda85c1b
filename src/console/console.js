// The PowerContext console (docs/console.md): one page served at /ui, talking to the same API
// with the same token. No framework and no build step: the browser runs this file as it is.
// Every value from the server is put in the page as text (never as HTML).

// ---- strings (English and Chinese; the browser's language first, switchable) -----------------
const STRINGS = {
  en: {
    overview: "Overview", scopes: "Scopes", signin: "Sign in", signout: "Sign out", lang: "中文",
    token: "API token", token_help: "Kept in this tab's session storage only, never in a URL.",
    no_token: "Continue without a token (a server on loopback without authentication)",
    bad_token: "The server refused this token.", loading: "Loading…", failed: "Failed",
    scope: "Scope", key: "Key", revision: "Revision", entries: "Entries", active: "active", inactive: "retired",
    sources: "Sources", pending: "pending", processed: "processed", candidates: "Candidates waiting",
    by_kind: "Entries by kind", tokens_by_purpose: "Model tokens by purpose (7 days)",
    recall_savings: "Recall token savings (7 days)", baseline: "baseline", recalled: "recalled", saved: "saved",
    recent: "Recent revisions", none: "Nothing yet.", all_kinds: "all kinds", hypotheses_only: "hypotheses only",
    filter_text: "Filter by text", kind: "Kind", text: "Text", citation: "Citation", evidence: "Evidence",
    hypothesis: "hypothesis", history: "History", versions: "Versions", version: "version",
    valid_until: "valid until",
    diff_from: "changes from version", revisions: "Revisions", changes: "Changes", lineage: "Lineage",
    read_revision: "Read this revision", at_revision: "At revision", head: "head", search: "Search",
    query: "Query", run: "Run", mode: "Mode", unavailable: "unavailable", relevance: "relevance", matched_by: "matched by",
    prepare: "Prepare", budget: "Budget (bytes)", bytes_used: "Bytes used per item", inbox: "Review inbox",
    approve: "Approve", reject: "Reject", revise: "Revise", save: "Save as the next version", reason: "Reason", family: "Family", status: "Status",
    approved_as: "Approved as", rejected_because: "Rejected", proposal: "Proposal", actor: "Actor", time: "Time",
    situation: "Situation", action: "Action", outcome: "Outcome", lesson: "Lesson", op: "Operation",
    shown: "shown", of: "of", empty_context: "Nothing to prepare for this query.",
    flush: "Flush now", cursor: "Cursor", high_watermark: "High watermark", last_flush: "Last flush", flush_idle: "Nothing after the cursor: the flush was idle.",
    rejected: "Rejected", position: "Position", content: "Content", handoffs: "Handoffs", objective: "Objective",
    state: "State", next_action: "Next action", disposition: "Disposition", omissions: "Omissions", audit: "Audit log",
    operation: "Operation", result: "Result", targets: "Targets", admin_only: "The audit log needs an admin token.",
    reports: "Reports", projects: "Projects", projects_none: "No Handoff Report Projects yet: create one with `powercontext handoff-report project create`.",
    download_md: "Download .md", report_meta: "Selection digest", blocked: "Blocked", continuable: "Continuable", complete: "Complete", no_handoff: "No handoff",
    skills: "Skills", scan: "Scan the roots", available: "available", fingerprint: "Fingerprint", package: "Package",
    skills_unconfigured: "This server has no external Skill roots (setting external_skill_roots): nothing to scan.",
    skills_none: "No Skills registered for this scope: scan the roots.", registered: "registered", skipped: "skipped",
    name: "Name", description: "Description",
    instructions: "Instructions", validation: "Validation (one check per line)", managed_skills: "Managed Skills",
    external_skills: "External Skills", managed_none: "No approved managed Skill in this scope yet: propose one, or import an external Skill, and approve it in the review inbox.",
    import_skill: "Import", imported: "proposed as candidate", review_it: "review it in the inbox", no_skill: "the model proposed no Skill",
  },
  zh: {
    overview: "概览", scopes: "作用域", signin: "登录", signout: "退出", lang: "English",
    token: "API 令牌", token_help: "只保存在本标签页的会话存储中，绝不放进网址。",
    no_token: "不用令牌继续（本机回环、未开启认证的服务器）",
    bad_token: "服务器拒绝了这个令牌。", loading: "加载中…", failed: "失败",
    scope: "作用域", key: "键", revision: "修订", entries: "条目", active: "有效", inactive: "已停用",
    sources: "来源", pending: "待处理", processed: "已处理", candidates: "待审候选",
    by_kind: "按类型的条目", tokens_by_purpose: "按用途的模型令牌（7 天）",
    recall_savings: "召回节省的令牌（7 天）", baseline: "基线", recalled: "召回", saved: "节省",
    recent: "最近的修订", none: "暂无。", all_kinds: "全部类型", hypotheses_only: "只看假设",
    filter_text: "按文本筛选", kind: "类型", text: "文本", citation: "引用", evidence: "证据",
    hypothesis: "假设", history: "历史", versions: "版本", version: "版本",
    valid_until: "有效至",
    diff_from: "相对版本的改动", revisions: "修订", changes: "改动", lineage: "来源谱系",
    read_revision: "查看这个修订", at_revision: "修订", head: "最新", search: "搜索",
    query: "查询", run: "运行", mode: "模式", unavailable: "不可用", relevance: "相关度", matched_by: "命中方式",
    prepare: "上下文预览", budget: "预算（字节）", bytes_used: "每项所用字节", inbox: "审核收件箱",
    approve: "批准", reject: "拒绝", revise: "修改", save: "保存为下一版本", reason: "理由", family: "类别", status: "状态",
    approved_as: "已批准为", rejected_because: "已拒绝", proposal: "提议", actor: "执行者", time: "时间",
    situation: "情境", action: "行动", outcome: "结果", lesson: "经验", op: "操作",
    shown: "显示", of: "共", empty_context: "这个查询没有可准备的内容。",
    flush: "立即提取", cursor: "游标", high_watermark: "最高位置", last_flush: "上次提取", flush_idle: "游标之后没有新来源：本次提取无事可做。",
    rejected: "被拒绝", position: "位置", content: "内容", handoffs: "交接", objective: "目标",
    state: "状态", next_action: "下一步", disposition: "处置", omissions: "遗漏", audit: "审计日志",
    operation: "操作", result: "结果", targets: "对象", admin_only: "审计日志需要管理员令牌。",
    instructions: "操作说明", validation: "验证（每行一项）", managed_skills: "托管技能", external_skills: "外部技能",
    managed_none: "这个作用域还没有已批准的托管技能：提议一个，或导入外部技能，并在审核收件箱中批准。",
    import_skill: "导入", imported: "已提议为候选", review_it: "请在收件箱中审核", no_skill: "模型没有提出技能",
    reports: "报告", projects: "项目", projects_none: "还没有交接报告项目：用 `powercontext handoff-report project create` 创建一个。",
    download_md: "下载 .md", report_meta: "选择摘要", blocked: "阻塞", continuable: "可继续", complete: "已完成", no_handoff: "无交接",
    skills: "技能", scan: "扫描技能目录", available: "可用", fingerprint: "指纹", package: "包",
    skills_unconfigured: "这个服务器没有配置外部技能目录（设置 external_skill_roots）：无可扫描。",
    skills_none: "这个作用域还没有登记技能：请扫描技能目录。", registered: "已登记", skipped: "已跳过",
    name: "名称", description: "说明",
  },
};
let lang = sessionStorage.getItem("pc.lang") ||
  ((navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en");
const t = (key) => STRINGS[lang][key] || STRINGS.en[key] || key;

// ---- the API -----------------------------------------------------------------------------------
class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}
// A page's request that finished after the user went elsewhere: the page stops, shows nothing.
class Stale extends Error {}
let generation = 0;  // one per route(); every await of a page is a request, so each checks it
async function api(method, path, body) {
  const started = generation;
  const headers = { "Accept": "application/json" };
  const token = sessionStorage.getItem("pc.token");
  if (token) headers["Authorization"] = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (started !== generation) throw new Stale();
  if (!res.ok) {
    const e = data.error || {};
    if (res.status === 401) { location.hash = "#/login"; }
    throw new ApiError(res.status, e.code || String(res.status), e.message || res.statusText);
  }
  return data;
}
// A route that answers text (a Handoff Report's Markdown): its body as it came.
async function apiText(method, path, body) {
  const started = generation;
  const headers = { "Accept": "text/markdown, application/json", "Content-Type": "application/json" };
  const token = sessionStorage.getItem("pc.token");
  if (token) headers["Authorization"] = "Bearer " + token;
  const res = await fetch(path, { method, headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (started !== generation) throw new Stale();
  if (!res.ok) {
    let e = {};
    try { e = JSON.parse(text).error || {}; } catch (_) { /* not JSON */ }
    if (res.status === 401) { location.hash = "#/login"; }
    throw new ApiError(res.status, e.code || String(res.status), e.message || res.statusText);
  }
  return { text, selection: res.headers.get("X-PowerContext-Selection-Digest") };
}
const q = (params) => "?" + new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== "")).toString();

// ---- building the page (text only) -------------------------------------------------------------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "style") el.style.cssText = v;  // CSSOM: allowed by the console's CSP, unlike a style attribute
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const view = () => document.getElementById("view");
function show(title, ...content) {
  const v = view();
  // Like h(): an absent part (null, undefined, false) is left out, not written as the text "null".
  v.replaceChildren(h("h1", { id: "title", tabindex: "-1" }, title), ...content.filter((c) => c !== undefined && c !== null && c !== false));
  document.title = title + " · PowerContext";
  document.getElementById("title").focus();
}
// An action's handler (approve, search, flush …): its button disabled while it runs, its failure
// written into `alert` (role=alert) instead of lost.
function guarded(alert, fn) {
  return async (ev) => {
    const button = ev && ev.target && ev.target.closest ? ev.target.closest("button") : null;
    if (ev && ev.type === "submit") ev.preventDefault();
    if (button) button.disabled = true;
    alert.textContent = "";
    try { await fn(ev); }
    catch (e) { if (!(e instanceof Stale)) alert.textContent = e.code ? `${e.code}: ${e.message}` : String(e.message || e); }
    finally { if (button && button.isConnected) button.disabled = false; }
  };
}
const alertBox = () => h("p", { class: "error", role: "alert" });
// At most `n` requests at once (the server's rate limit is per token).
async function mapLimited(items, n, fn) {
  const out = new Array(items.length); let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) { const i = next++; out[i] = await fn(items[i]); }
  }));
  return out;
}

function bars(rows, unit) {  // [{label, value}] as horizontal bars
  const max = Math.max(1, ...rows.map((r) => r.value));
  if (!rows.length) return h("p", { class: "muted" }, t("none"));
  return h("div", { class: "bars", role: "list" }, rows.map((r) =>
    h("div", { class: "bar", role: "listitem", "data-label": r.label, "data-value": r.value },
      h("span", {}, r.label),
      h("span", { class: "track" }, h("span", { class: "fill", style: `width:${(100 * r.value / max).toFixed(1)}%` })),
      h("span", { class: "n" }, r.value.toLocaleString() + (unit || "")))));
}
const card = (label, figure, id) => h("div", { class: "card" }, h("div", { class: "figure", id }, figure), h("div", { class: "label" }, label));
const time = (iso) => iso ? new Date(iso).toLocaleString(lang === "zh" ? "zh-CN" : "en-GB") : "";
const scopeLink = (s) => "#/scopes/" + encodeURIComponent(s);
function subnav(scope, current) {
  const items = [["entries", t("entries")], ["revisions", t("revisions")], ["search", t("search")],
                 ["prepare", t("prepare")], ["sources", t("sources")], ["inbox", t("inbox")],
                 ["handoffs", t("handoffs")], ["skills", t("skills")], ["audit", t("audit")]];
  return h("nav", { class: "subnav", "aria-label": t("scope") }, items.map(([k, label]) =>
    h("a", { href: scopeLink(scope) + (k === "entries" ? "" : "/" + k), "aria-current": k === current ? "page" : false }, label)));
}

// ---- word-level diff (Chinese: character by character) ----------------------------------------
function tokens(s) { return s.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}_]+|\s+|[^\s\p{L}\p{N}_]/gu) || []; }
function diff(a, b) {  // LCS over tokens → [["=", t] | ["-", t] | ["+", t]]
  const x = tokens(a), y = tokens(b);
  if (x.length * y.length > 4e6) return [["-", a], ["+", b]];
  const n = x.length, m = y.length, d = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--)
    d[i][j] = x[i] === y[j] ? d[i + 1][j + 1] + 1 : Math.max(d[i + 1][j], d[i][j + 1]);
  const out = []; let i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) { out.push(["=", x[i]]); i++; j++; }
    else if (d[i + 1][j] >= d[i][j + 1]) out.push(["-", x[i++]]);
    else out.push(["+", y[j++]]);
  }
  while (i < n) out.push(["-", x[i++]]);
  while (j < m) out.push(["+", y[j++]]);
  return out;
}
function diffView(a, b) {  // runs of one kind joined: "(BIGINT)" is one insertion, not three
  const runs = [];
  for (const [op, s] of diff(a, b)) {
    if (runs.length && runs[runs.length - 1][0] === op) runs[runs.length - 1][1] += s;
    else runs.push([op, s]);
  }
  return h("div", { class: "diff" }, runs.map(([op, s]) => op === "=" ? s : h(op === "+" ? "ins" : "del", {}, s)));
}

// ---- pages -------------------------------------------------------------------------------------
async function loginPage() {
  const input = h("input", { type: "password", id: "token", autocomplete: "off" });
  const message = h("p", { class: "error", id: "login-error", role: "alert" });
  const go = async (token) => {
    if (token) sessionStorage.setItem("pc.token", token); else sessionStorage.removeItem("pc.token");
    try { await api("GET", "/v1/scopes" + q({ limit: 1 })); location.hash = "#/"; }
    catch (e) { sessionStorage.removeItem("pc.token"); message.textContent = e.status === 401 || e.status === 403 ? t("bad_token") : e.message; }
  };
  show(t("signin"), h("form", { class: "login card", onsubmit: (ev) => { ev.preventDefault(); go(input.value.trim()); } },
    h("label", { for: "token" }, t("token")), input, h("p", { class: "label" }, t("token_help")),
    h("button", { class: "primary", type: "submit", id: "signin" }, t("signin")), " ",
    h("button", { class: "act secondary", type: "button", id: "no-token", onclick: () => go("") }, t("no_token")), message));
}

async function allScopes() {
  const out = []; let cursor;
  do {
    const page = await api("GET", "/v1/scopes" + q({ limit: 1000, cursor }));
    out.push(...page.scopes); cursor = page.next_cursor;
  } while (cursor);
  return out;
}

async function overviewPage() {
  const scopes = await allScopes();
  const stats = await mapLimited(scopes, 4, (s) => api("GET", "/v1/stats" + q({ scope_id: s.scope_id, period: "7d" })));
  const sum = (f) => stats.reduce((n, s) => n + f(s), 0);
  const kinds = {}, purposes = {};
  for (const s of stats) {
    for (const k of s.inventory.memory.entries.by_kind) kinds[k.kind] = (kinds[k.kind] || 0) + k.active;
    for (const p of s.usage.by_purpose)
      purposes[p.purpose] = (purposes[p.purpose] || 0) + (p.generation.input_tokens || 0) + (p.generation.output_tokens || 0) +
                            (p.embedding.input_tokens || 0);
  }
  const baseline = sum((s) => s.recall.totals.baseline_tokens), recalled = sum((s) => s.recall.totals.recalled_tokens);
  const recent = [];
  for (const s of scopes.filter((s) => s.memory.revision > 0).slice(0, 20)) {
    const r = await api("GET", "/v1/memory/revisions" + q({ scope_id: s.scope_id, limit: 5 }));
    for (const rev of r.revisions) recent.push({ scope: s, rev });
  }
  recent.sort((a, b) => (b.rev.created_at || "").localeCompare(a.rev.created_at || ""));
  show(t("overview"),
    h("div", { class: "grid" },
      card(t("scopes"), scopes.length, "fig-scopes"),
      card(t("entries") + " · " + t("active"), sum((s) => s.inventory.memory.entries.active), "fig-active"),
      card(t("entries") + " · " + t("inactive"), sum((s) => s.inventory.memory.entries.inactive), "fig-inactive"),
      card(t("sources") + " · " + t("pending"), sum((s) => s.inventory.sources.memory_pending), "fig-pending"),
      card(t("sources") + " · " + t("processed"), sum((s) => s.inventory.sources.memory_processed), "fig-processed"),
      card(t("candidates"), sum((s) => s.inventory.candidates.pending), "fig-candidates")),
    h("h2", {}, t("by_kind")), bars(Object.entries(kinds).map(([label, value]) => ({ label, value }))),
    h("h2", {}, t("tokens_by_purpose")), bars(Object.entries(purposes).map(([label, value]) => ({ label, value }))),
    h("h2", {}, t("recall_savings")),
    bars([{ label: t("baseline"), value: baseline }, { label: t("recalled"), value: recalled },
          { label: t("saved"), value: Math.max(0, baseline - recalled) }]),
    h("h2", {}, t("scopes")), scopesTable(scopes),
    h("h2", {}, t("recent")),
    recent.length ? h("ul", { class: "timeline", id: "recent" }, recent.slice(0, 12).map(({ scope, rev }) =>
      h("li", {}, h("a", { href: scopeLink(scope.key) + "/revisions" }, scope.key), " @", rev.memory.revision, " · ",
        rev.actor, " · ", rev.reason || "", " ", h("span", { class: "muted" }, time(rev.created_at))))) : h("p", { class: "muted" }, t("none")));
}

function scopesTable(scopes) {
  return h("table", { id: "scopes" }, h("thead", {}, h("tr", {}, h("th", {}, t("key")), h("th", {}, t("revision")), h("th", {}, t("scope")))),
    h("tbody", {}, scopes.map((s) => h("tr", {}, h("td", {}, h("a", { href: scopeLink(s.key) }, s.key)),
      h("td", {}, s.memory.revision), h("td", {}, h("code", {}, s.scope_id))))));
}

async function scopesPage() { show(t("scopes"), scopesTable(await allScopes())); }

async function entriesPage(scope, params) {
  let revision = params.get("revision") || undefined;
  const pinned = revision;
  const entries = []; let cursor, memory;
  do {  // every page of one revision: the first page's, unless one was asked for (docs/api.md, Pagination)
    const page = await api("GET", "/v1/memory/entries" + q({ scope_id: scope, revision, limit: 1000, cursor }));
    entries.push(...page.entries); cursor = page.next_cursor; memory = page.memory;
    if (memory) revision = memory.revision;
  } while (cursor);
  const kinds = [...new Set(entries.map((e) => e.kind))].sort();
  const kindSel = h("select", { id: "f-kind", "aria-label": t("kind") }, h("option", { value: "" }, t("all_kinds")), kinds.map((k) => h("option", { value: k }, k)));
  const hyp = h("input", { type: "checkbox", id: "f-hyp" });
  const text = h("input", { type: "text", id: "f-text", placeholder: t("filter_text"), "aria-label": t("filter_text") });
  const body = h("tbody");
  const count = h("span", { id: "count", class: "muted" });
  const render = () => {
    const needle = text.value.trim().toLowerCase();
    const rows = entries.filter((e) => (!kindSel.value || e.kind === kindSel.value) && (!hyp.checked || e.hypothesis) &&
                                       (!needle || e.text.toLowerCase().includes(needle)));
    count.textContent = `${rows.length} ${t("shown")} · ${entries.length} ${t("of")}`;
    body.replaceChildren(...rows.map((e) => h("tr", { "data-entry": e.entry_id },
      h("td", {}, h("span", { class: "tag" }, e.kind), e.hypothesis ? h("span", { class: "tag hyp" }, t("hypothesis")) : null,
        e.valid_until ? h("span", { class: "tag", "data-valid-until": e.valid_until }, t("valid_until"), " ", time(e.valid_until)) : null),
      h("td", {}, e.text),
      h("td", {}, h("code", { class: "ref" }, e.citation_ref)),
      h("td", {}, e.source_refs.length ? e.source_refs.map((r) => h("div", {}, h("code", { class: "ref" }, r))) : "—"),
      h("td", {}, h("a", { href: scopeLink(scope) + "/entries/" + encodeURIComponent(e.entry_id) }, t("history") + " (v" + e.version + ")")))));
  };
  for (const el of [kindSel, hyp, text]) el.addEventListener("input", render);
  show(`${scope} · ${t("entries")}`, subnav(scope, "entries"),
    h("p", { class: "muted" }, t("at_revision"), " ", memory ? memory.revision : 0, pinned ? "" : ` (${t("head")})`),
    h("div", { class: "filters" }, kindSel, h("label", {}, hyp, " ", t("hypotheses_only")), text, count),
    h("table", { id: "entries" }, h("thead", {}, h("tr", {}, [t("kind"), t("text"), t("citation"), t("evidence"), ""].map((c) => h("th", {}, c)))), body));
  render();
}

async function entryPage(scope, entry) {
  const r = await api("GET", "/v1/memory/entries/" + encodeURIComponent(entry) + "/versions" + q({ scope_id: scope, limit: 1000 }));
  const v = r.versions;
  show(`${t("history")} · ${entry}`, subnav(scope, ""),
    h("ol", { class: "timeline", id: "versions" }, v.map((x, i) => h("li", { "data-version": x.version },
      h("div", {}, h("strong", {}, t("version"), " ", x.version), " · ", t("revision"), " ", x.created_by_revision, " · ",
        h("span", { class: "tag" }, x.kind), x.hypothesis ? h("span", { class: "tag hyp" }, t("hypothesis")) : null,
        " ", h("span", { class: "muted" }, time(x.created_at)),
        x.valid_until ? h("span", { class: "muted" }, " · ", t("valid_until"), " ", time(x.valid_until)) : null),
      i === 0 ? h("p", {}, x.text) : h("div", {}, h("div", { class: "label" }, t("diff_from"), " ", v[i - 1].version), diffView(v[i - 1].text, x.text)),
      x.reason ? h("p", { class: "muted" }, t("reason"), ": ", x.reason) : null,
      x.source_refs.length ? h("p", {}, x.source_refs.map((s) => h("code", { class: "ref" }, s, " "))) : null))));
}

async function revisionsPage(scope) {
  const r = await api("GET", "/v1/memory/revisions" + q({ scope_id: scope, limit: 100 }));
  show(`${scope} · ${t("revisions")}`, subnav(scope, "revisions"),
    r.revisions.length ? h("ol", { class: "timeline", id: "revisions" }, r.revisions.map((rev) => h("li", { "data-revision": rev.memory.revision },
      h("div", {}, h("strong", {}, t("revision"), " ", rev.memory.revision), " · ", rev.actor, " · ", h("span", { class: "muted" }, time(rev.created_at))),
      rev.reason ? h("div", {}, rev.reason) : null,
      h("div", {}, t("changes"), ": ", rev.changes.map((c) => h("span", {}, h("span", { class: "tag" }, c.op), " ",
        h("a", { href: scopeLink(scope) + "/entries/" + encodeURIComponent(c.entry_id) }, c.entry_id), " "))),
      rev.lineage.length ? h("div", {}, t("lineage"), ": ", rev.lineage.map((l) => h("code", { class: "ref" }, l, " "))) : null,
      h("a", { href: scopeLink(scope) + "?revision=" + rev.memory.revision }, t("read_revision"))))) : h("p", { class: "muted" }, t("none")));
}

// A hit's score as a person reads it: a percentage of the best score in the same answer (the top
// hit is 100%, even in a tiny memory whose full-text scores are all near 0); never 0% for a
// positive score. The wire's [0, 1] score is the label's title.
function relevance(score, hits) {
  const best = Math.max(0, ...hits.map((x) => x.score));
  if (!(best > 0) || !(score > 0)) return "0%";
  const pct = 100 * score / best;
  return pct < 1 ? "<1%" : Math.round(Math.min(pct, 100)) + "%";
}

async function searchPage(scope, params) {
  const input = h("input", { type: "text", id: "query", value: params.get("q") || "", "aria-label": t("query"), size: 50 });
  const out = h("div", { class: "modes", id: "modes" });
  const alert = alertBox();
  const run = guarded(alert, async () => {
    const query = input.value.trim();
    if (!query) return;
    // The modes this scope can serve (the others say why, without a request that must fail).
    const caps = (await api("GET", "/v1/capabilities/search" + q({ scope_id: scope }))).modes;
    const modes = ["fts", "vector", "graph", "hybrid"];
    const answers = await Promise.all(modes.map((mode) => caps[mode] && !caps[mode].available
      ? Promise.resolve({ reason: caps[mode].reason })
      : api("POST", "/v1/memory/search", { scope_id: scope, query, mode, limit: 10, explain: true }).then((r) => ({ r }), (e) => ({ reason: e.message }))));
    out.replaceChildren(...modes.map((mode, i) => {
      const { r, reason } = answers[i];
      return h("section", { class: "card", "data-mode": mode }, h("h2", {}, mode),
        reason !== undefined ? h("p", { class: "error" }, t("unavailable"), ": ", reason) :
          r.hits.length ? r.hits.map((hit) => h("div", { class: "hit" }, h("div", {}, hit.text),
            h("div", { class: "label", title: `score ${hit.score}` }, t("relevance"), " ", relevance(hit.score, r.hits), " · ", t("matched_by"), " ", hit.matched_by.join(" + ")))) :
            h("p", { class: "muted" }, t("none")));
    }));
  });
  show(`${scope} · ${t("search")}`, subnav(scope, "search"),
    h("form", { class: "filters", onsubmit: run }, input, h("button", { class: "primary", type: "submit" }, t("run"))), alert, out);
  if (input.value) await run();
}

async function preparePage(scope) {
  const input = h("input", { type: "text", id: "task", "aria-label": t("query"), size: 50 });
  const budget = h("input", { type: "number", id: "budget", value: 8000, min: 512, max: 32768, "aria-label": t("budget") });
  const out = h("div", { id: "prepared" });
  const alert = alertBox();
  const run = guarded(alert, async () => {
    const r = await api("POST", "/v1/context/prepare", { scope_id: scope, query: input.value.trim() || " ", max_bytes: Number(budget.value), explain: true });
    if (r.status !== "ready") { out.replaceChildren(h("p", { class: "muted" }, t("empty_context"))); return; }
    const items = r.items || [];
    const colors = ["#2f5bd3", "#1e8a4c", "#b45f06", "#7b3fb8", "#0f7c8c", "#b3261e", "#5d6b1e", "#8c4a0f"];
    out.replaceChildren(
      h("p", {}, t("bytes_used"), ": ", h("strong", { id: "content-bytes" }, r.content_bytes), " / ", budget.value),
      h("div", { class: "stack", role: "img", "aria-label": t("bytes_used") }, items.map((it, i) =>
        h("span", { title: `${it.type} ${it.bytes} B`, style: `width:${(100 * (it.bytes || 0) / Math.max(1, Number(budget.value))).toFixed(2)}%;background:${colors[i % colors.length]}` }))),
      bars(items.map((it, i) => ({ label: `${i + 1}. ${it.type}`, value: it.bytes || 0 })), " B"),
      h("ol", { id: "items" }, items.map((it) => h("li", {}, h("span", { class: "tag" }, it.type), " ", h("code", { class: "ref" }, it.ref || ""), " · ", it.bytes, " B", it.cut ? " ✂" : ""))),
      h("pre", { class: "block", id: "content" }, r.content));
  });
  show(`${scope} · ${t("prepare")}`, subnav(scope, "prepare"),
    h("form", { class: "filters", onsubmit: run }, input, budget, h("button", { class: "primary", type: "submit" }, t("run"))), alert, out);
}

// A managed Skill's content (untrusted text: shown, never run).
function skillView(p) {
  return h("div", { class: "skill" }, h("strong", {}, p.name), h("div", {}, p.description),
    h("pre", { class: "block" }, p.instructions),
    h("ul", {}, (p.validation || []).map((v) => h("li", {}, v))));
}

function proposalView(c) {
  const p = c.proposal || {};
  if (c.family === "skill") return skillView(p);
  if (c.family === "experience")
    return h("dl", {}, ["situation", "action", "outcome", "lesson"].map((k) => [h("dt", { class: "label" }, t(k)), h("dd", {}, p[k])]));
  return h("div", {}, h("span", { class: "tag" }, p.op), h("span", { class: "tag" }, p.kind), " ", p.text);
}

// A pending proposal's edit: the next version (Experience: the four fields, a Skill its four,
// evidence kept; memory: kind and text). A retire proposal has nothing to edit.
const REVISED_FIELDS = { experience: ["situation", "action", "outcome", "lesson"],
                         skill: ["name", "description", "instructions", "validation"] };
function reviseForm(c, submit) {
  const p = c.proposal || {};
  const fields = REVISED_FIELDS[c.family] || ["kind", "text"];
  const oneLine = (f) => f === "kind" || f === "name" || f === "description";
  const inputs = Object.fromEntries(fields.map((f) => [f, h(oneLine(f) ? "input" : "textarea",
    { name: f, "aria-label": t(f), rows: f === "instructions" ? 6 : 2, cols: 48, type: oneLine(f) ? "text" : undefined },
    oneLine(f) ? null : f === "validation" ? (p.validation || []).join("\n") : p[f] || "")]));
  for (const f of fields) if (oneLine(f)) inputs[f].value = p[f] || "";
  return h("form", { class: "revise", onsubmit: (ev) => {
    ev.preventDefault();
    const proposal = Object.fromEntries(fields.map((f) => [f, f === "validation"
      ? inputs[f].value.split("\n").map((v) => v.trim()).filter((v) => v) : inputs[f].value]));
    submit(c.family in REVISED_FIELDS
      ? { proposal, source_refs: c.source_refs || [], artifact_refs: c.artifact_refs || [], target: c.target || undefined }
      : { proposal, source_refs: [], artifact_refs: [] }, ev);
  } }, fields.map((f) => h("label", { class: "label" }, t(f), h("br"), inputs[f], h("br"))),
    h("button", { class: "act", type: "submit", "data-action": "save" }, t("save")));
}

async function inboxPage(scope) {
  const items = [];
  for (const family of [undefined, "memory"]) {  // the spec's families, then memory candidates (ours)
    let cursor;
    do {
      const page = await api("POST", "/v1/artifact-candidates/list", { scope_id: scope, family, limit: 100, cursor });
      items.push(...page.candidates); cursor = page.next_cursor;
    } while (cursor);
  }
  const alert = alertBox();
  const act = (c, verb, extra) => guarded(alert, async () => {
    await api("POST", "/v1/artifact-candidates/" + verb, { scope_id: scope, candidate_id: c.candidate_id, expected_version: c.version, ...extra() });
    await inboxPage(scope);
  });
  show(`${scope} · ${t("inbox")}`, subnav(scope, "inbox"),
    items.length ? h("table", { id: "inbox" }, h("thead", {}, h("tr", {}, [t("family"), t("proposal"), t("evidence"), ""].map((c) => h("th", {}, c)))),
      h("tbody", {}, items.map((c) => {
        const reason = h("input", { type: "text", placeholder: t("reason"), "aria-label": t("reason") });
        const editing = h("div");
        const canRevise = !(c.proposal && c.proposal.op === "retire");
        return h("tr", { "data-candidate": c.candidate_id },
          h("td", {}, h("span", { class: "tag" }, c.family), " v", c.version, h("div", { class: "muted" }, c.reason || "")),
          h("td", {}, proposalView(c), editing),
          h("td", {}, (c.source_refs || []).map((s) => h("div", {}, h("code", { class: "ref" }, s.name + "/" + s.source_id)))),
          h("td", {}, h("button", { class: "act", type: "button", "data-action": "approve", onclick: act(c, "approve", () => ({})) }, t("approve")), " ",
            canRevise ? h("button", { class: "act secondary", type: "button", "data-action": "revise",
              onclick: () => editing.replaceChildren(reviseForm(c, (body, ev) => act(c, "revise", () => body)(ev))) }, t("revise")) : null, " ",
            reason, " ",
            h("button", { class: "act danger", type: "button", "data-action": "reject",
              onclick: act(c, "reject", () => ({ reason: reason.value.trim() || "rejected in the console" })) }, t("reject"))));
      }))) : h("p", { class: "muted", id: "inbox-empty" }, t("none")), alert);
}

async function sourcesPage(scope, note = "") {
  const stats = await api("GET", "/v1/stats" + q({ scope_id: scope, period: "today" }));
  const list = { sources: [], high_watermark: 0 };
  let after;
  do {
    const page = await api("GET", "/v1/sources" + q({ scope_id: scope, limit: 1000, after }));
    list.sources.push(...page.sources); list.high_watermark = page.high_watermark; after = page.next_after ?? undefined;
  } while (after !== undefined);
  // The scope's last flush, whoever ran it (a request, the schedule, this console): the server keeps it.
  const last = (await api("GET", "/v1/memory/flush/last" + q({ scope_id: scope }))).last_flush;
  const alert = alertBox();
  const flush = guarded(alert, async () => {
    const r = await api("POST", "/v1/memory/flush", { scope_id: scope });
    await sourcesPage(scope, r.status === "idle" ? t("flush_idle") : "");
  });
  show(`${scope} · ${t("sources")}`, subnav(scope, "sources"),
    h("div", { class: "grid" },
      card(t("cursor"), stats.inventory.sources.memory_processed, "fig-cursor"),
      card(t("high_watermark"), list.high_watermark, "fig-high"),
      card(t("pending"), stats.inventory.sources.memory_pending, "fig-source-pending")),
    h("p", {}, h("button", { class: "primary", type: "button", id: "flush", onclick: flush }, t("flush"))), alert,
    note ? h("p", { class: "muted", id: "flush-note" }, note) : null,
    last ? h("section", { class: "card", id: "last-flush" }, h("h2", {}, t("last_flush")),
      h("p", { class: "muted" }, time(last.at), " · ", last.actor),
      h("p", {}, last.status, " · ", t("cursor"), " ", last.previous_cursor, " → ", last.current_cursor, " / ", last.high_watermark),
      last.changes.map((c) => h("div", {}, h("span", { class: "tag" }, c.op), " ", (c.entry && c.entry.text) || c.entry_id)),
      last.candidates.map((id) => h("div", {}, h("span", { class: "tag" }, t("inbox")), " ", h("code", { class: "ref" }, id))),
      last.rejected.length ? h("div", { id: "last-flush-rejected" }, h("h2", {}, t("rejected")), last.rejected.map((r) =>
        h("div", { class: "hit" }, h("code", { class: "ref" }, typeof r.candidate === "string" ? r.candidate : JSON.stringify(r.candidate)),
          h("div", { class: "error" }, r.reason)))) : null,
      last.rejected_omitted ? h("p", { class: "muted" }, "+ ", last.rejected_omitted) : null) : null,
    h("h2", {}, t("sources")),
    list.sources.length ? h("table", { id: "sources" }, h("thead", {}, h("tr", {}, [t("position"), t("kind"), t("content"), t("time")].map((c) => h("th", {}, c)))),
      h("tbody", {}, list.sources.map((x) => h("tr", { class: x.position <= stats.inventory.sources.memory_processed ? "" : "pending" },
        h("td", {}, x.position), h("td", {}, h("span", { class: "tag" }, x.kind), x.purpose === "archive" ? h("span", { class: "tag off" }, x.purpose) : null),
        h("td", {}, x.content.length > 400 ? x.content.slice(0, 400) + " …" : x.content, h("div", {}, h("code", { class: "ref" }, x.source_ref))),
        h("td", { class: "muted" }, time(x.created_at)))))) : h("p", { class: "muted" }, t("none")));
}

function citationText(c) {
  if (c.kind === "source") return `${c.source_ref.name}/${c.source_ref.source_id}`;
  if (c.kind === "memory") { const m = c.memory_citation; return `memory/${m.memory_ref.artifact_id}@${m.memory_ref.revision}#${m.entry_id}`; }
  const a = c.artifact_ref || c.artifact || {};
  return `${a.family || c.kind}/${a.artifact_id || ""}@${a.revision || ""}`;
}
const statement = (s) => h("li", {}, s.text, " ", (s.citations || []).map((c) => h("code", { class: "ref" }, "[", citationText(c), "] ")));

async function handoffsPage(scope) {
  const r = await api("GET", "/v1/handoff/history" + q({ scope_id: scope, limit: 50 }));
  show(`${scope} · ${t("handoffs")}`, subnav(scope, "handoffs"),
    r.handoffs.length ? h("div", { id: "handoffs" }, r.handoffs.map((x) => h("section", { class: "card", "data-ref": x.ref },
      h("h2", {}, t("revision"), " ", x.ref.split("@").pop(), " · ", x.content.disposition),
      h("p", {}, h("strong", {}, t("objective"), ": "), x.content.objective),
      h("div", { class: "label" }, t("state")), h("ul", {}, x.content.state.map(statement)),
      x.content.next_action ? [h("div", { class: "label" }, t("next_action")), h("ul", {}, statement(x.content.next_action))] : null,
      (x.content.omissions || []).length ? [h("div", { class: "label" }, t("omissions")), h("ul", {}, x.content.omissions.map((o) => h("li", {}, o.text)))] : null,
      h("p", { class: "muted" }, x.actor, " · ", time(x.created_at))))) : h("p", { class: "muted" }, t("none")));
}

// Skills (docs/skills.md). Managed: the scope's approved Skill revisions (each approved skill
// candidate's result, read exactly). External: the scope's registrations, each as the server finds
// it on disk now; a scan re-reads the roots, and Import asks the model for a managed candidate. A
// server without roots says so (asked first: no refused request).
async function managedSkills(scope) {
  const approved = [];
  let cursor;
  do {
    const page = await api("POST", "/v1/artifact-candidates/list", { scope_id: scope, family: "skill", status: "approved", limit: 100, cursor });
    approved.push(...page.candidates); cursor = page.next_cursor;
  } while (cursor);
  const skills = await mapLimited(approved, 4, (c) => api("POST", "/v1/skill/get", { scope_id: scope, artifact: c.result_artifact }));
  return skills.length ? h("table", { id: "managed-skills" }, h("thead", {}, h("tr", {}, [t("name"), t("evidence")].map((c) => h("th", {}, c)))),
    h("tbody", {}, skills.map((k) => h("tr", { "data-skill-artifact": k.artifact.artifact_id, "data-revision": k.artifact.revision },
      h("td", {}, skillView(k.content), h("code", { class: "ref" }, `skill/${k.artifact.artifact_id}@${k.artifact.revision}`)),
      h("td", {}, (k.source_refs || []).map((s) => h("div", {}, h("code", { class: "ref" }, s.name + "/" + s.source_id))),
        (k.artifact_refs || []).map((a) => h("div", {}, h("code", { class: "ref" }, `${a.family}/${a.artifact_id}@${a.revision}`)))))))) :
    h("p", { class: "muted", id: "managed-none" }, t("managed_none"));
}

async function skillsPage(scope, note = "") {
  const caps = await api("GET", "/v1/capabilities");
  const managed = [h("h2", {}, t("managed_skills")), await managedSkills(scope), h("h2", {}, t("external_skills"))];
  if (!caps.external_skill_registry) {
    show(`${scope} · ${t("skills")}`, subnav(scope, "skills"), ...managed, h("p", { class: "muted", id: "skills-unconfigured" }, t("skills_unconfigured")));
    return;
  }
  const r = await api("POST", "/v1/external-skills/list", { scope_id: scope, include_unavailable: true });
  const alert = alertBox();
  const scan = guarded(alert, async () => {
    const s = await api("POST", "/v1/external-skills/scan", { scope_id: scope });
    await skillsPage(scope, `${t("registered")} ${s.registrations.length} · ${t("skipped")} ${s.skipped}`);
  });
  const importer = (x) => guarded(alert, async () => {
    const out = await api("POST", "/v1/external-skills/import", { scope_id: scope, external_skill_id: x.registration.external_skill_id,
                                                                 fingerprint: x.registration.fingerprint, mode: "import" });
    await skillsPage(scope, out.candidate ? `${x.registration.name}: ${t("imported")} ${out.candidate.candidate_id} · ${t("review_it")}`
                                          : `${x.registration.name}: ${t("no_skill")}`);
  });
  show(`${scope} · ${t("skills")}`, subnav(scope, "skills"), ...managed,
    h("p", {}, h("button", { class: "primary", type: "button", id: "scan", onclick: scan }, t("scan"))), alert,
    note ? h("p", { class: "muted", id: "scan-note" }, note) : null,
    r.skills.length ? h("table", { id: "skills" }, h("thead", {}, h("tr", {}, [t("name"), t("description"), t("status"), t("package"), ""].map((c) => h("th", {}, c)))),
      h("tbody", {}, r.skills.map((x) => h("tr", { "data-skill": x.registration.external_skill_id, "data-status": x.status },
        h("td", {}, x.registration.name, h("div", {}, h("code", { class: "ref" }, x.registration.external_skill_id))),
        h("td", {}, x.registration.description),
        h("td", {}, h("span", { class: x.status === "available" ? "tag" : "tag off" }, x.status === "available" ? t("available") : t("unavailable")),
          " ", h("span", { class: "tag" }, x.registration.installation_scope)),
        h("td", {}, h("code", { class: "ref" }, x.entrypoint || x.registration.locator),
          h("div", { class: "muted" }, t("fingerprint"), " ", x.registration.fingerprint.slice(0, 12), "…")),
        h("td", {}, x.status === "available" && caps.managed_skill_generation
          ? h("button", { class: "act secondary", type: "button", "data-action": "import", onclick: importer(x) }, t("import_skill")) : null))))) :
      h("p", { class: "muted", id: "skills-none" }, t("skills_none")));
}

async function auditPage(scope) {
  let r;
  try { r = await api("GET", "/v1/audit" + q({ scope_id: scope, limit: 200 })); }
  catch (e) { if (e.status === 403) { show(`${scope} · ${t("audit")}`, subnav(scope, "audit"), h("p", { class: "error" }, t("admin_only"))); return; } throw e; }
  show(`${scope} · ${t("audit")}`, subnav(scope, "audit"),
    r.events.length ? h("table", { id: "audit" }, h("thead", {}, h("tr", {}, [t("time"), t("actor"), t("operation"), t("result"), t("targets")].map((c) => h("th", {}, c)))),
      h("tbody", {}, r.events.map((e) => h("tr", { "data-seq": e.seq }, h("td", { class: "muted" }, time(e.at)), h("td", {}, e.actor),
        h("td", {}, e.operation), h("td", {}, h("span", { class: e.result === "ok" ? "tag" : "tag hyp" }, e.result)),
        h("td", {}, h("code", { class: "ref" }, JSON.stringify(e.targets))))))) : h("p", { class: "muted" }, t("none")));
}

// Handoff Reports (docs/handoff-reports.md): the Projects as tabs (by their immutable id), and the
// selected Project's report — the server's Markdown in the page's language, made into elements by
// markdownView: every piece of it is text (textContent), so nothing a person or an agent wrote can
// become markup. Counts come from the canonical JSON of the same report.
function inline(s) {  // `code` spans; elsewhere the renderer's escapes undone
  const plain = (x) => x.replace(/\\(.)/g, "$1").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  return s.split("`").map((part, i) => i % 2 ? h("code", {}, part) : plain(part));
}
function markdownView(md) {
  const out = []; let list = null, table = null;
  const lines = md.split("\n");
  let i = 0;
  if (lines[0] === "---") {  // front matter: shown as it is
    const end = lines.indexOf("---", 1);
    out.push(h("pre", { class: "front-matter" }, lines.slice(0, end + 1).join("\n")));
    i = end + 1;
  }
  const flush = () => { list = null; table = null; };
  for (; i < lines.length; i++) {
    const line = lines[i];
    let m;
    if ((m = line.match(/^(#{1,4}) (.*)$/))) { flush(); out.push(h("h" + (m[1].length + 1), {}, inline(m[2]))); }
    else if (line.startsWith("> ")) { flush(); out.push(h("blockquote", {}, inline(line.slice(2)))); }
    else if (line.startsWith("- ")) {
      if (!list) { list = h("ul", {}); out.push(list); table = null; }
      list.append(h("li", {}, inline(line.slice(2))));
    } else if (line.startsWith("|")) {
      const cells = line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim());
      if (cells.every((c) => /^-+$/.test(c))) continue;
      if (!table) { table = h("table", { class: "report-table" }, h("thead", {}, h("tr", {}, cells.map((c) => h("th", {}, inline(c)))))); table.append(h("tbody", {})); out.push(table); list = null; }
      else table.querySelector("tbody").append(h("tr", {}, cells.map((c) => h("td", {}, inline(c)))));
    } else if (line.trim() === "") flush();
    else { flush(); out.push(h("p", {}, inline(line))); }
  }
  return h("div", { class: "report", id: "report" }, out);
}

async function reportsPage(projectId) {
  const r = await api("POST", "/v1/handoff-reports/projects/list", { limit: 100 });
  if (!r.items.length) { show(t("reports"), h("p", { class: "muted", id: "projects-none" }, t("projects_none"))); return; }
  const current = projectId || r.items[0].project_id;
  const tabs = h("nav", { class: "subnav", id: "project-tabs", "aria-label": t("projects") }, r.items.map((p) =>
    h("a", { href: "#/reports/" + encodeURIComponent(p.project_id), "data-project": p.project_id, "aria-current": p.project_id === current ? "page" : false },
      p.title, " ", h("code", { class: "ref" }, p.project_id))));
  const locale = lang === "zh" ? "zh-CN" : "en";
  const [json, md] = await Promise.all([
    api("POST", "/v1/handoff-reports/get", { project_id: current, format: "json", locale, include_evidence_checks: false }),
    apiText("POST", "/v1/handoff-reports/get", { project_id: current, locale })]);
  const s = json.report.summary;
  const download = h("button", { type: "button", id: "download-md", onclick: () => {
    const a = h("a", { href: URL.createObjectURL(new Blob([md.text], { type: "text/markdown" })), download: `handoff-report-${current}.md` });
    a.click(); URL.revokeObjectURL(a.href);
  } }, t("download_md"));
  show(`${t("reports")} · ${json.report.project.title}`, tabs,
    h("div", { class: "grid" }, card("✖ " + t("blocked"), s.blocked_count, "fig-blocked"), card("▶ " + t("continuable"), s.continuable_count, "fig-continuable"),
      card("✔ " + t("complete"), s.complete_count, "fig-complete"), card("∅ " + t("no_handoff"), s.no_handoff_count, "fig-no-handoff")),
    h("p", { class: "muted" }, t("report_meta"), " ", h("code", { class: "ref", id: "selection-digest" }, md.selection || ""), " ", download),
    markdownView(md.text));
}

// ---- routing -----------------------------------------------------------------------------------
const ROUTES = [
  [/^\/login$/, () => loginPage()],
  [/^\/$/, () => overviewPage()],
  [/^\/scopes$/, () => scopesPage()],
  [/^\/reports$/, () => reportsPage()],
  [/^\/reports\/([^/]+)$/, (m) => reportsPage(decodeURIComponent(m[1]))],
  [/^\/scopes\/([^/]+)$/, (m, p) => entriesPage(decodeURIComponent(m[1]), p)],
  [/^\/scopes\/([^/]+)\/entries\/([^/]+)$/, (m) => entryPage(decodeURIComponent(m[1]), decodeURIComponent(m[2]))],
  [/^\/scopes\/([^/]+)\/revisions$/, (m) => revisionsPage(decodeURIComponent(m[1]))],
  [/^\/scopes\/([^/]+)\/search$/, (m, p) => searchPage(decodeURIComponent(m[1]), p)],
  [/^\/scopes\/([^/]+)\/prepare$/, (m) => preparePage(decodeURIComponent(m[1]))],
  [/^\/scopes\/([^/]+)\/inbox$/, (m) => inboxPage(decodeURIComponent(m[1]))],
  [/^\/scopes\/([^/]+)\/sources$/, (m) => sourcesPage(decodeURIComponent(m[1]))],
  [/^\/scopes\/([^/]+)\/handoffs$/, (m) => handoffsPage(decodeURIComponent(m[1]))],
  [/^\/scopes\/([^/]+)\/skills$/, (m) => skillsPage(decodeURIComponent(m[1]))],
  [/^\/scopes\/([^/]+)\/audit$/, (m) => auditPage(decodeURIComponent(m[1]))],
];

function chrome(path) {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  document.querySelector(".skip").textContent = lang === "zh" ? "跳到内容" : "Skip to content";
  const nav = document.getElementById("nav");
  nav.replaceChildren(...[["#/", t("overview"), path === "/"], ["#/scopes", t("scopes"), path.startsWith("/scopes")],
                          ["#/reports", t("reports"), path.startsWith("/reports")]].map(([href, label, on]) =>
    h("a", { href, "aria-current": on ? "page" : false }, label)));
  document.getElementById("lang").textContent = t("lang");
  document.getElementById("signout").textContent = t("signout");
}

async function route() {
  generation++;
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query] = hash.split("?");
  chrome(path);
  const params = new URLSearchParams(query || "");
  view().replaceChildren(h("p", { class: "muted" }, t("loading")));
  for (const [re, page] of ROUTES) {
    const m = path.match(re);
    if (!m) continue;
    try { await page(m, params); }
    catch (e) {
      if (e instanceof Stale || location.hash === "#/login") return;
      show(t("failed"), h("p", { class: "error", role: "alert" }, e.code ? `${e.code}: ${e.message}` : String(e)));
    }
    return;
  }
  show("404", h("p", {}, path));
}

document.getElementById("lang").addEventListener("click", () => {
  lang = lang === "zh" ? "en" : "zh";
  sessionStorage.setItem("pc.lang", lang);
  route();
});
document.getElementById("signout").addEventListener("click", () => {
  sessionStorage.removeItem("pc.token");
  location.hash = "#/login";
});
window.addEventListener("hashchange", route);
route();
