import { useState } from 'react';

/** Copies a secret shown once; says so in a live region for screen readers. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(text).then(() => setCopied(true));
        }}
      >
        {label}
      </button>
      <span role="status" className="muted">
        {copied ? 'Copied' : ''}
      </span>
    </>
  );
}
