import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAgentConfig } from '@agentry/config';
import {
  addMember,
  countTenants,
  createAgent,
  createConversation,
  createTenantWithKey,
  createUser,
  type Db,
  findUserByEmail,
} from '@agentry/db';
import { generateSecretKey } from '../http/auth.ts';
import { hashPassword } from '../http/password.ts';

export interface DemoCredentials {
  tenant_id: string;
  api_key: string;
  agent_id: string;
  conversation_id: string;
  /** The demo dashboard user (owner of the demo tenant) and its generated password. */
  user_email?: string;
  user_password?: string;
}

/** The demo dashboard user's email. */
export const DEMO_USER_EMAIL = 'admin@example.com';

/**
 * The demo tenant's dashboard owner, with a random password (kept in `demo.json` like the demo
 * key, so later starts print it again). Credentials from before dashboard accounts get one too.
 */
async function ensureDemoUser(db: Db, credentials: DemoCredentials, file: string): Promise<DemoCredentials> {
  if (credentials.user_email) return credentials;
  if (await findUserByEmail(db, DEMO_USER_EMAIL)) return credentials;
  const password = randomBytes(12).toString('base64url');
  const user = await createUser(db, {
    email: DEMO_USER_EMAIL,
    name: 'Demo admin',
    passwordHash: await hashPassword(password),
  });
  if (!user) return credentials;
  await addMember(db, credentials.tenant_id, user.id, 'owner');
  const updated = { ...credentials, user_email: DEMO_USER_EMAIL, user_password: password };
  writeFileSync(file, `${JSON.stringify(updated, null, 2)}\n`, { mode: 0o600 });
  return updated;
}

const DEMO_CONFIG = new URL('../../../../configs/demo-agent.json', import.meta.url);

/**
 * The demo agent's config with its tool pointed at this platform's own demo endpoint (the file says
 * port 3000; the platform may listen elsewhere).
 */
export function demoAgentConfig(platformUrl: string): Record<string, unknown> {
  const raw = JSON.parse(readFileSync(DEMO_CONFIG, 'utf8')) as { tools: Array<{ endpoint: { url: string } }> };
  for (const tool of raw.tools) tool.endpoint.url = tool.endpoint.url.replace('http://127.0.0.1:3000', platformUrl);
  return raw as unknown as Record<string, unknown>;
}

/**
 * On the embedded mode's first start (no tenants yet): a demo tenant, key, agent (from
 * `configs/demo-agent.json`, its tool calling this platform's `/demo/contacts`), conversation and dashboard owner (`admin@example.com`). The credentials are kept in the local data dir so later starts can
 * print them again; this is a single-user development install.
 */
export async function seedDemo(db: Db, dataDir: string, platformUrl: string): Promise<DemoCredentials | undefined> {
  const file = join(dataDir, 'demo.json');
  if (existsSync(file)) return ensureDemoUser(db, JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials, file);
  if ((await countTenants(db)) > 0) return undefined;
  const raw = demoAgentConfig(platformUrl);
  const { config, hash } = loadAgentConfig(raw);
  const key = generateSecretKey();
  const { tenant } = await createTenantWithKey(db, { name: 'Demo', key });
  const { agent } = await createAgent(db, {
    tenantId: tenant.id,
    name: config.basic_settings.name,
    config: raw,
    contentHash: hash,
    publish: true,
  });
  const conversation = await createConversation(db, {
    tenantId: tenant.id,
    agentId: agent.id,
    agentVersion: null,
    context: {},
  });
  const credentials = { tenant_id: tenant.id, api_key: key.key, agent_id: agent.id, conversation_id: conversation.id };
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return ensureDemoUser(db, credentials, file);
}

/** The embedded mode's operator token: from the environment, else generated once and kept locally. */
export function embeddedAdminToken(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const file = join(dataDir, 'platform-admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = `pat_${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/** Which model answers chats: one from the environment, the built-in demo model, or none. */
export type BannerModel = 'configured' | 'demo' | 'none';

/** The start-up banner: where the API is, which model answers and a curl that talks to the demo agent. */
export function banner(url: string, adminToken: string, demo: DemoCredentials | undefined, model: BannerModel): string {
  const lines = ['', `Agentry is running (embedded mode) at ${url}`, `  platform admin token: ${adminToken}`];
  if (demo) {
    lines.push(
      `  demo tenant key:      ${demo.api_key}`,
      `  demo agent:           ${demo.agent_id}`,
      ...(demo.user_email
        ? [
            `  dashboard sign-in:    ${url}/dashboard/  ${demo.user_email} / ${demo.user_password ?? '(see .data/demo.json)'}`,
          ]
        : []),
      '',
      'Talk to the demo agent:',
      `  curl -s -X POST ${url}/v1/conversations/${demo.conversation_id}/messages \\`,
      `    -H 'Authorization: Bearer ${demo.api_key}' -H 'Content-Type: application/json' \\`,
      `    -d '{"content":"I want to schedule a demo, my email is john@example.com"}'`,
      '',
      'Start a new conversation:',
      `  curl -s -X POST ${url}/v1/conversations -H 'Authorization: Bearer ${demo.api_key}' \\`,
      `    -H 'Content-Type: application/json' -d '{"agent_id":"${demo.agent_id}"}'`,
    );
  }
  if (model === 'demo') {
    lines.push(
      '',
      "Model: Agentry's built-in DEMO model, not an AI (no model is configured). It calls the demo agent's tool",
      'when a message holds an email address, and says in every answer that it is the demo model. For real',
      'answers set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL (any OpenAI-compatible server) and',
      'start again, or add a model provider in the dashboard.',
    );
  }
  if (model === 'none') {
    lines.push(
      '',
      'No model is configured: chats answer `model_not_configured`. Set OPENAI_API_KEY, ANTHROPIC_API_KEY',
      'or OPENAI_BASE_URL (any OpenAI-compatible server; `pnpm fake-llm` starts a local fake one).',
    );
  }
  return `${lines.join('\n')}\n`;
}
