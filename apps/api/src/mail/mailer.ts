import nodemailer from 'nodemailer';

/** One plain-text mail. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends account mail; the API gets one through its deps, so nothing else knows about SMTP. */
export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects when it did not. */
  send(message: MailMessage): Promise<void>;
  /** Closes pooled connections. */
  close(): void;
}

/** How account mail goes out (read from the environment by `config.ts`). */
export interface MailSettings {
  /** Absent: no SMTP configured, nothing can be mailed. */
  smtp?: {
    /** `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS). */
    url: string;
    /** The sender, e.g. `Agentry <no-reply@example.com>`. */
    from: string;
    /** Where people reach the dashboard (no trailing slash); mailed links start with it. */
    publicUrl: string;
  };
  /** Without SMTP: whether inviters are shown the link (accounts made through it stay unverified). */
  showInvitationLinks: boolean;
}

/** What the routes need to mail someone a link: the mailer and the public address links point at. */
export interface AccountMail {
  mailer: Mailer;
  publicUrl: string;
}

/**
 * A mailer over SMTP (nodemailer) with a few pooled connections.
 *
 * @example
 * const mailer = createSmtpMailer({ url: 'smtp://user:pass@mail.example.com:587', from: 'Agentry <no-reply@example.com>' });
 * await mailer.send({ to: 'ada@example.com', subject: 'Hello', text: '…' });
 */
export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  const url = new URL(options.url);
  url.searchParams.set('pool', 'true');
  const transport = nodemailer.createTransport(url.toString());
  return {
    async send(message) {
      await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text });
    },
    close() {
      transport.close();
    },
  };
}
