import { FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { ApiKey, ApiKeyRequest, CreatedApiKey } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { useClient } from '../session-context';
import { textField } from '../logic/form-fields';

const date = (value: string | null) => (value ? new Date(value).toLocaleString() : 'never');

const EXPIRY_CHOICES = [
  { days: '', label: 'Never' },
  { days: '7', label: 'In 7 days' },
  { days: '30', label: 'In 30 days' },
  { days: '90', label: 'In 90 days' },
  { days: '365', label: 'In a year' },
];
const STATUS_FILTERS = ['', '2xx', '4xx', '5xx'];

/** The key's latest requests (kept API_KEY_REQUEST_LOG_DAYS by the service), filtered by status class. */
function RequestLog({ apiKey }: { apiKey: ApiKey }) {
  const client = useClient();
  const id = useId();
  const [status, setStatus] = useState('');
  const [entries, setEntries] = useState<ApiKeyRequest[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    const query = new URLSearchParams({ limit: '50' });
    if (status) query.set('status', status);
    let stale = false;
    client
      .json<{ data: ApiKeyRequest[] }>(`/v1/api-keys/${apiKey.id}/requests?${query}`)
      .then((answer) => !stale && setEntries(answer.data))
      .catch((caught: Error) => !stale && setError(caught.message));
    return () => {
      stale = true;
    };
  }, [client, apiKey.id, status, reloads]);
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Requests made with {apiKey.name || apiKey.prefix}</h2>
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-status`}>Status</label>
          <select
            id={`${id}-status`}
            value={status}
            onChange={(event) => setStatus(event.currentTarget.value)}
          >
            {STATUS_FILTERS.map((filter) => (
              <option key={filter} value={filter}>
                {filter || 'Any'}
              </option>
            ))}
          </select>
        </div>
        <button type="button" onClick={() => setReloads((n) => n + 1)}>
          Refresh
        </button>
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {entries && entries.length === 0 && <p className="muted">No requests in the log.</p>}
      {entries && entries.length > 0 && (
        <ul className="job-list request-log">
          {entries.map((entry) => (
            <li key={`${entry.at}-${entry.requestId}`}>
              <code className="request-line">
                {entry.method} {entry.path}
                {entry.query ? `?${entry.query}` : ''}
              </code>
              <span className={entry.status >= 400 ? 'error' : undefined}>{entry.status}</span>
              <span className="muted">{entry.durationMs} ms</span>
              <span className="muted">{new Date(entry.at).toLocaleString()}</span>
              <code className="muted">{entry.requestId}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function SecurityPage() {
  const client = useClient();
  const id = useId();
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [logged, setLogged] = useState<ApiKey | null>(null);
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
    const fields = new FormData(form);
    const name = textField(fields, 'name').trim();
    const expiresInDays = textField(fields, 'expires');
    try {
      const answer = await client.json<{ data: CreatedApiKey }>('/v1/api-keys', {
        method: 'POST',
        body: expiresInDays ? { name, expiresInDays: Number(expiresInDays) } : { name },
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
      if (logged?.id === key.id) setLogged(null);
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
          <label htmlFor={`${id}-expires`}>Expires</label>
          <select id={`${id}-expires`} name="expires" defaultValue="">
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.days} value={choice.days}>
                {choice.label}
              </option>
            ))}
          </select>
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
          <ul className="job-list">
            {keys.map((key) => (
              <li key={key.id}>
                <strong>{key.name || 'Unnamed key'}</strong>
                <code className="key-prefix">{key.prefix}…</code>
                <span className="muted">{key.scopes.join(', ')}</span>
                <span className="muted">
                  created {date(key.createdAt)} · last used {date(key.lastUsedAt)} · expires{' '}
                  {date(key.expiresAt)}
                </span>
                <span className="toolbar">
                  <button
                    type="button"
                    aria-expanded={logged?.id === key.id}
                    onClick={() => setLogged(logged?.id === key.id ? null : key)}
                  >
                    Requests of {key.name}
                  </button>
                  <button type="button" className="danger" onClick={() => void revoke(key)}>
                    Revoke {key.name}
                  </button>
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      {logged && <RequestLog key={logged.id} apiKey={logged} />}
    </>
  );
}
