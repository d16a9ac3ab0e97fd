import { useAuth } from '../auth/session.ts';
import { useI18n } from '../i18n/i18n-context.tsx';

/**
 * Says, on every page, that chats are answered by the built-in demo model (the platform has no AI
 * model configured), so nobody takes its answers for an AI's.
 */
export function DemoModelNotice() {
  const { t } = useI18n();
  const auth = useAuth();
  if (auth.status !== 'user' || !auth.session.demo_model) return null;
  return (
    <p id="demo-model" role="status" className="banner">
      {t('demoModel.notice')}
    </p>
  );
}
