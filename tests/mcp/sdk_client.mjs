// The official MCP TypeScript SDK's Client against PowerContext, over stdio
// (`powercontext mcp --data DIR`) and over streamable HTTP (`powercontext serve`'s /mcp): list
// the tools, call every one, check the results and the error codes.
//
//   node tests/mcp/sdk_client.mjs NODE_MODULES POWERCONTEXT_BIN DATA_DIR HTTP_URL
import assert from 'node:assert/strict';
import path from 'node:path';

const [nodeModules, bin, dataDir, httpUrl] = process.argv.slice(2);
const sdk = (p) => import(path.join(nodeModules, '@modelcontextprotocol/sdk/dist/esm', p));
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');

const expectedTools = [
  'remember_memory', 'search_memory', 'prepare_context', 'revise_memory_entry', 'retire_memory_entry',
  'list_memory_entries', 'get_memory_entry', 'list_memory_changes', 'capture_content_source',
  'ingest_source', 'flush_memory', 'get_last_flush', 'run_daily_review', 'prepare_handoff', 'finalize_handoff', 'commit_handoff',
  'continue_handoff', 'activate_handoff', 'read_handoff', 'list_scopes',
  'create_work_contract', 'handoff_current_work', 'acknowledge_handoff', 'record_task_outcome',
  'propose_experience', 'generate_experience', 'get_experience', 'search_experience', 'list_artifact_candidates',
  'get_artifact_candidate', 'revise_artifact_candidate', 'approve_artifact_candidate', 'reject_artifact_candidate',
  'scan_external_skills', 'list_external_skills', 'resolve_external_skill', 'import_external_skill',
  'propose_skill', 'generate_skill', 'get_skill', 'get_handoff_report', 'get_handoff_report_workspace',
];

