import { FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { CreatedWebhook, Webhook, WebhookDelivery, WebhookEventName } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { useClient } from '../session-context';
import { textField, textFields } from '../logic/form-fields';

const EVENTS = [
  'transcription.completed',
  'transcription.failed',
  'balance.low',
] as const satisfies readonly WebhookEventName[];

function Deliveries({ webhook }: { webhook: Webhook }) {
  const client = useClient();
  const [items, setItems] = useState<WebhookDelivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    client
      .json<{ data: WebhookDelivery[] }>(`/v1/webhooks/${webhook.id}/deliveries`)
      .then((answer) => setItems(answer.data))
      .catch((caught: Error) => setError(caught.message));
  }, [client, webhook.id]);
  if (error) return <p className="error">{error}</p>;
  if (!items) return <p>Loading…</p>;
  if (items.length === 0) return <p className="muted">No deliveries yet.</p>;
  return (
    <div className="table-scroll">
      <table>
        <caption>Deliveries to {webhook.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {items.map((delivery) => (
            <tr key={delivery.id}>
              <td>{delivery.event}</td>
              <td>{delivery.status}</td>
              <td>{delivery.attempts.length}</td>
              <td>{new Date(delivery.createdOn).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function WebhooksPage() {
  const client = useClient();
  const id = useId();
  const [items, setItems] = useState<Webhook[]>([]);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    client
      .json<{ data: Webhook[] }>('/v1/webhooks')
      .then((answer) => setItems(answer.data))
      .catch((caught: Error) => setError(caught.message));
  }, [client]);
  useEffect(load, [load]);

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const body = { url: textField(data, 'url').trim(), events: textFields(data, 'events') };
    try {
      const answer = await client.json<{ data: CreatedWebhook }>('/v1/webhooks', { method: 'POST', body });
      setCreated(answer.data);
      setError(null);
      form.reset();
      load();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  const remove = async (webhook: Webhook) => {
    if (!window.confirm(`Delete the endpoint ${webhook.url}?`)) return;
    try {
      await client.json(`/v1/webhooks/${webhook.id}`, { method: 'DELETE' });
      load();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <>
      <h1>Webhooks</h1>
      <form className="card stack" onSubmit={(event) => void create(event)} aria-labelledby={`${id}-form`}>
        <h2 id={`${id}-form`}>New endpoint</h2>
        <label htmlFor={`${id}-url`}>Endpoint URL (https)</label>
        <input id={`${id}-url`} name="url" type="url" required placeholder="https://example.com/hooks" />
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((name) => (
            <label key={name} className="check">
              <input type="checkbox" name="events" value={name} defaultChecked={name !== 'balance.low'} />{' '}
              {name}
            </label>
          ))}
        </fieldset>
        {created?.secret && (
          <div className="secret" role="region" aria-label="Signing secret">
            <p>Copy the signing secret now: it is shown only once.</p>
            <code>{created.secret}</code>
            <CopyButton text={created.secret} label="Copy secret" />
          </div>
        )}
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="primary">
          Create endpoint
        </button>
      </form>
      <section className="card" aria-labelledby={`${id}-list`}>
        <h2 id={`${id}-list`}>Endpoints</h2>
        {items.length === 0 && <p className="muted">None yet.</p>}
        <ul className="job-list">
          {items.map((webhook) => (
            <li key={webhook.id}>
              <strong className="break">{webhook.url}</strong>
              <span className="muted">
                {webhook.events.join(', ')} · {webhook.isActive ? 'active' : 'paused'}
              </span>
              <span className="toolbar">
                <button
                  type="button"
                  aria-expanded={open === webhook.id}
                  onClick={() => setOpen(open === webhook.id ? null : webhook.id)}
                >
                  Delivery log
                </button>
                <button type="button" className="danger" onClick={() => void remove(webhook)}>
                  Delete endpoint
                </button>
              </span>
              {open === webhook.id && <Deliveries webhook={webhook} />}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
