ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_parent_id_knowledge_documents_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."knowledge_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_documents_parent_url_idx" ON "knowledge_documents" USING btree ("parent_id","url");--> statement-breakpoint
-- Hand-written: pgvector again, for embedded databases made before PGlite loaded it (0022 skipped it
-- there). Guarded as in 0022: a database without it still migrates and uses knowledge_dot.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
  END IF;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pgvector not created (%): the built-in exact vector search is used', SQLERRM;
END
$$;
