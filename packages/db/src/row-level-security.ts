/**
 * Postgres row-level security: the second wall behind the tenant-scoped repositories.
 *
 * The application's queries run as {@link APP_ROLE}, which owns no table, is no superuser and has
 * no BYPASSRLS, so the policies below always apply to it. Each table that holds tenant rows (every
 * table with a `tenant_id` column, found in the catalog, plus `tenants` itself by `id`) gets RLS
 * enabled and forced, and one policy: a row is visible and writable only when its tenant is the
 * transaction's `app.tenant_id`, or when the transaction declared the system scope (`app.system`).
 * Neither set (or set in an earlier transaction of a pooled connection: both are transaction-local)
 * means zero rows. See `tenant-scope.ts` for how transactions set them.
 */

/** The role the application's queries run as (created when missing; cluster-wide, shared by databases). */
export const APP_ROLE = 'agentry_app';

/** Versioned: a changed expression gets a new name, and the step replaces older versions once. */
export const POLICY_NAME = 'tenant_isolation_v1';

/** Tables whose own key is the tenant id; every other table is found by its `tenant_id` column. */
const TENANT_KEY_COLUMNS: Record<string, string> = { tenants: 'id' };

/**
 * The policy expression, as a `format()` template whose `%I` is the table's tenant column. An
 * unset or empty `app.tenant_id` compares with null: no row.
 */
const POLICY_TEMPLATE = `(%I = nullif(current_setting('app.tenant_id', true), '')::uuid or current_setting('app.system', true) = 'on')`;

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

const keyCases = Object.entries(TENANT_KEY_COLUMNS)
  .map(([table, column]) => `when ${quoteLiteral(table)} then ${quoteLiteral(column)}`)
  .join(' ');
const keyedTables = Object.keys(TENANT_KEY_COLUMNS).map(quoteLiteral).join(', ');

/**
 * One idempotent statement (run after the migrations, under their lock, by the tables' owner):
 * creates the role when missing and lets the owner switch to it, grants it data access to every
 * table of `public`, and enables, forces and installs the tenant policy wherever one is missing.
 * A new migration's table is covered at the next start without anyone remembering it. It changes
 * nothing (and takes no table lock) when everything is in place.
 */
export const ROW_LEVEL_SECURITY_SQL = `
do $rls$
declare
  target record;
  old record;
  expression text;
begin
  if not exists (select 1 from pg_roles where rolname = ${quoteLiteral(APP_ROLE)}) then
    begin
      create role ${quoteIdent(APP_ROLE)} nologin nosuperuser nobypassrls noinherit;
    exception when duplicate_object or unique_violation then
      null; -- another database's migrator created it at the same moment (roles are cluster-wide)
    end;
  end if;
  -- The owner switches to the role (SET ROLE / the \`role\` startup parameter). Postgres 16+ tells
  -- membership from the right to SET it (a CREATEROLE creator only gets ADMIN on its new role).
  if current_setting('server_version_num')::int >= 160000 then
    if not pg_has_role(current_user, ${quoteLiteral(APP_ROLE)}, 'SET') then
      execute format('grant %I to %I with set true', ${quoteLiteral(APP_ROLE)}, current_user);
    end if;
  elsif not pg_has_role(current_user, ${quoteLiteral(APP_ROLE)}, 'MEMBER') then
    execute format('grant %I to %I', ${quoteLiteral(APP_ROLE)}, current_user);
  end if;
  if not has_schema_privilege(${quoteLiteral(APP_ROLE)}, 'public', 'USAGE') then
    grant usage on schema public to ${quoteIdent(APP_ROLE)};
  end if;
  for target in
    select c.oid, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p')
      and not (has_table_privilege(${quoteLiteral(APP_ROLE)}, c.oid, 'SELECT')
        and has_table_privilege(${quoteLiteral(APP_ROLE)}, c.oid, 'INSERT')
        and has_table_privilege(${quoteLiteral(APP_ROLE)}, c.oid, 'UPDATE')
        and has_table_privilege(${quoteLiteral(APP_ROLE)}, c.oid, 'DELETE'))
  loop
    execute format('grant select, insert, update, delete on table public.%I to %I', target.relname, ${quoteLiteral(APP_ROLE)});
  end loop;
  for target in
    select c.oid, c.relname, c.relrowsecurity, c.relforcerowsecurity,
      case c.relname ${keyCases} else 'tenant_id' end as key_column
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p')
      and (c.relname in (${keyedTables}) or exists (
        select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped))
  loop
    if not target.relrowsecurity then
      execute format('alter table public.%I enable row level security', target.relname);
    end if;
    if not target.relforcerowsecurity then
      execute format('alter table public.%I force row level security', target.relname);
    end if;
    if not exists (select 1 from pg_policy where polrelid = target.oid and polname = ${quoteLiteral(POLICY_NAME)}) then
      for old in select polname from pg_policy where polrelid = target.oid and polname like 'tenant\\_isolation%' loop
        execute format('drop policy %I on public.%I', old.polname, target.relname);
      end loop;
      expression := format(${quoteLiteral(POLICY_TEMPLATE)}, target.key_column);
      execute format('create policy %I on public.%I using %s with check %s',
        ${quoteLiteral(POLICY_NAME)}, target.relname, expression, expression);
    end if;
  end loop;
end
$rls$;
`;
