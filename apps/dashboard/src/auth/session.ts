/**
 * The only place that knows how the dashboard authenticates. Today a tenant secret key pasted at
 * login; when user accounts land (tenancy issue) only this module and the login page change.
 * sessionStorage, not localStorage: the key is gone when the tab closes.
 */
const KEY_STORAGE = 'agentry.secretKey';

export function readSecretKey(): string | undefined {
  return sessionStorage.getItem(KEY_STORAGE) ?? undefined;
}

export function saveSecretKey(key: string): void {
  sessionStorage.setItem(KEY_STORAGE, key.trim());
}

export function clearSecretKey(): void {
  sessionStorage.removeItem(KEY_STORAGE);
}

/** Headers every API call carries. */
export function authHeaders(): Record<string, string> {
  const key = readSecretKey();
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** A tenant secret key as the API issues it: `sk_` and base64url. */
export function looksLikeSecretKey(value: string): boolean {
  return /^sk_[A-Za-z0-9_-]{8,}$/.test(value.trim());
}
