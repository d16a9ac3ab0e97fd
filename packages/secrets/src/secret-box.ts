import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type AppError, errors } from '@agentry/errors';

/** A sealed secret as stored: which key sealed it, and the AES-256-GCM output (base64). */
export interface SealedSecret {
  keyId: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

export interface SecretBox {
  readonly currentKeyId: string;
  /** `context` is bound as associated data (e.g. `tenantId/name`): a sealed value moved to another row does not open. */
  seal(plaintext: string, context: string): SealedSecret;
  open(sealed: SealedSecret, context: string): string;
}

/**
 * Encrypts tenant secrets at rest with AES-256-GCM. Several keys may be loaded for rotation:
 * new values are sealed with `currentKeyId`, old ones open with the key id stored beside them.
 *
 * @example
 * const box = createSecretBox({ keys: { k1: key }, currentKeyId: 'k1' });
 * const sealed = box.seal('sk-live-…', `${tenantId}/CRM_TOKEN`);
 */
export function createSecretBox(options: { keys: Record<string, Buffer>; currentKeyId: string }): SecretBox {
  for (const [id, key] of Object.entries(options.keys)) {
    if (key.length !== 32) throw new Error(`Secret key ${id} must be 32 bytes (AES-256), got ${key.length}`);
  }
  const current = options.keys[options.currentKeyId];
  if (!current) throw new Error(`No secret key with id ${options.currentKeyId}`);
  return {
    currentKeyId: options.currentKeyId,
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return {
        keyId: options.currentKeyId,
        iv: iv.toString('base64'),
        ciphertext: ciphertext.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
      };
    },
    open(sealed, context) {
      const key = options.keys[sealed.keyId];
      if (!key) throw unreadable(`it was sealed with key ${sealed.keyId}, which is not loaded`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw unreadable('it does not authenticate with its key');
      }
    },
  };
}

function unreadable(why: string): AppError {
  return errors.system('secret_unreadable', `A stored secret cannot be decrypted: ${why}`);
}

/** Parses `SECRETS_KEY` style values: 32 bytes as base64 (or 64 hex characters). */
export function parseSecretKey(value: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('expected 32 bytes, as base64 or 64 hex characters');
  return key;
}
