import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomToken } from './secrets.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The sign-in link the mail carries: local mail mode prints it on its own line. */
  link?: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(mail: Mail): Promise<void>;
  close(): Promise<void>;
}

/**
 * Local development without a mail server: each message is written as an .eml file under
 * DATA_DIR/outbox/ and announced through `onWrite` so the start-up log can show it.
 */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';

  constructor(
    private readonly dir: string,
    private readonly from: string,
    private readonly onWrite: (path: string, mail: Mail) => void,
  ) {}

  async send(mail: Mail): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomToken(6)}.eml`);
    const body = [
      `From: ${this.from}`,
      `To: ${mail.to}`,
      `Subject: ${mail.subject}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      mail.text,
      '',
    ].join('\r\n');
    await writeFile(path, body, { mode: 0o600 });
    this.onWrite(path, mail);
  }

  async close(): Promise<void> {}
}
