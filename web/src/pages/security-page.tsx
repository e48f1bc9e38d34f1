import { FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { ApiKey, CreatedApiKey } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { useClient } from '../session-context';
import { textField } from '../logic/form-fields';

const date = (value: string | null) => (value ? new Date(value).toLocaleString() : 'never');

export function SecurityPage() {
  const client = useClient();
  const id = useId();
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    client
      .json<{ data: ApiKey[] }>('/v1/api-keys')
      .then((answer) => setKeys(answer.data))
      .catch((caught: Error) => setError(caught.message));
  }, [client]);
  useEffect(load, [load]);

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = textField(new FormData(form), 'name').trim();
    try {
      const answer = await client.json<{ data: CreatedApiKey }>('/v1/api-keys', {
        method: 'POST',
        body: { name },
      });
      setCreated(answer.data);
      setError(null);
      form.reset();
      load();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  const revoke = async (key: ApiKey) => {
    if (!window.confirm(`Revoke the key “${key.name}”? Programs using it stop working at once.`)) return;
    try {
      await client.json(`/v1/api-keys/${key.id}`, { method: 'DELETE' });
      if (created?.id === key.id) setCreated(null);
      load();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <>
      <h1>Security</h1>
      <section className="card stack" aria-labelledby={`${id}-create`}>
        <h2 id={`${id}-create`}>Create an API key</h2>
        <form className="inline-form" onSubmit={(event) => void create(event)}>
          <label htmlFor={`${id}-name`}>Key name</label>
          <input id={`${id}-name`} name="name" required maxLength={100} />
          <button type="submit" className="primary">
            Create key
          </button>
        </form>
        {created?.key && (
          <div className="secret" role="region" aria-label="New API key">
            <p>Copy the key now: it is shown only once.</p>
            <code data-testid="new-api-key">{created.key}</code>
            <CopyButton text={created.key} label="Copy key" />
          </div>
        )}
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </section>
      <section className="card" aria-labelledby={`${id}-list`}>
        <h2 id={`${id}-list`}>API keys</h2>
        {keys.length === 0 ? (
          <p className="muted">No API keys.</p>
        ) : (
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name}</td>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td>{date(key.createdAt)}</td>
                    <td>{date(key.lastUsedAt)}</td>
                    <td>
                      <button type="button" className="danger" onClick={() => void revoke(key)}>
                        Revoke {key.name}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
