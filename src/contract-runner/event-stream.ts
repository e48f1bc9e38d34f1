/** One block of a text/event-stream, between blank lines. */
export interface EventBlock {
  id?: string;
  event?: string;
  retry?: string;
  data: string[];
  comments: string[];
}

/** Parses a whole event stream as text into its blocks (the format of the WHATWG Server-Sent Events spec). */
export function parseEventStream(text: string): EventBlock[] {
  const blocks: EventBlock[] = [];
  let current: EventBlock = { data: [], comments: [] };
  const flush = (): void => {
    if (
      current.data.length > 0 ||
      current.id !== undefined ||
      current.retry !== undefined ||
      current.event !== undefined
    ) {
      blocks.push(current);
    } else if (current.comments.length > 0) {
      blocks.push(current);
    }
    current = { data: [], comments: [] };
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      flush();
      continue;
    }
    if (line.startsWith(':')) {
      current.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') current.data.push(value);
    else if (field === 'id') current.id = value;
    else if (field === 'event') current.event = value;
    else if (field === 'retry') current.retry = value;
  }
  flush();
  return blocks;
}

/** Reads a streaming body to its end (the server closes it after the terminal frame), or until `signal` aborts. */
export async function readStream(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return '';
  const decoder = new TextDecoder();
  let text = '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
