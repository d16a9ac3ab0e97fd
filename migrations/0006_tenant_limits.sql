ALTER TABLE "tenants" ADD COLUMN "egress_allowlist" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "daily_run_limit" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "daily_token_limit" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "requests_per_minute" integer;