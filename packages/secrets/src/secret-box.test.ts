import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, parseSecretKey } from './secret-box.ts';

describe('secret box', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it('seals without the plaintext in the output and opens with the same context', () => {
    const box = createSecretBox({ keys: { k1 }, currentKeyId: 'k1' });
    const sealed = box.seal('sk-live-very-secret', 't1/CRM');
    expect(JSON.stringify(sealed)).not.toContain('very-secret');
    expect(box.open(sealed, 't1/CRM')).toBe('sk-live-very-secret');
    expect(box.seal('same', 'c').iv).not.toBe(box.seal('same', 'c').iv);
  });

  it('refuses a value moved to another tenant or name, or tampered with', () => {
    const box = createSecretBox({ keys: { k1 }, currentKeyId: 'k1' });
    const sealed = box.seal('value', 't1/CRM');
    expect(() => box.open(sealed, 't2/CRM')).toThrow(/cannot be decrypted/);
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => box.open({ ...sealed, ciphertext: flipped.toString('base64') }, 't1/CRM')).toThrow(
      /cannot be decrypted/,
    );
  });

  it('rotates: new values use the current key, old ones still open', () => {
    const old = createSecretBox({ keys: { k1 }, currentKeyId: 'k1' }).seal('old', 'c');
    const rotated = createSecretBox({ keys: { k1, k2 }, currentKeyId: 'k2' });
    expect(rotated.open(old, 'c')).toBe('old');
    expect(rotated.seal('new', 'c').keyId).toBe('k2');
    expect(() => createSecretBox({ keys: { k2 }, currentKeyId: 'k2' }).open(old, 'c')).toThrow(/key k1/);
  });

  it('parses keys as base64 or hex and rejects wrong sizes', () => {
    expect(parseSecretKey(k1.toString('base64'))).toEqual(k1);
    expect(parseSecretKey(k1.toString('hex'))).toEqual(k1);
    expect(() => parseSecretKey('c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => createSecretBox({ keys: { k: Buffer.alloc(16) }, currentKeyId: 'k' })).toThrow(/32 bytes/);
  });
});
