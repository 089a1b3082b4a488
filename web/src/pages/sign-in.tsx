import { useState, type FormEvent } from 'react';
import { api } from '../api.ts';
import { appConfig } from '../config.ts';
import { ErrorText, message } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const body = await api.login(email);
      setSent(body.message);
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  }

  if (sent) {
    return (
      <Page title="Check your mail">
        <section className="card narrow" aria-labelledby="sent-heading">
          <h2 id="sent-heading">A sign-in link is on its way</h2>
          <p role="status">{sent}</p>
          {appConfig.mail === 'outbox' ? (
            <p className="note" data-testid="outbox-note">
              This service has no mail server configured, so the message was not sent: the link was written to{' '}
              <code>{appConfig.outbox ?? 'the outbox folder'}</code> on the server and printed in the service log. Open it in this browser.
            </p>
          ) : (
            <p>Open the link in this browser. It works once.</p>
          )}
          <button
            type="button"
            className="quiet"
            onClick={() => {
              setSent(null);
              setError(null);
            }}
          >
            Use a different address
          </button>
        </section>
      </Page>
    );
  }

  return (
    <Page
      title="Sign in to Voxsmith"
      intro="Speech synthesis on your own server. Sign in with your e-mail address: we send you a one-time link, no password needed."
    >
      <form className="card narrow" onSubmit={(e) => void submit(e)} aria-describedby={error ? 'signin-error' : undefined}>
        <label htmlFor="email">E-mail address</label>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="email"
          inputMode="email"
          required
          maxLength={254}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <ErrorText id="signin-error">{error}</ErrorText>
        <button type="submit" disabled={busy}>
          {busy ? 'Sending…' : 'Send me a sign-in link'}
        </button>
      </form>
    </Page>
  );
}
