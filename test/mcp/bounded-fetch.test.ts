// The fetch streamable-HTTP MCP servers are reached through, against a real HTTP server on
// loopback: an answer that runs past the bound without an end of message errors; an event
// stream of many small messages, more than the bound in all, goes through whole.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch } from '../../host/mcp/bounded-fetch.js';

const BOUND = 64 * 1024;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/huge') {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(16 * 1024);
      let sent = 0;
      const more = () => {
        // Ten times the bound, and more if the client keeps reading.
        while (sent < BOUND * 10) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end();
      };
      more();
      return;
    }
    if (request.url === '/json-blank-lines' || request.url === '/error-blank-lines') {
      // attack3: one JSON answer (or an error's text, which the SDK reads whole) with a
      // blank line, JSON whitespace, every half bound: ten bounds in all.
      const error = request.url === '/error-blank-lines';
      response.writeHead(error ? 500 : 200, {
        'content-type': error ? 'text/plain' : 'application/json',
      });
      const piece = `"${'x'.repeat(BOUND / 2)}",\n\n`;
      response.write('[');
      for (let i = 0; i < 20; i++) response.write(piece);
      response.end('"end"]');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { x: 'y'.repeat(1000) } })}\r\n\r\n`;
    for (let i = 0; i < 200; i++) response.write(event);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('boundedFetch', () => {
  it('errors on an answer past the bound without an end of message', async () => {
    const response = await boundedFetch(BOUND)(`${base}/huge`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow(/over 65536 bytes/);
  });

  it('passes an event stream of small messages that is larger than the bound in all', async () => {
    const response = await boundedFetch(BOUND)(`${base}/events`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    expect(text.length).toBeGreaterThan(BOUND * 3);
    expect(text.split('\r\n\r\n').filter(Boolean)).toHaveLength(200);
  });

  it('attack3: bounds a JSON answer in all, blank lines in it or not', async () => {
    const response = await boundedFetch(BOUND)(`${base}/json-blank-lines`);
    await expect(response.text()).rejects.toThrow(/over 65536 bytes/);
  });

  it("attack3: bounds an error's text in all", async () => {
    const response = await boundedFetch(BOUND)(`${base}/error-blank-lines`);
    expect(response.status).toBe(500);
    await expect(response.text()).rejects.toThrow(/over 65536 bytes/);
  });
});
