-- pg_floor's own rows, on the schema `powercontext serve` made: 32 scopes, each with its memory
-- artifact a0 … a31 (pgbench's client n writes into a<n>), and the server-side function of the
-- `function` variant: the statements of rows.sql in one PL/pgSQL call.
INSERT INTO scopes(scope_id, key, created_at) SELECT 's' || i, 'pg-floor-' || i, 0 FROM generate_series(0, 31) i;
INSERT INTO artifacts(artifact_id, scope_id, family, is_default, created_at)
  SELECT 'a' || i, 's' || i, 'memory', true, 0 FROM generate_series(0, 31) i;
CREATE FUNCTION pg_floor_remember(a text, id text, k bigint, h bigint, txt text, terms text[],
                                  tfs integer[], pos text[]) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE d bigint;
BEGIN
  UPDATE artifacts SET head_revision = head_revision + 1, vector_missing = vector_missing + 1
    WHERE artifact_id = a;
  INSERT INTO revisions(artifact_id, revision, actor, reason, lineage, created_at)
    VALUES(a, k, 'pg-floor', 'remember', '', 1700000000000);
  INSERT INTO entries(entry_id, artifact_id, created_revision) VALUES('e' || id, a, 1)
    RETURNING doc INTO d;
  INSERT INTO entry_versions(entry_version_id, entry_id, version, previous_version_id, kind, text,
      content_hash, source_refs, created_by_revision, reason, created_at, valid_until)
    VALUES('v' || id, 'e' || id, 1, NULL, 'fact', txt, 'h' || h, '', k, 'remember', 1700000000000, NULL);
  INSERT INTO revision_changes(artifact_id, revision, seq, op, entry_id, from_version_id, to_version_id)
    VALUES(a, k, 1, 'add', 'e' || id, NULL, 'v' || id);
  INSERT INTO manifest(artifact_id, entry_id, entry_version_id, active, from_revision, to_revision)
    VALUES(a, 'e' || id, 'v' || id, true, k, NULL);
  INSERT INTO text_docs(kind, owner, doc, tokens, retired, entry_version_id)
    VALUES(0, a, d, 10, false, 'v' || id);
  INSERT INTO text_postings(kind, owner, term, doc, tf, positions)
    SELECT 0, a, u.term, d, u.tf, u.positions::integer[]
    FROM unnest(terms, tfs, pos) AS u(term, tf, positions);
  INSERT INTO text_stats(kind, owner, docs, tokens, retired) VALUES(0, a, 1, 10, 0)
    ON CONFLICT(kind, owner) DO UPDATE SET docs = text_stats.docs + 1,
      tokens = text_stats.tokens + excluded.tokens, retired = text_stats.retired + excluded.retired;
  INSERT INTO entry_vectors(entry_id, artifact_id, entry_version_id, active, profile, vector)
    VALUES('e' || id, a, 'v' || id, true, NULL, NULL)
    ON CONFLICT(entry_id) DO UPDATE SET artifact_id = excluded.artifact_id,
      entry_version_id = excluded.entry_version_id, active = excluded.active,
      profile = excluded.profile, vector = excluded.vector;
  INSERT INTO audit_log(at_ms, actor, operation, scope_id, targets, result, request_id)
    VALUES(1700000000000, 'pg-floor', 'remember', 's' || substr(a, 2), '["e' || id || '"]', 'ok', 'r' || id);
  RETURN d;
END $$;
