import { FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { Vocabulary } from '../api/types';
import { useClient } from '../session-context';
import { textField } from '../logic/form-fields';

const splitWords = (text: string) =>
  text
    .split(/[\n,]/)
    .map((word) => word.trim())
    .filter((word) => word !== '');

export function VocabulariesPage() {
  const client = useClient();
  const id = useId();
  const [items, setItems] = useState<Vocabulary[]>([]);
  const [editing, setEditing] = useState<Vocabulary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    client
      .json<{ data: Vocabulary[] }>('/v1/vocabularies')
      .then((answer) => setItems(answer.data))
      .catch((caught: Error) => setError(caught.message));
  }, [client]);
  useEffect(load, [load]);

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const body = { name: textField(data, 'name').trim(), words: splitWords(textField(data, 'words')) };
    try {
      if (editing) await client.json(`/v1/vocabularies/${editing.id}`, { method: 'PUT', body });
      else await client.json('/v1/vocabularies', { method: 'POST', body });
      setEditing(null);
      setError(null);
      form.reset();
      load();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  const remove = async (vocabulary: Vocabulary) => {
    if (!window.confirm(`Delete the vocabulary “${vocabulary.name}”?`)) return;
    try {
      await client.json(`/v1/vocabularies/${vocabulary.id}`, { method: 'DELETE' });
      load();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <>
      <h1>Vocabularies</h1>
      <form
        key={editing?.id ?? 'new'}
        className="card stack"
        onSubmit={(event) => void save(event)}
        aria-labelledby={`${id}-form`}
      >
        <h2 id={`${id}-form`}>{editing ? `Edit “${editing.name}”` : 'New vocabulary'}</h2>
        <label htmlFor={`${id}-name`}>Name</label>
        <input id={`${id}-name`} name="name" required defaultValue={editing?.name} />
        <label htmlFor={`${id}-words`}>Words and phrases (one per line or comma-separated)</label>
        <textarea
          id={`${id}-words`}
          name="words"
          rows={4}
          required
          defaultValue={editing?.words.join('\n')}
        />
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <div className="toolbar">
          <button type="submit" className="primary">
            {editing ? 'Save vocabulary' : 'Create vocabulary'}
          </button>
          {editing && (
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          )}
        </div>
      </form>
      <section className="card" aria-labelledby={`${id}-list`}>
        <h2 id={`${id}-list`}>Saved vocabularies</h2>
        {items.length === 0 && <p className="muted">None yet.</p>}
        <ul className="job-list">
          {items.map((vocabulary) => (
            <li key={vocabulary.id}>
              <strong>{vocabulary.name}</strong>
              <span className="muted">{vocabulary.words.join(', ')}</span>
              <span className="toolbar">
                <button type="button" onClick={() => setEditing(vocabulary)}>
                  Edit {vocabulary.name}
                </button>
                <button type="button" className="danger" onClick={() => void remove(vocabulary)}>
                  Delete {vocabulary.name}
                </button>
              </span>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
