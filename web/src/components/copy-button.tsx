import { useState } from 'react';

/** Copies a secret shown once; says so (or that copying failed) in a live region for screen readers. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [outcome, setOutcome] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      // No clipboard (an insecure origin, an old browser) or a refused permission: the text stays selectable.
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setOutcome('copied');
    } catch {
      setOutcome('failed');
    }
  };
  return (
    <>
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="muted">
        {outcome === 'copied'
          ? 'Copied'
          : outcome === 'failed'
            ? 'Could not copy: select the text and copy it'
            : ''}
      </span>
    </>
  );
}
