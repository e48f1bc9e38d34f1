import { FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { ApiError } from '../api/session-client';
import { PutSsoConnection, SsoConnection } from '../api/types';
import { textField } from '../logic/form-fields';
import { useClient } from '../session-context';
import { CopyButton } from './copy-button';

/**
 * The workspace's single sign-on (owners only, `sso:manage`): its OpenID provider, the domains it admits, the role
 * of a member it adds, and whether passwords are refused. The service reads the provider's discovery document
 * before it saves (a wrong issuer is its 422, shown as it comes). Others see that only owners manage it.
 */
export function SsoSettings() {
  const client = useClient();
  const id = useId();
  const [connection, setConnection] = useState<SsoConnection | null | 'forbidden' | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    client
      .json<{ data: SsoConnection | null }>('/v1/workspace/sso')
      .then((answer) => setConnection(answer.data))
      .catch((caught: unknown) => {
        if (caught instanceof ApiError && caught.status === 403) setConnection('forbidden');
        else setError((caught as Error).message);
      });
  }, [client]);
  useEffect(load, [load]);

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const secret = textField(data, 'clientSecret');
    const body: PutSsoConnection = {
      issuer: textField(data, 'issuer').trim(),
      clientId: textField(data, 'clientId').trim(),
      ...(secret ? { clientSecret: secret } : {}),
      allowedDomains: textField(data, 'allowedDomains')
        .split(/[\s,]+/)
        .filter(Boolean),
      defaultRole: textField(data, 'defaultRole') as PutSsoConnection['defaultRole'],
      ssoRequired: data.get('ssoRequired') === 'on',
    };
    setBusy(true);
    try {
      const answer = await client.json<{ data: SsoConnection }>('/v1/workspace/sso', { method: 'PUT', body });
      setConnection(answer.data);
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!window.confirm('Remove single sign-on? Everyone signed in through it is signed out.')) return;
    try {
      await client.json('/v1/workspace/sso', { method: 'DELETE' });
      setConnection(null);
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  if (connection === undefined && !error) return null;
  const current = connection && connection !== 'forbidden' ? connection : null;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Single sign-on</h2>
      {connection === 'forbidden' ? (
        <p className="muted">Only owners manage single sign-on.</p>
      ) : (
        <>
          {current && (
            <dl>
              <dt>Sign-in link for members</dt>
              <dd>
                <code aria-label="Single sign-on link">{current.signInUrl}</code>{' '}
                <CopyButton text={current.signInUrl} label="Copy the sign-in link" />
              </dd>
              <dt>Redirect URI to register at the provider</dt>
              <dd>
                <code>{current.callbackUrl}</code>
              </dd>
            </dl>
          )}
          <form className="stack" aria-label="Single sign-on setting" onSubmit={(event) => void save(event)}>
            <label htmlFor={`${id}-issuer`}>Issuer URL</label>
            <input id={`${id}-issuer`} name="issuer" type="url" required defaultValue={current?.issuer} />
            <label htmlFor={`${id}-client`}>Client ID</label>
            <input id={`${id}-client`} name="clientId" required defaultValue={current?.clientId} />
            <label htmlFor={`${id}-secret`}>Client secret</label>
            <input
              id={`${id}-secret`}
              name="clientSecret"
              type="password"
              autoComplete="off"
              required={!current}
              placeholder={current ? 'Stored; leave empty to keep it' : ''}
            />
            <label htmlFor={`${id}-domains`}>Allowed email domains</label>
            <input
              id={`${id}-domains`}
              name="allowedDomains"
              required
              placeholder="example.com, example.org"
              defaultValue={current?.allowedDomains.join(', ')}
            />
            <label htmlFor={`${id}-role`}>Role of a new member</label>
            <select id={`${id}-role`} name="defaultRole" defaultValue={current?.defaultRole ?? 'member'}>
              <option>admin</option>
              <option>member</option>
              <option>viewer</option>
            </select>
            <label>
              <input type="checkbox" name="ssoRequired" defaultChecked={current?.ssoRequired ?? false} />{' '}
              Require single sign-on (owners keep their password, and each such sign-in is audited)
            </label>
            {error && (
              <p role="alert" className="error">
                {error}
              </p>
            )}
            <div className="toolbar">
              <button type="submit" className="primary" disabled={busy}>
                {busy ? 'Checking the provider…' : 'Save'}
              </button>
              {current && (
                <button type="button" onClick={() => void remove()}>
                  Remove single sign-on
                </button>
              )}
            </div>
          </form>
        </>
      )}
    </section>
  );
}
