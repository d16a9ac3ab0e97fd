-- The config as uploaded: json keeps key order (jsonb sorts keys), so rows come back as entered.
-- Existing rows keep the order jsonb left them in; new versions keep theirs.
ALTER TABLE "agent_versions" ALTER COLUMN "config" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "agent_versions" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
-- Backfill what is known: the live version, and those the audit log shows going live or being replaced.
UPDATE "agent_versions" v SET "published_at" = v."created_at"
  FROM "agents" a WHERE a."id" = v."agent_id" AND a."published_version" = v."version";--> statement-breakpoint
UPDATE "agent_versions" v SET "published_at" = e."at"
  FROM (
    SELECT "target_id", ("details" ->> k)::integer AS "version", max("created_at") AS "at"
    FROM "audit_events", unnest(ARRAY['version', 'previous_version']) AS k
    WHERE "action" = 'agent.version_published' AND ("details" ->> k) ~ '^[0-9]{1,9}$'
    GROUP BY 1, 2
  ) e
  WHERE e."target_id" = v."agent_id"::text AND e."version" = v."version" AND v."published_at" IS NULL;
