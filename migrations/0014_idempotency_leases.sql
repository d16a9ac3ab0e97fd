ALTER TABLE "idempotency_keys" ADD COLUMN "holder" uuid;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "locked_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "resource_type" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "resource_id" uuid;