import { useId } from 'react';
import { curlCommand, openAiCode, PlaygroundRequest, typedClientCode } from '../logic/request-code';
import { CopyButton } from './copy-button';

function Snippet({ title, code }: { title: string; code: string }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="snippet">
      <h3 id={id}>{title}</h3>
      <pre>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} label={`Copy ${title}`} />
    </section>
  );
}

/** "Show the request": what the playground just sent, as code for three clients, and the answer as sent. */
export function RequestPanel({ request, answer }: { request: PlaygroundRequest; answer: unknown }) {
  return (
    <details className="request-panel">
      <summary>Show the request</summary>
      <p className="muted">
        The same upload from a program; <code>KEY</code> is an API key (Security page).
      </p>
      <Snippet title="curl" code={curlCommand(request)} />
      <Snippet title="TypeScript client" code={typedClientCode(request)} />
      <Snippet title="OpenAI SDK" code={openAiCode(request)} />
      <Snippet title="Answer (raw JSON)" code={JSON.stringify(answer, null, 2)} />
    </details>
  );
}
