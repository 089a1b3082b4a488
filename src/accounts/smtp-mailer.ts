// Mail through the operator's SMTP server (SMTP_URL). A module of its own, loaded only when SMTP_URL is set:
// local mail (the outbox) spares the service nodemailer's start-up time and memory.
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Mail, Mailer } from './mailer.ts';

export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(smtpUrl);
  }

  async send(mail: Mail): Promise<void> {
    const { to, subject, text, html } = mail;
    await this.transport.sendMail({ from: this.from, to, subject, text, html });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
