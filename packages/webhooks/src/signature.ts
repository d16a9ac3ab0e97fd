import { Webhook } from 'standardwebhooks';

const encoder = new TextEncoder();

/**
 * The Standard Webhooks headers of one attempt: `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature` = `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. A secret written as
 * `whsec_<base64>` is the spec's key (its base64 decoded); any other value is used as its UTF-8
 * bytes, so receivers verify with `new Webhook(secret, { format: 'raw' })` or a plain HMAC.
 *
 * @example
 * const headers = signatureHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', id, new Date(), body);
 */
export function signatureHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  const webhook = secret.startsWith('whsec_')
    ? new Webhook(secret)
    : new Webhook(encoder.encode(secret), { format: 'raw' });
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': webhook.sign(id, at, body),
  };
}
