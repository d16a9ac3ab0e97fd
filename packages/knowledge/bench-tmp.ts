import { randomUUID } from 'node:crypto';
import { openDatabase, searchKnowledgeByText, searchKnowledgeByVector } from '@agentry/db';
import postgres from 'postgres';

const name = `agentry_kbench_${Date.now()}`;
const admin = postgres('postgres://postgres@127.0.0.1:5432/test', { max: 1, onnotice: () => {} });
await admin.unsafe(`create database "${name}"`);
const url = `postgres://postgres@127.0.0.1:5432/${name}`;
const database = await openDatabase({ kind: 'postgres', url, maxConnections: 2 });
const sql = postgres(url, { max: 1, onnotice: () => {} });
const tenant = randomUUID(),
  base = randomUUID(),
  doc = randomUUID();
await sql`select set_config('app.system','on',false)`;
await sql`insert into tenants (id, name) values (${tenant}, 'bench')`;
await sql`insert into knowledge_bases (id, tenant_id, name, embedding_model, dimensions) values (${base}, ${tenant}, 'b', 'local/hashing-v1', 256)`;
await sql`insert into knowledge_documents (id, tenant_id, knowledge_base_id, title, source, status) values (${doc}, ${tenant}, ${base}, 'd', 'text', 'ready')`;
const q = Array.from({ length: 256 }, () => Math.random() - 0.5);
try {
  let have = 0;
  for (const n of [10_000, 100_000]) {
    await sql.unsafe(`insert into knowledge_chunks (id, tenant_id, knowledge_base_id, document_id, index, text, tokens, embedding, search)
      select gen_random_uuid(), '${tenant}', '${base}', '${doc}', i, 'chunk ' || i, 10,
        (select array_agg((random() - 0.5)::real) from generate_series(1, 256) g where i > -g), to_tsvector('simple', 'word' || (i % 1000) || ' common')
      from generate_series(${have + 1}, ${n}) i`);
    have = n;
    await sql`analyze knowledge_chunks`;
    for (const label of ['vector', 'text']) {
      const times: number[] = [];
      for (let r = 0; r < 5; r++) {
        const t0 = performance.now();
        if (label === 'vector')
          await searchKnowledgeByVector(database.db, tenant, {
            baseIds: [base],
            vector: q,
            limit: 50,
            mode: 'builtin',
          });
        else
          await searchKnowledgeByText(database.db, tenant, {
            baseIds: [base],
            features: ['word7', 'common'],
            limit: 50,
          });
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      console.log(`${n} chunks ${label}: median ${times[2]!.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms`);
    }
  }
} finally {
  await sql.end();
  await database.close();
  await admin.unsafe(`drop database "${name}" with (force)`);
  await admin.end();
}
