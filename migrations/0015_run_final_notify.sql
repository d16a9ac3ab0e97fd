-- API processes relay run events from the event bus; when the bus is unreachable, their open
-- streams wait on the database instead. Every run that reaches a final status notifies
-- `agentry_run_finished` with its id, on commit (never for a rollback), whoever writes it (worker,
-- API cancel, sweeper, plain SQL), so those streams wake when their run ends instead of polling.
-- One notification per finished run; the function reads only NEW, so row-level security is moot.
CREATE FUNCTION "agentry_run_finished"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('agentry_run_finished', NEW.id::text);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "runs_finished" AFTER UPDATE OF "status" ON "runs"
  FOR EACH ROW
  WHEN (NEW.status IN ('completed', 'failed', 'cancelled', 'timed_out') AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION "agentry_run_finished"();
