import { FormEvent, useEffect, useId, useState } from 'react';
import { AccountSettings } from '../api/types';
import { useClient } from '../session-context';
import { textField } from '../logic/form-fields';

/** Empty field = keep forever (null). */
const days = (value: string): number | null => (value.trim() === '' ? null : Number(value));

/** Low-balance threshold and retention (GET/PATCH /v1/account/settings, session only). */
export function WorkspaceSettings() {
  const client = useClient();
  const id = useId();
  const [settings, setSettings] = useState<AccountSettings | null>(null);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  useEffect(() => {
    client
      .json<{ data: AccountSettings }>('/v1/account/settings')
      .then((answer) => setSettings(answer.data))
      .catch((caught: Error) => setMessage({ error: true, text: caught.message }));
  }, [client]);

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = {
      lowBalanceThreshold: Number(textField(form, 'lowBalanceThreshold')),
      retention: {
        audioDays: days(textField(form, 'audioDays')),
        transcriptDays: days(textField(form, 'transcriptDays')),
      },
    };
    try {
      const answer = await client.json<{ data: AccountSettings }>('/v1/account/settings', {
        method: 'PATCH',
        body,
      });
      setSettings(answer.data);
      setMessage({ error: false, text: 'Settings saved.' });
    } catch (caught) {
      setMessage({ error: true, text: (caught as Error).message });
    }
  };

  if (!settings) return message ? <p className="error">{message.text}</p> : null;
  return (
    <form className="card stack" onSubmit={(event) => void save(event)} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Workspace settings</h2>
      <div className="grid">
        <div className="field">
          <label htmlFor={`${id}-threshold`}>Low-balance alert below (EUR)</label>
          <input
            id={`${id}-threshold`}
            name="lowBalanceThreshold"
            type="number"
            min={0}
            step="0.01"
            required
            defaultValue={settings.lowBalanceThreshold}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-audio`}>Delete audio after (days, empty = keep)</label>
          <input
            id={`${id}-audio`}
            name="audioDays"
            type="number"
            min={0}
            defaultValue={settings.retention.audioDays ?? ''}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-text`}>Delete transcripts after (days, empty = keep)</label>
          <input
            id={`${id}-text`}
            name="transcriptDays"
            type="number"
            min={0}
            defaultValue={settings.retention.transcriptDays ?? ''}
          />
        </div>
      </div>
      {message && (
        <p role={message.error ? 'alert' : 'status'} className={message.error ? 'error' : 'success'}>
          {message.text}
        </p>
      )}
      <button type="submit" className="primary">
        Save settings
      </button>
    </form>
  );
}
