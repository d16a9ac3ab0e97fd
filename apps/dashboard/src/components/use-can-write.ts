import { currentRole, useAuth } from '../auth/session.ts';

/**
 * Whether the signed-in person may change things: viewers only read, so pages hide their buttons.
 * Key sign-ins have no role: the key's scopes decide, and the API says so when it may not.
 *
 * @example
 * const canWrite = useCanWrite();
 * {canWrite ? <button …>Delete</button> : null}
 */
export function useCanWrite(): boolean {
  return currentRole(useAuth()) !== 'viewer';
}