async function exercise(transport, label) {
  const client = new Client({ name: 'powercontext-sdk-test', version: '1.0.0' });
  await client.connect(transport);
  const scope_id = `project:${label}`;  // a name the caller chooses: the first write creates it
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    return { ok: !r.isError, data: r.structuredContent, text: r.content?.[0]?.text };
  };

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...expectedTools].sort());
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.ok(t.description.length > 40, t.name);
    assert.equal(typeof t.annotations?.readOnlyHint, 'boolean', t.name);
    assert.equal(typeof t.annotations?.destructiveHint, 'boolean', t.name);
    assert.equal(typeof t.annotations?.idempotentHint, 'boolean', t.name);
  }
  await client.ping();

  const nothing = await call('search_memory', { scope_id, query: 'anything' });
  assert.ok(nothing.ok, nothing.text);
  assert.equal(nothing.data.hits.length, 0);
  const first = await call('remember_memory', { scope_id, kind: 'decision', text: 'Run contract tests after the schema migration.' });
  assert.ok(first.ok, first.text);
  assert.equal(first.data.changed, true);
  const cite = first.data.entry.citation;  // {memory_ref, entry_id, entry_version_id}
  assert.deepEqual(cite.memory_ref, first.data.memory);
  const again = await call('remember_memory', { scope_id, kind: 'decision', text: 'Run contract tests after the schema migration.' });
  assert.equal(again.data.changed, false);
  assert.equal(again.data.entry, null);

  const scopes = await call('list_scopes', { key: scope_id });
  assert.ok(scopes.ok);
  assert.equal(scopes.data.scopes.length, 1);

  const found = await call('search_memory', { scope_id, query: 'What should happen before contract tests?' });
  assert.deepEqual(found.data.hits[0].citation, cite);
  const listed = await call('list_memory_entries', { scope_id });
  assert.equal(listed.data.entries.length, 1);
  const read = await call('get_memory_entry', { scope_id, citation: cite });
  assert.equal(read.data.text, 'Run contract tests after the schema migration.');

  const revised = await call('revise_memory_entry', { scope_id, citation: cite, text: 'Run contract tests before the schema migration.' });
  assert.ok(revised.ok, revised.text);
  const stale = await call('revise_memory_entry', { scope_id, citation: cite, text: 'Something else.' });
  assert.equal(stale.ok, false);
  assert.equal(stale.data.error.code, 'revision_conflict');
  assert.equal(stale.data.error.details.current_revision, 2);
  const retired = await call('retire_memory_entry', { scope_id, citation: revised.data.entry.citation, reason: 'superseded' });
  assert.ok(retired.ok, retired.text);
  const changes = await call('list_memory_changes', { scope_id });
  assert.deepEqual(changes.data.revisions.map((r) => r.changes[0].op), ['add', 'revise', 'deactivate']);

  const captured = await call('capture_content_source', { scope_id, source_id: 'turn-1', content: 'Moved the contract tests.' });
  assert.ok(captured.ok, captured.text);
  assert.deepEqual(captured.data.source, { name: 'content', source_id: 'turn-1' });
  const source = await call('ingest_source', { scope_id, content: 'Moved the contract tests before the migration.', idempotency_key: 'k1' });
  assert.ok(source.ok, source.text);
  assert.equal(source.data.position, 2);
  const scope_key = scope_id;  // the older argument name still works
  const flush = await call('flush_memory', { scope_key });
  assert.equal(flush.ok, false);
  assert.equal(flush.data.error.code, 'capability_unavailable');
  // The last flush needs no model: none has run here yet. The daily review needs one.
  const last = await call('get_last_flush', { scope_id });
  assert.ok(last.ok, last.text);
  assert.equal(last.data.last_flush, null);
  const reviewed = await call('run_daily_review', { scope_id });
  assert.equal(reviewed.data.error.code, 'capability_unavailable');

  const noHandoff = await call('read_handoff', { scope_key });
  assert.equal(noHandoff.data.error.code, 'not_found');
  const empty = await call('continue_handoff', { scope_id, selection: 'latest' });
  assert.equal(empty.data.status, 'empty');
  // No model here: drafting is a capability error; a hand-written draft finalizes and commits.
  const kept = await call('remember_memory', { scope_id, kind: 'fact', text: 'The importer reads the nightly CSV export.' });
  const evidence = [{ kind: 'memory', memory_citation: kept.data.entry.citation }];
  const drafted = await call('prepare_handoff', { scope_id, objective: 'Ship the importer.', evidence });
  assert.equal(drafted.data.error.code, 'capability_unavailable');
  const draft = { objective: 'Ship the importer.', state: [{ text: 'Contract tests moved.', citations: evidence }],
                  disposition: 'continuable', next_action: { text: 'Wire the CSV validator.', citations: evidence }, omissions: [] };
  const finalized = await call('finalize_handoff', { scope_id, draft });
  assert.ok(finalized.ok, finalized.text);
  assert.equal(finalized.data.base, null);
  const committed = await call('commit_handoff', { scope_id, handoff: finalized.data });
  assert.ok(committed.ok, committed.text);
  assert.equal(committed.data.reference.revision, 1);
  const raced = await call('commit_handoff', { scope_id, handoff: { ...finalized.data, content: { ...finalized.data.content, disposition: 'blocked' } } });
  assert.equal(raced.data.error.code, 'revision_conflict');
  const resumed = await call('continue_handoff', { scope_id, selection: 'latest' });
  assert.equal(resumed.data.trust, 'untrusted_history');
  assert.equal(resumed.data.content.next_action.text, 'Wire the CSV validator.');
  const shown = await call('read_handoff', { scope_key });
  assert.ok(shown.data.text.includes('Wire the CSV validator.'), shown.text);

  // Work continuity (RFC 1223): contract, prepare-current, commit, acknowledge, outcome.
  const claim = (text, ev = []) => ({ text, basis: ev.length ? 'verified' : 'declared', evidence: ev });
  const contract = await call('create_work_contract', { scope_id, source_id: 'w-contract', contract: {
    schema: 'powercontext.work-contract.v1', trust: 'untrusted_input', objective: 'Ship the importer.',
    facts: [claim('It reads the nightly export.', evidence)], in_scope: ['the importer'], exclusions: [],
    completion_criteria: ['contract tests pass'], authorization_notes: [], open_questions: [] } });
  assert.ok(contract.ok, contract.text);
  assert.equal(contract.data.kind, 'work-contract');
  const current = await call('handoff_current_work', { scope_id, source_id: 'w-boundary', handoff: {
    schema: 'powercontext.current-work-handoff.v1', trust: 'untrusted_input', objective: 'Ship the importer.',
    state: [claim('The reader is done.', evidence)], disposition: 'continuable',
    next_action: claim('Wire the CSV validator.'), omissions: [] } });
  assert.ok(current.ok, current.text);
  assert.equal(current.data.boundary.kind, 'handoff-boundary');
  const milestone = await call('commit_handoff', { scope_id, handoff: current.data.handoff });
  assert.ok(milestone.ok, milestone.text);
  const ack = { scope_id, source_id: 'w-receipt', receiver: 'sdk-agent', status: 'accepted', selection: 'exact',
                revision: milestone.data.reference,
                receiver_checks: { live_state: 'confirmed', capability: 'confirmed', authorization: 'not_checked' } };
  const unchecked = await call('acknowledge_handoff', ack);
  assert.equal(unchecked.data.error.code, 'invalid_request');
  ack.receiver_checks.authorization = 'confirmed';
  const accepted = await call('acknowledge_handoff', ack);
  assert.ok(accepted.ok, accepted.text);
  assert.equal(accepted.data.receipt.kind, 'handoff-receipt');
  const outcome = await call('record_task_outcome', { scope_id, source_id: 'w-outcome', outcome: {
    schema: 'powercontext.task-outcome.v1', trust: 'untrusted_observation', objective: 'Ship the importer.',
    status: 'succeeded', summary: 'The validator is wired.', handoff_receipt_ref: accepted.data.receipt.source,
    observations: [claim('Contract tests pass.')], checks: [], produced_artifacts: [], remaining_work: [] } });
  assert.ok(outcome.ok, outcome.text);
  assert.equal(outcome.data.kind, 'task-outcome');

  const prepared = await call('prepare_context', { scope_id, query: 'contract tests', max_bytes: 3000 });
  assert.ok(prepared.ok, prepared.text);
  assert.equal(prepared.data.schema, 'powercontext.prepared-context.v1');
  assert.equal(prepared.data.status, 'ready');
  assert.ok(prepared.data.content.includes('"trust":"untrusted_history"'));
  assert.ok(prepared.data.content_bytes <= 3000);

  // The review inbox (docs/review.md): a proposal is pending until approved at its exact version.
  const lesson = { situation: 'The contract tests moved.', action: 'Ran them before the migration.',
                   outcome: 'A renamed field was caught.', lesson: 'Run contract tests before migrating.' };
  const proposed = await call('propose_experience', { scope_id, proposal: lesson,
                                                      source_refs: [{ name: 'content', source_id: 'turn-1' }] });
  assert.ok(proposed.ok, proposed.text);
  assert.equal(proposed.data.status, 'pending');
  const inbox = await call('list_artifact_candidates', { scope_id });
  assert.equal(inbox.data.candidates.length, 1);
  const staleApproval = await call('approve_artifact_candidate', { scope_id, candidate_id: proposed.data.candidate_id, expected_version: 2 });
  assert.equal(staleApproval.data.error.code, 'candidate_conflict');
  const approved = await call('approve_artifact_candidate', { scope_id, candidate_id: proposed.data.candidate_id, expected_version: 1 });
  assert.ok(approved.ok, approved.text);
  const exp = await call('get_experience', { scope_id, artifact: approved.data.result_artifact });
  assert.equal(exp.data.content.lesson, lesson.lesson);
  // This server has no model: generating is a capability error that proposes nothing.
  const generated = await call('generate_experience', { scope_id, source_refs: [{ name: 'content', source_id: 'turn-1' }] });
  assert.equal(generated.data.error.code, 'capability_unavailable');
  // A managed Skill through the same inbox: proposed, approved, read at its exact revision.
  const skill = { name: 'contract-tests-first', description: 'Use before a migration that touches the contract.',
                  instructions: '1. Run the contract tests.\n2. Migrate only when they pass.',
                  validation: ['the contract tests pass before the migration'] };
  const skillCandidate = await call('propose_skill', { scope_id, proposal: skill,
                                                       artifact_refs: [approved.data.result_artifact] });
  assert.ok(skillCandidate.ok, skillCandidate.text);
  assert.equal(skillCandidate.data.family, 'skill');
  const skillApproved = await call('approve_artifact_candidate', { scope_id, candidate_id: skillCandidate.data.candidate_id, expected_version: 1 });
  assert.ok(skillApproved.ok, skillApproved.text);
  const gotSkill = await call('get_skill', { scope_id, artifact: skillApproved.data.result_artifact });
  assert.deepEqual(gotSkill.data.content, skill);
  const twoLines = await call('propose_skill', { scope_id, proposal: { ...skill, name: 'two\nlines' },
                                                 artifact_refs: [approved.data.result_artifact] });
  assert.equal(twoLines.data.error.code, 'invalid_request');
  const generatedSkill = await call('generate_skill', { scope_id, origin: 'experience',
                                                        artifact_refs: [approved.data.result_artifact] });
  assert.equal(generatedSkill.data.error.code, 'generation_unavailable');
  // No external Skill roots on this server: the registry is unavailable, and says so.
  const skills = await call('list_external_skills', { scope_id });
  assert.equal(skills.data.error.code, 'external_skill_registry_unavailable');
  const imported = await call('import_external_skill', { scope_id, external_skill_id: 'external:codex:user/x',
                                                         fingerprint: '0'.repeat(64), mode: 'import' });
  assert.equal(imported.data.error.code, 'external_skill_registry_unavailable');

  // A Handoff Report: the canonical JSON an agent reads (the catalog is written over HTTP or the CLI).
  const noProject = await call('get_handoff_report', { project_id: 'prj_none' });
  assert.equal(noProject.data.error.code, 'not_found');
  const noWorkspace = await call('get_handoff_report_workspace', { workspace_instance_id: `ws_${label}` });
  assert.equal(noWorkspace.data.error.code, 'not_found');
  const badLocale = await call('get_handoff_report', { project_id: 'prj_none', locale: 'fr' });
  assert.equal(badLocale.data.error.code, 'unsupported_report_locale');
  if (label === 'http') {  // the same server's catalog, written over HTTP
    const created = await fetch(`${httpUrl}/v1/handoff-reports/projects/create`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ project_key: 'mcp-report', title: 'MCP report', default_locale: 'en' }) });
    assert.equal(created.status, 201);
    const project = await created.json();
    const report = await call('get_handoff_report', { project_id: project.project_id });
    assert.ok(report.ok, report.text);
    assert.equal(report.data.format, 'json');
    assert.equal(report.data.report.schema, 'powercontext.handoff-report.v1');
    assert.equal(report.data.report.trust, 'untrusted_history');
    assert.match(report.data.selection_digest, /^sha256:[0-9a-f]{64}$/);
  }

  // Bad input is a tool error with our code, never a crash or a protocol error.
  const bad = await call('remember_memory', { scope_id, kind: 'a\nkind', text: 'x' });
  assert.equal(bad.data.error.code, 'invalid_request');
  const noScope = await call('search_memory', { query: 'x' });
  assert.equal(noScope.data.error.code, 'invalid_request');
  const tooBig = await call('prepare_context', { scope_id, query: 'x', max_bytes: 0 });
  assert.equal(tooBig.data.error.code, 'invalid_request');
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }));

  await client.close();
  console.log(`${label}: ${tools.length} tools listed, all called, results and error codes as expected`);
}

