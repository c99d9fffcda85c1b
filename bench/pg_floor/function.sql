-- rows.sql's statements as one call of a server-side function (setup.sql): one statement a write.
-- Ids grow, as the server's do (ULIDs sort by time; here each client counts on from the k that
-- run.sh gives it, and every client's k-th write sorts beside the others'): new keys land at the
-- right edge of each index. A content hash is random, as a SHA-256 is.
\set k :k + 1
\set h random(1, 9000000000000000000)
\startpipeline
BEGIN;
SELECT pg_floor_remember('a' || :client_id, lpad(:k::text, 12, '0') || lpad(:client_id::text, 3, '0'), :k, :h, 'the quick brown fox jumps over the lazy dog again', '{quick,brown,fox,jump,over,lazy,dog,again}'::text[], '{1,1,1,1,1,1,1,1}'::integer[], '{"{1}","{2}","{3}","{4}","{5}","{7}","{8}","{9}"}'::text[]);
SET LOCAL synchronous_commit = off;
COMMIT;
\endpipeline
