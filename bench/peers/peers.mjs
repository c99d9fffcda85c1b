// Peers side by side (driver of bench/peers/run.sh; run that, not this file directly).
//
// Same data, same machine, same embedder — the fake OpenAI-compatible endpoint, 384-d — for:
//   pc-http   PowerContext over HTTP (`powercontext serve`, durable default), keep-alive client:
//             POST /v1/memory/remember per item, POST /v1/memory/search (hybrid, vector, fts).
//   pc-mcp    PowerContext over MCP stdio (`powercontext mcp`), official SDK client:
//             remember_memory per item, search_memory (hybrid, and vector).
//   mem0      mem0ai OSS `Memory` in this process: add(text, {infer: false}) per item (embeds,
//             writes its SQLite vector store and a history row), search(query, topK 10).
//   server-memory  @modelcontextprotocol/server-memory over MCP stdio, SDK client:
//             create_entities (one entity, one observation) per item, search_nodes.
// Items are added one at a time, then M queries run one at a time; each op is timed from the
// client. Reports total, ops/s and p50/p95/p99 per system, ratios peer / PowerContext, and the
// self-query hit rate (a query that is an item's own text must find that item in the top 10).
//
//   node bench/peers/peers.mjs --fake-url URL --scratch DIR --node-modules DIR --powercontext BIN
//        [--data ../shared/data] [--items 1000] [--queries 100] [--out build/peers.json]
//        [--systems pc-http,pc-mcp,mem0,server-memory]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

// ---- arguments ----
const opts = {
  items: 1000, queries: 100, out: 'build/peers.json', data: '../shared/data',
  systems: 'pc-http,pc-mcp,mem0,server-memory',
};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
  if (!m) throw new Error(`unexpected argument ${argv[i]}`);
  const key = m[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  opts[key] = m[2] ?? argv[++i];
}
const N = Number(opts.items), M = Number(opts.queries);
for (const k of ['fakeUrl', 'scratch', 'nodeModules', 'powercontext'])
  if (!opts[k]) throw new Error(`--${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} is required`);
const systems = opts.systems.split(',');
const embedFlags = ['--embed-provider', 'openai', '--embed-base-url', opts.fakeUrl,
  '--embed-model', 'fake', '--embed-dimension', '384'];
const mod = (p) => import(pathToFileURL(path.join(opts.nodeModules, p)).href);

// ---- data: N short memory texts and M queries, mixed Chinese and English ----
function loadData() {
  const dir = opts.data;
  const norm = (s) => s.normalize('NFKC').replace(/\s+/g, ' ').trim();
  const lists = [];     // sources of items, taken round-robin so any prefix is mixed
  const probes = [];    // labelled probing questions (MemoryBank), English and Chinese
  try {
    for (const lang of ['en', 'zh']) {
      const lines = fs.readFileSync(path.join(dir, `madial-bench/MADial-Bench-${lang}-memory.json`), 'utf8')
        .split('\n').filter(Boolean);
      lists.push(lines.map((l) => Object.values(JSON.parse(l))[0].event));
    }
    // MemoryBank: what the users said (and, for larger N, what the assistant answered).
    const banks = ['en', 'cn'].map((lang) =>
      JSON.parse(fs.readFileSync(path.join(dir, `memorybank/memory_bank_${lang}.json`), 'utf8')));
    for (const field of ['query', 'response'])
      for (const bank of banks)
        lists.push(Object.values(bank).flatMap((u) => Object.values(u.history).flat().map((t) => t[field])));
    const pq = ['en', 'cn'].map((lang) => fs.readFileSync(path.join(dir, `memorybank/probing_questions_${lang}.jsonl`), 'utf8')
      .split('\n').filter(Boolean).flatMap((l) => Object.values(JSON.parse(l)).flat()));
    for (let i = 0; i < Math.max(pq[0].length, pq[1].length); i++)
      for (const q of pq) if (q[i]) probes.push(q[i]);
  } catch (e) {
    console.error(`peers: no data under ${dir} (${e.message}); using generated text`);
    lists.length = 0; probes.length = 0;
  }
  const items = [], seen = new Set();
  const take = (t) => {
    t = typeof t === 'string' ? norm(t) : '';
    if (t.length >= 8 && !seen.has(t.toLowerCase())) { seen.add(t.toLowerCase()); items.push(t); }
  };
  for (let i = 0; items.length < N && lists.some((l) => i < l.length); i++)
    for (const l of lists) if (i < l.length && items.length < N) take(l[i]);
  // Generated filler (fallback, or N beyond the data): words from a fixed vocabulary.
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = 'order import schema migration contract test deploy cache index query vector budget ' +
    'release review 迁移 测试 部署 缓存 索引 查询 预算 发布 评审 数据库 接口 用户'.split(' ');
  if (items.length < N) console.error(`peers: ${items.length} texts in the data; generated text for the other ${N - items.length}`);
  while (items.length < N) take(`note ${items.length}: ` + Array.from({ length: 8 }, () => words[Math.floor(rnd() * words.length)]).join(' '));
  if (probes.length === 0) for (let i = 0; i < M; i++) probes.push(`${words[i % words.length]} ${words[(i * 7) % words.length]}`);
  // Queries alternate: an item's own text (self query, checks correctness), a probing question.
  const queries = [];
  for (let i = 0; i < M; i++) {
    if (i % 2 === 0) {
      const idx = Math.floor((i / 2) * N / Math.ceil(M / 2)) % N;
      queries.push({ text: items[idx], self: idx });
    } else {
      queries.push({ text: probes[((i - 1) / 2) % probes.length], self: -1 });
    }
  }
  return { items, queries };
}

