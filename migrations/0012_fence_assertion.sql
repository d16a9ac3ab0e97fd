-- A check the database makes itself, so that a transaction whose COMMIT is sent along with its
-- statements (one round trip, see `commitAhead` in packages/db/src/tenant-scope.ts) rolls back when
-- the check fails: raising aborts the transaction, and Postgres answers the COMMIT with ROLLBACK.
-- Used for the fence of a run's attempt: `agentry_assert(<the fenced update matched>, 'stale_attempt')`.
-- SQLSTATE AG001 marks it, the message says which check failed.
CREATE FUNCTION "agentry_assert"("ok" boolean, "failure" text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF "ok" IS NOT TRUE THEN
    RAISE EXCEPTION USING ERRCODE = 'AG001', MESSAGE = "failure";
  END IF;
  RETURN true;
END
$$;
