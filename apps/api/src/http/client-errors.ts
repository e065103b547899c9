import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';

/** What Node's HTTP parser refused, as the spec's error: status, code and message. */
export function describeClientError(code: string | undefined): { status: number; code: string; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'HEADERS_TOO_LARGE', message: 'request headers are larger than 16 KiB' };
    case 'HPE_REQUEST_TIMEOUT':
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'the request was not received in time' };
    default:
      return { status: 400, code: 'VALIDATION_ERROR', message: 'malformed HTTP request (request line, header name or value)' };
  }
}

/**
 * Requests Node refuses before the app sees them (headers over 16 KiB, control bytes in a
 * header, a broken request line) are answered in the spec's error shape with an
 * `X-Request-Id`, like every other refusal, instead of Node's bare status line.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    const busy = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || busy) {
      socket.destroy();
      return;
    }
    const requestId = `req_${randomUUID().replace(/-/g, '')}`;
    const e = describeClientError(err.code);
    const body = JSON.stringify({ error: { code: e.code, message: e.message, request_id: requestId } });
    logger.info({ request_id: requestId, status: e.status, reason: err.code }, 'request refused by the HTTP parser');
    socket.end(
      `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
