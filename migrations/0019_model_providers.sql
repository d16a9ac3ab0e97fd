CREATE TABLE "model_providers" (
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"base_url" text,
	"key_id" text,
	"iv" text,
	"ciphertext" text,
	"tag" text,
	"default_model" text,
	"is_default" boolean DEFAULT false NOT NULL,
	"models" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "model_providers_tenant_id_provider_pk" PRIMARY KEY("tenant_id","provider")
);
--> statement-breakpoint
ALTER TABLE "model_providers" ADD CONSTRAINT "model_providers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "model_providers_one_default_idx" ON "model_providers" USING btree ("tenant_id") WHERE "model_providers"."is_default";