-- IF NOT EXISTS: on a large installation an operator may build it beforehand without blocking writes
-- (CREATE INDEX CONCURRENTLY, same name and definition); this transaction then has nothing to do.
CREATE INDEX IF NOT EXISTS "runs_conversation_active_idx" ON "runs" USING btree ("conversation_id","created_at","id") WHERE "runs"."status" in ('queued', 'running', 'waiting');