await exercise(new StdioClientTransport({ command: bin, args: ['mcp', '--data', dataDir], stderr: 'ignore' }), 'stdio');
await exercise(new StreamableHTTPClientTransport(new URL(`${httpUrl}/mcp`)), 'http');

// Several MCP processes on one data directory: no write is lost (SQLite's lock and busy wait, the
// same conflict rules as HTTP).
{
  const clients = [];
  for (let i = 0; i < 3; i++) {
    const c = new Client({ name: `writer-${i}`, version: '1.0.0' });
    await c.connect(new StdioClientTransport({ command: bin, args: ['mcp', '--data', `${dataDir}-shared`], stderr: 'ignore' }));
    clients.push(c);
  }
  await Promise.all(clients.map(async (c, i) => {
    for (let n = 0; n < 20; n++) {
      const r = await c.callTool({ name: 'remember_memory',
                                   arguments: { scope_key: 'project:shared', kind: 'fact', text: `writer ${i} note ${n}` } });
      assert.ok(!r.isError, r.content?.[0]?.text);
    }
  }));
  const listed = await clients[0].callTool({ name: 'list_memory_entries', arguments: { scope_key: 'project:shared' } });
  assert.equal(listed.structuredContent.entries.length, 60);
  assert.equal(listed.structuredContent.memory.revision, 60);
  await Promise.all(clients.map((c) => c.close()));
  console.log('3 stdio processes on one data directory: 60 of 60 writes kept, revisions 1..60');
}
