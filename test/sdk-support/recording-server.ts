// A real node:http server on an ephemeral 127.0.0.1 port that records every request and answers
// from a script of statuses (default 202 with an ingest answer).
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Recorded = { method: string; url: string; headers: IncomingHttpHeaders; body: string; json: any };

export type RecordingServer = {
  url: string;
  requests: Recorded[];
  /** Statuses for the next requests, in order. */
  script: Array<{ status: number; headers?: Record<string, string>; body?: string }>;
  close(): Promise<void>;
};

export async function recordingServer(): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  const script: RecordingServer['script'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = body ? JSON.parse(body) : null;
      } catch {
        json = null;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json });
      const next = script.shift();
      const count = (json as { events?: unknown[] } | null)?.events?.length ?? 0;
      res.writeHead(next?.status ?? 202, { 'content-type': 'application/json', ...next?.headers });
      res.end(next?.body ?? JSON.stringify({ accepted: count, duplicates: 0, rejected: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
