import { ProblemError } from '@agentry/contract';
import type { Translate } from './i18n.ts';

const CONFIG_CODES = ['unauthorized', 'forbidden', 'agent_not_found', 'agent_not_published', 'invalid_context'];

/**
 * A friendly explanation of any failure, for the panel's notice (never a blank widget), and the
 * code the page's `error` event and the notice's `data-code` carry.
 */
export function describeFailure(error: unknown, t: Translate): { code: string; lines: string[] } {
  if (!(error instanceof ProblemError)) return { code: 'error', lines: [t('errFailed')] };
  const code = error.code;
  let lines: string[];
  if (error.kind === 'network') lines = [navigator.onLine ? t('errNetwork') : t('offline')];
  else if (code === 'origin_not_allowed') lines = [t('errOrigin'), t('errOriginHint', { origin: location.origin })];
  else if (code === 'rate_limited') lines = [t('errRate', { seconds: error.retryAfter ?? 60 })];
  else if (code === 'conversation_busy') lines = [t('errBusy')];
  else if (CONFIG_CODES.includes(code)) lines = [t('errConfig')];
  else if (error.status === 429 || error.status >= 500) lines = [t('errUnavailable')];
  else lines = [t('errFailed')];
  return { code, lines };
}
