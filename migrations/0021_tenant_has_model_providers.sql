ALTER TABLE "tenants" ADD COLUMN "has_model_providers" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Tenants that configured providers before the flag existed.
UPDATE "tenants" t SET "has_model_providers" = true WHERE EXISTS (SELECT 1 FROM "model_providers" p WHERE p."tenant_id" = t."id");
