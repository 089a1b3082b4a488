import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface CaughtMail {
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that keeps every message, so tests read magic links the way users do. */
export class SmtpSink {
  readonly messages: CaughtMail[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          this.messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
          for (const w of this.waiters.splice(0)) w();
          callback();
        });
      },
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The newest sign-in token mailed to `to`, waiting for the mail if needed. */
  async tokenFor(to: string, after = 0): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const mail = this.messages
        .slice(after)
        .reverse()
        .find((m) => m.to.includes(to));
      if (mail) {
        // Quoted-printable may fold long lines with "=\r\n"; undo that before reading the link.
        const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
        const match = /\/verify\?token=([A-Za-z0-9_-]+)/.exec(text);
        if (!match) throw new Error('mail has no sign-in link');
        return match[1];
      }
      if (Date.now() > deadline) throw new Error(`no mail for ${to}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
