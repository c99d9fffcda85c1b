-- A transaction that writes nothing, with the same commit: what pgbench, the protocol and a
-- commit cost on their own.
\startpipeline
BEGIN;
SELECT 1;
SET LOCAL synchronous_commit = off;
COMMIT;
\endpipeline
