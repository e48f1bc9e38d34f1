import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Session, SessionClient } from '../api/session-client';
import { SignInForm } from './sign-in-form';

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('SignInForm', () => {
  afterEach(cleanup);

  it('signs in with the labelled fields and reports the session', async () => {
    const session: Session = {
      accessToken: 't',
      expiresIn: 900,
      user: { id: 'u', email: 'a@b.example' },
      workspace: { id: 'w', name: 'W' },
    };
    const bodies: unknown[] = [];
    const client = new SessionClient(async (_input: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(JSON.parse(typeof init?.body === 'string' ? init.body : ''));
      return answer(200, { data: session });
    });
    let signedIn: Session | null = null;
    render(<SignInForm client={client} onSignedIn={(s) => (signedIn = s)} />);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'a@b.example' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'long enough password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByRole('button', { name: 'Sign in' });
    await vi.waitFor(() => expect(signedIn).toEqual(session));
    expect(bodies).toEqual([{ email: 'a@b.example', password: 'long enough password' }]);
  });

  it('shows one message for a wrong email or password, as an alert', async () => {
    const client = new SessionClient(async () =>
      answer(401, {
        type: 'https://x/problems/invalid-credentials',
        title: 'Invalid credentials',
      }),
    );
    render(<SignInForm client={client} onSignedIn={() => undefined} />);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'a@b.example' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'wrong' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Wrong email or password.');
  });
});
