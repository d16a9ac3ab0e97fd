import { useAuth } from '../../auth/session.ts';
import { currentRole } from '../../auth/session-store.ts';

/** The member's user id (undefined for secret-key sign-ins). */
export function useMe(): string | undefined {
  const auth = useAuth();
  return auth.status === 'user' ? auth.session.user.id : undefined;
}

/** Viewers read; editors and owners (and secret keys) take conversations over. */
export function useCanAct(): boolean {
  return currentRole(useAuth()) !== 'viewer';
}
