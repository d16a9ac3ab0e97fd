import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentryMetrics } from '@agentry/telemetry';

export interface MetricsServerOptions {
  metrics: AgentryMetrics;
  port: number;
  host: string;
  /** When set, `/metrics` requires `Authorization: Bearer <token>` (`/healthz` never does). */
  token?: string;
}

export interface MetricsServer {
  /** The port it listens on (useful with port 0 in tests). */
  port: number;
  close(): Promise<void>;
}

/**
 * The worker's only HTTP surface: `GET /metrics` (Prometheus text) and `GET /healthz` (the process
 * answers; Kubernetes liveness). Everything else is 404.
 *
 * @example
 * const server = await startMetricsServer({ metrics: processMetrics(), port: 9464, host: '0.0.0.0' });
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const expected = options.token ? digest(options.token) : undefined;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://worker').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed\n');
    if (path === '/healthz') return reply(res, 200, '{"status":"ok"}\n', 'application/json');
    if (path !== '/metrics') return reply(res, 404, 'not found\n');
    if (expected) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!given || !timingSafeEqual(digest(given), expected)) return reply(res, 401, 'unauthorized\n');
    }
    const { registry } = options.metrics;
    registry.metrics().then(
      (text) => reply(res, 200, text, registry.contentType),
      (error: unknown) => reply(res, 500, `metrics failed: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function reply(res: ServerResponse, status: number, body: string, type = 'text/plain'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
