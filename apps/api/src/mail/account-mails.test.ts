import { describe, expect, it } from 'vitest';
import { inertInMail, invitationMail } from './account-mails.ts';

const LINK = 'http://agentry.test/dashboard/#/accept-invitation?token=t0k';

describe('invitation mail', () => {
  it('carries exactly one link, whatever links the tenant wrote into its name', () => {
    const mail = invitationMail({
      to: 'ada@example.com',
      tenantName: 'Verify at https://evil.example/login or www.evil.example, evil.example, bob@evil.example\r\nBcc: x',
      role: 'editor',
      link: LINK,
      expiresAt: new Date('2026-12-01T00:00:00Z'),
    });
    const links = `${mail.subject}\n${mail.text}`.match(/(https?:\/\/|www\.)\S+|\b[\w-]+\.[a-z]{2,}\b/gi) ?? [];
    expect(links).toEqual([LINK]);
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.text).toContain('evil[.]example');
  });

  it('leaves ordinary names as they are', () => {
    expect(inertInMail('Acme Clinics Inc. & Co')).toBe('Acme Clinics Inc. & Co');
    expect(inertInMail('诊所 A')).toBe('诊所 A');
  });
});
