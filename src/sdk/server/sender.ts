// Sends one batch to POST /v2/ingest with the secret key, retrying network errors, 5xx and 429 with
// exponential backoff (or Retry-After). The body is built once, so every retry carries the same event
// ids and the server counts a repeat as a duplicate. Returns an outcome; never throws.
import type { IngestAnswer, LoupeEvent } from '../event.ts';

export type SendOptions = {
  url: string;
  secretKey: string;
  fetch: typeof fetch;
  maxRetries: number;
  retryBaseMs: number;
};

export type SendOutcome =
  | { ok: true; answer: IngestAnswer | null; attempts: number }
  | { ok: false; reason: 'refused' | 'gave-up'; status?: number; message: string; attempts: number };

const MAX_RETRY_DELAY_MS = 30_000;

export async function sendBatch(options: SendOptions, events: LoupeEvent[], cookie?: string): Promise<SendOutcome> {
  const body = JSON.stringify({ events });
  const headers: Record<string, string> = {
    Authorization: `Bearer ${options.secretKey}`,
    'Content-Type': 'application/json',
    'User-Agent': 'loupe-node/0.1',
  };
  if (cookie) headers.Cookie = cookie;
  let last = '';
  let retryAfter = '';
  let status: number | undefined;
  for (let attempt = 0; attempt <= options.maxRetries; attempt++) {
    if (attempt > 0) await sleep(delayFor(attempt, options.retryBaseMs, retryAfter));
    try {
      const response = await options.fetch(options.url, { method: 'POST', headers, body });
      status = response.status;
      if (response.ok) return { ok: true, answer: await readAnswer(response), attempts: attempt + 1 };
      const text = await response.text().catch(() => '');
      if (response.status !== 429 && response.status < 500) {
        return {
          ok: false,
          reason: 'refused',
          status: response.status,
          message: text.slice(0, 500),
          attempts: attempt + 1,
        };
      }
      retryAfter = response.headers.get('retry-after') ?? '';
      last = `status ${response.status}`;
    } catch (error) {
      status = undefined;
      retryAfter = '';
      last = String(error);
    }
  }
  return {
    ok: false,
    reason: 'gave-up',
    status,
    message: `gave up after ${options.maxRetries + 1} attempts (last: ${last})`,
    attempts: options.maxRetries + 1,
  };
}

function delayFor(attempt: number, baseMs: number, retryAfter: string): number {
  const seconds = Number(retryAfter);
  if (retryAfter !== '' && Number.isFinite(seconds) && seconds >= 0)
    return Math.min(seconds * 1000, MAX_RETRY_DELAY_MS);
  return Math.min(baseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
}

async function readAnswer(response: Response): Promise<IngestAnswer | null> {
  try {
    return (await response.json()) as IngestAnswer;
  } catch {
    return null;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