// ---- timing ----
function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const pct = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  const total = ms.reduce((a, b) => a + b, 0);
  return { n: ms.length, total_s: total / 1000, ops_per_s: ms.length / (total / 1000), p50_ms: pct(50), p95_ms: pct(95), p99_ms: pct(99) };
}
async function timed(list, fn) {
  const ms = [];
  for (let i = 0; i < list.length; i++) {
    const t0 = performance.now();
    await fn(list[i], i);
    ms.push(performance.now() - t0);
  }
  return ms;
}
// Runs the queries; `search` returns the texts found, best first. Hit rate over the self queries.
async function searchRun(queries, search) {
  let selfN = 0, hit1 = 0, hit10 = 0, answered = 0;
  const ms = [], selfMs = [], probeMs = [];
  for (const q of queries) {
    const t0 = performance.now();
    const texts = await search(q.text);
    ms.push(performance.now() - t0);
    (q.self >= 0 ? selfMs : probeMs).push(ms[ms.length - 1]);
    if (texts.length) answered++;
    if (q.self >= 0) {
      selfN++;
      if (texts[0] === q.text) hit1++;
      if (texts.slice(0, 10).includes(q.text)) hit10++;
    }
  }
  return { ...stats(ms), self_hit_at_1: hit1 / selfN, self_hit_at_10: hit10 / selfN, answered: answered / queries.length,
    p50_ms_self_queries: stats(selfMs).p50_ms, p50_ms_probe_queries: stats(probeMs).p50_ms };
}

// ---- processes ----
async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}
function scratchDir(name) {
  const d = path.join(opts.scratch, name);
  fs.mkdirSync(d, { recursive: true });
  return d;
}
async function mcpClient(command, args, env, name) {
  const { Client } = await mod('@modelcontextprotocol/sdk/dist/esm/client/index.js');
  const { StdioClientTransport } = await mod('@modelcontextprotocol/sdk/dist/esm/client/stdio.js');
  const transport = new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d) => { err += d; });
  const client = new Client({ name: `peers-bench-${name}`, version: '1.0.0' });
  await client.connect(transport);
  const call = async (tool, args) => {
    const r = await client.callTool({ name: tool, arguments: args });
    if (r.isError) throw new Error(`${name} ${tool}: ${r.content?.[0]?.text} ${err}`);
    return r;
  };
  return { call, close: () => client.close() };
}

