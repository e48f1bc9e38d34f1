import { FormEvent, useId, useState } from 'react';
import { ApiError, Session, SessionClient } from '../api/session-client';
import { textField } from '../logic/form-fields';

export function SignInForm({
  client,
  onSignedIn,
}: {
  client: SessionClient;
  onSignedIn: (s: Session) => void;
}) {
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await client.signIn(textField(form, 'email'), textField(form, 'password')));
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 401
          ? 'Wrong email or password.'
          : caught instanceof Error
            ? caught.message
            : 'Sign-in failed.',
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="stack"
      onSubmit={(event) => void submit(event)}
      aria-describedby={error ? `${id}-error` : undefined}
    >
      <label htmlFor={`${id}-email`}>Email</label>
      <input id={`${id}-email`} name="email" type="email" autoComplete="username" required autoFocus />
      <label htmlFor={`${id}-password`}>Password</label>
      <input id={`${id}-password`} name="password" type="password" autoComplete="current-password" required />
      {error && (
        <p id={`${id}-error`} role="alert" className="error">
          {error}
        </p>
      )}
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
