ALTER TABLE "api_keys" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_agents" jsonb;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_origins" jsonb;