-- The rows a remember of one new entry writes (store/postgres: pg_txn.cc, pg_text.cc,
-- pg_vectors.cc, pg_security.cc), pipelined in one transaction as the server sends them, with the
-- group's commit (pg_store.cc: the COMMIT does not wait for its WAL flush). Without the server's
-- reads (the scope, the gate's lookup): the floor of the writes alone.
-- Ids grow, as the server's do (ULIDs sort by time; here each client counts on from the k that
-- run.sh gives it, and every client's k-th write sorts beside the others'): new keys land at the
-- right edge of each index. A content hash is random, as a SHA-256 is.
\set k :k + 1
\set h random(1, 9000000000000000000)
\startpipeline
BEGIN;
UPDATE artifacts SET head_revision = head_revision + 1, vector_missing = vector_missing + 1 WHERE artifact_id = 'a' || :client_id;
INSERT INTO revisions(artifact_id, revision, actor, reason, lineage, created_at) VALUES('a' || :client_id, :k, 'pg-floor', 'remember', '', 1700000000000);
INSERT INTO entries(entry_id, artifact_id, created_revision) VALUES('e' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), 'a' || :client_id, :k) RETURNING doc;
INSERT INTO entry_versions(entry_version_id, entry_id, version, previous_version_id, kind, text, content_hash, source_refs, created_by_revision, reason, created_at, valid_until) VALUES('v' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), 'e' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), 1, NULL, 'fact', 'the quick brown fox jumps over the lazy dog again', 'h' || :h, '', :k, 'remember', 1700000000000, NULL);
INSERT INTO revision_changes(artifact_id, revision, seq, op, entry_id, from_version_id, to_version_id) VALUES('a' || :client_id, :k, 1, 'add', 'e' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), NULL, 'v' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'));
INSERT INTO manifest(artifact_id, entry_id, entry_version_id, active, from_revision, to_revision) VALUES('a' || :client_id, 'e' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), 'v' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), true, :k, NULL);
INSERT INTO text_docs(kind, owner, doc, tokens, retired, entry_version_id) VALUES(0, 'a' || :client_id, (SELECT doc FROM entries WHERE entry_id = 'e' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0')), 10, false, 'v' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'));
INSERT INTO text_postings(kind, owner, term, doc, tf, positions) SELECT 0, 'a' || :client_id, u.term, (SELECT doc FROM entries WHERE entry_id = 'e' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0')), u.tf, u.positions::integer[] FROM unnest('{quick,brown,fox,jump,over,lazy,dog,again}'::text[], '{1,1,1,1,1,1,1,1}'::integer[], '{"{1}","{2}","{3}","{4}","{5}","{7}","{8}","{9}"}'::text[]) AS u(term, tf, positions);
INSERT INTO text_stats(kind, owner, docs, tokens, retired) VALUES(0, 'a' || :client_id, 1, 10, 0) ON CONFLICT(kind, owner) DO UPDATE SET docs = text_stats.docs + 1, tokens = text_stats.tokens + excluded.tokens, retired = text_stats.retired + excluded.retired;
INSERT INTO entry_vectors(entry_id, artifact_id, entry_version_id, active, profile, vector) VALUES('e' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), 'a' || :client_id, 'v' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), true, NULL, NULL) ON CONFLICT(entry_id) DO UPDATE SET artifact_id = excluded.artifact_id, entry_version_id = excluded.entry_version_id, active = excluded.active, profile = excluded.profile, vector = excluded.vector;
INSERT INTO audit_log(at_ms, actor, operation, scope_id, targets, result, request_id) VALUES(1700000000000, 'pg-floor', 'remember', 's' || :client_id, '["e' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0') || '"]', 'ok', 'r' || lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'));
SET LOCAL synchronous_commit = off;
COMMIT;
\endpipeline
