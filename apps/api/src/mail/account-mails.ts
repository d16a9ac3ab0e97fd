import type { MailMessage } from './mailer.ts';

/** The dashboard page a mailed link opens, with its token, on the operator's public address. */
export function dashboardLink(publicUrl: string, page: string, token: string): string {
  return `${publicUrl}/dashboard/#/${page}?token=${encodeURIComponent(token)}`;
}

/**
 * A tenant's name as mail text: tenants choose their names, and a name such as
 * "Verify at evil.example" would otherwise become a clickable link in a mail sent from our
 * address. Addresses are defanged (`evil[.]example`, `https[:]//`) and control characters dropped.
 *
 * @example
 * inertInMail('Acme http://evil.example'); // 'Acme http[:]//evil[.]example'
 */
export function inertInMail(name: string): string {
  return name
    .replace(/\p{Cc}+/gu, ' ')
    .replaceAll('://', '[:]//')
    .replace(/(?<=\w)\.(?=\w)/g, '[.]')
    .replaceAll('@', '[at]');
}

/** The mail that carries an invitation link to the invited address. */
export function invitationMail(input: {
  to: string;
  tenantName: string;
  role: string;
  link: string;
  expiresAt: Date;
}): MailMessage {
  return {
    to: input.to,
    subject: `You are invited to ${inertInMail(input.tenantName)} on Agentry`,
    text: [
      `You are invited to join “${inertInMail(input.tenantName)}” on Agentry as ${input.role}.`,
      '',
      'Accept the invitation here:',
      input.link,
      '',
      `The link works once, until ${input.expiresAt.toUTCString()}.`,
      'If you did not expect this mail, ignore it.',
    ].join('\n'),
  };
}

/** The mail with a password reset link. */
export function passwordResetMail(input: { to: string; link: string; minutes: number }): MailMessage {
  return {
    to: input.to,
    subject: 'Reset your Agentry password',
    text: [
      'Someone (hopefully you) asked to reset the password of your Agentry account.',
      '',
      'Choose a new password here:',
      input.link,
      '',
      `The link works once, for ${input.minutes} minutes. Setting a new password signs you out everywhere else.`,
      'If you did not ask for it, ignore this mail: your password stays as it is.',
    ].join('\n'),
  };
}

/** The mail that asks a user to confirm their address. */
export function emailConfirmationMail(input: { to: string; link: string }): MailMessage {
  return {
    to: input.to,
    subject: 'Confirm your email address for Agentry',
    text: [
      'Confirm that this address is yours by opening this link:',
      input.link,
      '',
      'If you did not ask for it, ignore this mail.',
    ].join('\n'),
  };
}