// ---- systems; each returns { add: stats, search: { variant: stats } } ----
async function runPcHttp({ items, queries }) {
  const port = await freePort();
  const proc = spawn(opts.powercontext, ['serve', '--data', scratchDir('pc-http'), '--listen', `127.0.0.1:${port}`, ...embedFlags],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d) => { err += d; });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const request = (method, p, body) => new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request({ host: '127.0.0.1', port, path: p, method, agent,
      headers: data ? { 'content-type': 'application/json', 'content-length': data.length } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode >= 300) reject(new Error(`${method} ${p}: ${res.statusCode} ${text}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.end(data);
  });
  try {
    for (let i = 0; ; i++) {   // wait for the server
      try { await request('GET', '/v1/health'); break; } catch (e) {
        if (i > 200 || proc.exitCode !== null) throw new Error(`powercontext serve did not start: ${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    const scope_id = 'bench:peers';  // a caller-chosen name: the first remember creates the scope
    const add = stats(await timed(items, async (text) => {
      const r = await request('POST', '/v1/memory/remember', { scope_id, kind: 'fact', text });
      if (!r.entry) throw new Error(`not added: ${text}`);
    }));
    const search = {};
    for (const mode of ['hybrid', 'vector', 'fts'])   // fts: no ratio, for where hybrid's time goes
      search[mode] = await searchRun(queries, async (query) =>
        (await request('POST', '/v1/memory/search', { scope_id, query, mode, limit: 10 })).hits.map((h) => h.text));
    return { add, search };
  } finally {
    agent.destroy();
    proc.kill('SIGTERM');
    await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
  }
}

async function runPcMcp({ items, queries }) {
  const c = await mcpClient(opts.powercontext, ['mcp', '--data', scratchDir('pc-mcp'), ...embedFlags], {}, 'powercontext');
  try {
    // The scope is named by the caller; the first remember creates it.
    const scope_id = 'bench:peers';
    const add = stats(await timed(items, async (text) => {
      const r = await c.call('remember_memory', { scope_id, kind: 'fact', text });
      if (!r.structuredContent.entry) throw new Error(`not added: ${text}`);
    }));
    const search = {};
    for (const mode of ['hybrid', 'vector'])
      search[mode] = await searchRun(queries, async (query) =>
        (await c.call('search_memory', { scope_id, query, mode, limit: 10 })).structuredContent.hits.map((h) => h.text));
    return { add, search };
  } finally {
    await c.close();
  }
}

async function runMem0({ items, queries }) {
  const dir = scratchDir('mem0');
  process.env.MEM0_TELEMETRY = 'false';
  process.env.MEM0_DIR = path.join(dir, 'home');   // its config file, instead of ~/.mem0
  const { Memory } = await mod('mem0ai/dist/oss/index.mjs');
  const memory = new Memory({
    version: 'v1.1',
    embedder: { provider: 'openai', config: { apiKey: 'x', baseURL: opts.fakeUrl, model: 'fake', embeddingDims: 384 } },
    // "memory" is mem0's own store: a better-sqlite3 table of (id, vector blob, payload JSON).
    vectorStore: { provider: 'memory', config: { collectionName: 'bench', dimension: 384, dbPath: path.join(dir, 'vector_store.db') } },
    // Not called with infer: false; pointed at the fake server all the same.
    llm: { provider: 'openai', config: { apiKey: 'x', baseURL: opts.fakeUrl, model: 'fake' } },
    historyDbPath: path.join(dir, 'history.db'),
  });
  // Where mem0's time goes: wrap its embedder, vector store and history store (internals, for the
  // breakdown only; the vector store is created by its async initialization).
  await memory._initPromise;
  // mem0's OpenAI client keeps its connections alive (its default), as PowerContext's does.
  const spent = {};
  const wrap = (obj, label, names) => {
    for (const n of names) {
      if (!obj || typeof obj[n] !== 'function') continue;
      const orig = obj[n].bind(obj);
      obj[n] = async (...a) => {
        const t0 = performance.now();
        try { return await orig(...a); } finally { spent[label] = (spent[label] ?? 0) + performance.now() - t0; }
      };
    }
  };
  wrap(memory.embedder, 'embed_ms', ['embed', 'embedBatch']);
  wrap(memory.vectorStore, 'vector_store_ms', ['insert', 'search', 'keywordSearch']);
  wrap(memory.db, 'history_ms', ['addHistory']);
  const breakdown = (ms) => {
    const total = ms.reduce((a, b) => a + b, 0), out = {};
    for (const [k, v] of Object.entries(spent)) out[k] = v / ms.length;
    out.other_ms = (total - Object.values(spent).reduce((a, b) => a + b, 0)) / ms.length;
    for (const k of Object.keys(spent)) delete spent[k];
    return out;   // per op, mean
  };
  const addMs = await timed(items, async (text) => {
    const r = await memory.add(text, { userId: 'bench', infer: false });
    if (r.results.length !== 1) throw new Error(`not added: ${text}`);
  });
  const add = { ...stats(addMs), per_op_mean: breakdown(addMs) };
  const s = await searchRun(queries, async (query) =>
    (await memory.search(query, { filters: { user_id: 'bench' }, topK: 10 })).results.map((r) => r.memory));
  const search = { default: { ...s, per_op_mean: breakdown(Array(s.n).fill(s.total_s * 1000 / s.n)) } };
  return { add, search };
}

async function runServerMemory({ items, queries }) {
  const file = path.join(scratchDir('server-memory'), 'memory.jsonl');
  const c = await mcpClient(process.execPath,
    [path.join(opts.nodeModules, '@modelcontextprotocol/server-memory/dist/index.js')], { MEMORY_FILE_PATH: file }, 'server-memory');
  try {
    const add = stats(await timed(items, async (text, i) => {
      await c.call('create_entities', { entities: [{ name: `item-${i}`, entityType: 'memory', observations: [text] }] });
    }));
    // search_nodes is a case-insensitive substring match over names, types and observations.
    const search = {
      substring: await searchRun(queries, async (query) =>
        (await c.call('search_nodes', { query })).structuredContent.entities.map((e) => e.observations[0])),
    };
    return { add, search };
  } finally {
    await c.close();
  }
}

// ---- main ----
const data = loadData();
const loadBefore = os.loadavg();
const runners = { 'pc-http': runPcHttp, 'pc-mcp': runPcMcp, mem0: runMem0, 'server-memory': runServerMemory };
const results = {};
for (const name of systems) {
  if (!runners[name]) throw new Error(`unknown system ${name}`);
  process.stderr.write(`peers: ${name}: ${N} adds, ${M} searches...\n`);
  const t0 = performance.now();
  results[name] = await runners[name](data);
  process.stderr.write(`peers: ${name}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

// Ratios: peer time / PowerContext time (so > 1 means PowerContext is faster). mem0 (an
// in-process library) is set against PowerContext over HTTP; server-memory (MCP stdio) against
// PowerContext over MCP stdio. Searches against PowerContext's hybrid and vector modes.
const ratios = [];
const ratio = (peer, pv, pc, cv) => {
  const a = results[peer], b = results[pc];
  if (!a || !b) return;
  ratios.push({ peer, pc, op: 'add', p50: a.add.p50_ms / b.add.p50_ms, total: a.add.total_s / b.add.total_s });
  for (const mode of cv) {
    const x = a.search[pv], y = b.search[mode];
    ratios.push({ peer, pc, op: `search (${pv} vs ${mode})`, p50: x.p50_ms / y.p50_ms, total: x.total_s / y.total_s });
  }
};
ratio('mem0', 'default', 'pc-http', ['hybrid', 'vector']);
ratio('mem0', 'default', 'pc-mcp', ['hybrid', 'vector']);
ratio('server-memory', 'substring', 'pc-mcp', ['hybrid', 'vector']);

const f = (x, d = 2) => (x === undefined ? '' : x.toFixed(d));
const lines = [];
lines.push(`${N} items added one at a time, then ${M} searches (limit 10); ${data.items.length} items, ` +
  `node ${process.version}, load average ${loadBefore[0].toFixed(2)} before / ${os.loadavg()[0].toFixed(2)} after. Times in ms.`, '');
lines.push('| system | op | total s | ops/s | p50 | p95 | p99 | self hit@1 | self hit@10 |');
lines.push('|---|---|---|---|---|---|---|---|---|');
for (const [name, r] of Object.entries(results)) {
  lines.push(`| ${name} | add | ${f(r.add.total_s)} | ${f(r.add.ops_per_s, 0)} | ${f(r.add.p50_ms, 3)} | ${f(r.add.p95_ms, 3)} | ${f(r.add.p99_ms, 3)} | | |`);
  for (const [v, s] of Object.entries(r.search))
    lines.push(`| ${name} | search ${v} | ${f(s.total_s)} | ${f(s.ops_per_s, 0)} | ${f(s.p50_ms, 3)} | ${f(s.p95_ms, 3)} | ${f(s.p99_ms, 3)} | ${f(s.self_hit_at_1)} | ${f(s.self_hit_at_10)} |`);
}
lines.push('', '| peer / PowerContext | op | p50 ratio | total ratio |', '|---|---|---|---|');
for (const r of ratios) lines.push(`| ${r.peer} / ${r.pc} | ${r.op} | ${f(r.p50, 1)}× | ${f(r.total, 1)}× |`);
if (results.mem0) {
  const b = (o) => Object.entries(o).map(([k, v]) => `${k.replace(/_ms$/, '')} ${v.toFixed(2)}`).join(', ');
  lines.push('', `mem0, mean ms per op — add: ${b(results.mem0.add.per_op_mean)}; search: ${b(results.mem0.search.default.per_op_mean)}.`);
}
console.log(lines.join('\n'));

const out = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadavg_before: loadBefore,
  loadavg_after: os.loadavg(), items: N, queries: M, results, ratios,
  versions: Object.fromEntries(['mem0ai', '@modelcontextprotocol/server-memory', '@modelcontextprotocol/sdk', 'better-sqlite3']
    .map((p) => [p, JSON.parse(fs.readFileSync(path.join(opts.nodeModules, p, 'package.json'), 'utf8')).version])) };
fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
fs.writeFileSync(opts.out, JSON.stringify(out, null, 2) + '\n');
console.error(`peers: wrote ${opts.out}`);

// A run that does not find its own items measures nothing: PowerContext and mem0 must return each
// self query's item in their top 10 (server-memory finds it by substring).
const broken = [];
for (const [name, r] of Object.entries(results))
  for (const [v, s] of Object.entries(r.search))
    if (s.self_hit_at_10 !== undefined && s.self_hit_at_10 < 1) broken.push(`${name} search ${v}: self hit@10 ${s.self_hit_at_10}`);
if (broken.length) {
  console.error(`peers: a system missed its own items:\n  ${broken.join('\n  ')}`);
  process.exit(1);
}
