/** One server-sent event (the `text/event-stream` format of the HTML standard). */
export interface ServerSentEvent {
  /** The `id:` field, when the event had one. */
  id?: string;
  /** The `event:` field (`message` when absent). */
  event: string;
  /** The `data:` lines, joined by newlines. */
  data: string;
}

/**
 * The events of a `text/event-stream` body, as they arrive. Comment lines (keep-alives) and
 * `retry:` are skipped; lines end with LF, CR LF or CR. Ends when the body ends (an event not
 * finished by a blank line is dropped, as the standard says).
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent, void, undefined> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let event: { id?: string; event?: string; data: string[] } = { data: [] };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let end: number;
      // A CR at the very end may be half of a CR LF still to come.
      while ((end = buffer.search(/\r\n|\r(?!$)|\n/)) >= 0 || (done && buffer.endsWith('\r') && (end = buffer.length - 1) >= 0)) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (event.data.length) yield { ...(event.id !== undefined ? { id: event.id } : {}), event: event.event || 'message', data: event.data.join('\n') };
          event = { data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') event.data.push(value);
        else if (field === 'event') event.event = value;
        else if (field === 'id' && !value.includes('\0')) event.id = value;
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
