import { EnvError } from '@agentry/env';
import { describe, expect, it } from 'vitest';
import { readApiConfig } from './config.ts';

const SERVER = { DATABASE_URL: 'postgres://localhost/agentry', REDIS_URL: 'redis://localhost:6379' };
const SMTP = {
  SMTP_URL: 'smtp://u:p@mail.test:587',
  MAIL_FROM: 'Agentry <no-reply@a.test>',
  PUBLIC_URL: 'https://a.test/',
};

describe('mail settings', () => {
  it('shows invitation links by default only in the embedded mode without SMTP', () => {
    expect(readApiConfig(SERVER, false).mail).toEqual({ showInvitationLinks: false });
    expect(readApiConfig({}, true).mail).toEqual({ showInvitationLinks: true });
    expect(readApiConfig({ SHOW_INVITATION_LINKS: 'false' }, true).mail.showInvitationLinks).toBe(false);
    expect(readApiConfig({ ...SERVER, SHOW_INVITATION_LINKS: 'true' }, false).mail.showInvitationLinks).toBe(true);
  });

  it('with SMTP_URL, needs MAIL_FROM and PUBLIC_URL, and mails links only', () => {
    expect(readApiConfig({ ...SERVER, ...SMTP }, false).mail).toEqual({
      smtp: { url: SMTP.SMTP_URL, from: SMTP.MAIL_FROM, publicUrl: 'https://a.test' },
      showInvitationLinks: false,
    });
    expect(readApiConfig(SMTP, true).mail.showInvitationLinks).toBe(false);
    const refused = (env: Record<string, string>) => {
      try {
        readApiConfig({ ...SERVER, ...env }, false);
      } catch (error) {
        return error instanceof EnvError ? error.message : String(error);
      }
      return 'accepted';
    };
    expect(refused({ ...SMTP, MAIL_FROM: '' })).toMatch(/MAIL_FROM/);
    expect(refused({ ...SMTP, PUBLIC_URL: '' })).toMatch(/PUBLIC_URL/);
    expect(refused({ ...SMTP, SHOW_INVITATION_LINKS: 'true' })).toMatch(/SHOW_INVITATION_LINKS/);
    expect(refused({ ...SMTP, SMTP_URL: 'http://mail.test' })).toMatch(/SMTP_URL/);
  });
});

describe('settings the API and the worker read alike', () => {
  it('observability and the sweeper: defaults, values, and a bad value named', () => {
    const config = readApiConfig(SERVER, false);
    expect([config.metricsToken, config.otlpEndpoint]).toEqual([undefined, undefined]);
    expect(config.sweeper).toEqual({ intervalMs: 30_000, waitingTimeoutSeconds: 86_400 });
    const set = readApiConfig(
      {
        ...SERVER,
        METRICS_TOKEN: 'a-long-enough-token',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        SWEEP_INTERVAL_MS: '500',
        WAITING_RUN_TTL_SECONDS: '60',
      },
      false,
    );
    expect(set).toMatchObject({
      metricsToken: 'a-long-enough-token',
      otlpEndpoint: 'http://collector:4318',
      sweeper: { intervalMs: 500, waitingTimeoutSeconds: 60 },
    });
    expect(() => readApiConfig({ ...SERVER, METRICS_TOKEN: 'short' }, false)).toThrow(/METRICS_TOKEN/);
    expect(() => readApiConfig({ ...SERVER, OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://x' }, false)).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() => readApiConfig({ ...SERVER, WAITING_RUN_TTL_SECONDS: '0' }, false)).toThrow(/WAITING_RUN_TTL_SECONDS/);
  });
});

describe('the embedded mode’s first hour', () => {
  it('answers with the demo model and lets tools reach loopback, unless told not to; the server mode never', () => {
    const embedded = readApiConfig({}, true);
    expect(embedded.models.demo).toBe(true);
    expect(embedded.egressAllowlist).toEqual(['127.0.0.0/8', '::1/128']);
    const off = readApiConfig(
      { DEMO_MODEL: 'false', EGRESS_ALLOW_LOOPBACK: 'false', EGRESS_ALLOWLIST: '10.0.0.0/8' },
      true,
    );
    expect(off.models.demo).toBeUndefined();
    expect(off.egressAllowlist).toEqual(['10.0.0.0/8']);
    const server = readApiConfig(SERVER, false);
    expect(server.models.demo).toBeUndefined();
    expect(server.egressAllowlist).toEqual([]);
  });
});
