import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function proxy(req: IncomingMessage, res: ServerResponse, apiUrl: string): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req);
  const answer = await fetch(`${apiUrl}${req.url}`, {
    method: req.method ?? 'GET',
    headers,
    ...(body ? { body: new Uint8Array(body) } : {}),
  });
  const out: Record<string, string> = {};
  answer.headers.forEach((v, k) => {
    if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding') out[k] = v;
  });
  res.writeHead(answer.status, out);
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/**
 * Serves the built dashboard at /dashboard/ and forwards /v1 to the API, so the SPA talks to the
 * API same-origin exactly as it will once the API serves /dashboard itself.
 */
export async function startStaticServer(
  distDir: string,
  apiUrl: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    try {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path.startsWith('/v1/')) return await proxy(req, res, apiUrl);
      if (!path.startsWith('/dashboard')) {
        res.writeHead(302, { location: '/dashboard/' }).end();
        return;
      }
      const relative = normalize(path.replace(/^\/dashboard\/?/, '')).replace(/^(\.\.[/\\])+/, '');
      const file = relative && extname(relative) ? join(distDir, relative) : join(distDir, 'index.html');
      const data = await readFile(file).catch(() => undefined);
      if (!data) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(data);
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
