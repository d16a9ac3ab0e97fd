-- API processes cache key lookups (`findActiveApiKey`) and drop a tenant's entries when told: every
-- committed change to a key or a tenant, whoever writes it (API, CLI, plain SQL), notifies
-- `agentry_auth_changed` with the tenant's id. NOTIFY is sent on commit, never for a rollback.
-- A key's `last_used_at` touch (once a minute per key in use) changes nothing a lookup answers:
-- an update that differs only there, or in nothing, stays silent. The function reads only OLD and
-- NEW (no table), so it works unchanged for the application role under row-level security.
CREATE FUNCTION "agentry_auth_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    -- Every tenant's rows at once: an empty payload tells listeners to forget everything.
    PERFORM pg_notify('agentry_auth_changed', '');
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND (to_jsonb(OLD) - 'last_used_at') = (to_jsonb(NEW) - 'last_used_at') THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME = 'tenants' THEN
    IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('agentry_auth_changed', OLD.id::text); END IF;
    IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('agentry_auth_changed', NEW.id::text); END IF;
  ELSE
    IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('agentry_auth_changed', OLD.tenant_id::text); END IF;
    IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('agentry_auth_changed', NEW.tenant_id::text); END IF;
  END IF;
  -- The same channel and payload twice in one transaction is delivered once.
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "api_keys_auth_changed" AFTER INSERT OR UPDATE OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "agentry_auth_changed"();--> statement-breakpoint
CREATE TRIGGER "api_keys_auth_truncated" AFTER TRUNCATE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "agentry_auth_changed"();--> statement-breakpoint
CREATE TRIGGER "tenants_auth_changed" AFTER INSERT OR UPDATE OR DELETE ON "tenants"
  FOR EACH ROW EXECUTE FUNCTION "agentry_auth_changed"();--> statement-breakpoint
CREATE TRIGGER "tenants_auth_truncated" AFTER TRUNCATE ON "tenants"
  FOR EACH STATEMENT EXECUTE FUNCTION "agentry_auth_changed"();
