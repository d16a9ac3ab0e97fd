DROP INDEX "runs_status_idx";--> statement-breakpoint
CREATE INDEX "runs_active_idx" ON "runs" USING btree ("status") WHERE "runs"."status" in ('queued', 'running', 'waiting');