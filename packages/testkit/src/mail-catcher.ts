import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message the catcher received. */
export interface CaughtMail {
  /** The envelope's recipients, lower-cased. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** The SMTP user it authenticated as, if it did. */
  user?: string;
}

/** A local SMTP server that keeps every message, for tests of code that sends mail. */
export interface MailCatcher {
  /** `smtp://user:password@127.0.0.1:PORT`: what the code under test is configured with. */
  url: string;
  /** Every message, in the order received. */
  messages: CaughtMail[];
  /**
   * The oldest message to `to` not taken yet (taking it), waiting for one when there is none;
   * rejects after `timeoutMs` (default 10 s).
   */
  next(to: string, timeoutMs?: number): Promise<CaughtMail>;
  /** Answers the next `count` messages with a permanent failure (550), keeping none of them. */
  refuseNext(count?: number): void;
  close(): Promise<void>;
}

/**
 * Starts an SMTP server on a free loopback port that accepts the user `agentry` with password
 * `mail-test-password` (plain text: loopback only) and records what it is sent.
 *
 * @example
 * const mail = await startMailCatcher();
 * const invite = await mail.next('ada@example.com');
 * const link = firstLink(invite.text);
 */
export async function startMailCatcher(): Promise<MailCatcher> {
  const messages: CaughtMail[] = [];
  const taken = new Set<CaughtMail>();
  const waiters = new Set<() => void>();
  let refusals = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'agentry' && auth.password === 'mail-test-password') {
        callback(null, { user: auth.username });
      } else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      if (refusals > 0) {
        refusals--;
        stream.resume();
        stream.on('end', () => callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 })));
        return;
      }
      simpleParser(stream).then(
        (parsed) => {
          messages.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            ...(typeof session.user === 'string' ? { user: session.user } : {}),
          });
          for (const wake of waiters) wake();
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const take = (to: string) => {
    const found = messages.find((m) => !taken.has(m) && m.to.includes(to.toLowerCase()));
    if (found) taken.add(found);
    return found;
  };
  return {
    url: `smtp://agentry:mail-test-password@127.0.0.1:${port}`,
    messages,
    next(to, timeoutMs = 10_000) {
      const found = take(to);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const wake = () => {
          const mail = take(to);
          if (!mail) return;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    refuseNext(count = 1) {
      refusals += count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The link of a plain-text mail: the first http(s) link with a `token=`, else the first link; throws without one.
 *
 * @example
 * const token = new URL(firstLink(mail.text).replace('#/', '')).searchParams.get('token');
 */
export function firstLink(text: string): string {
  // The platform's links carry a token; a link-like text elsewhere (a name) must not be taken for it.
  const links = text.match(/https?:\/\/\S+/g) ?? [];
  const link = links.find((l) => l.includes('token=')) ?? links[0];
  if (!link) throw new Error(`no link in the mail:\n${text}`);
  return link;
}
