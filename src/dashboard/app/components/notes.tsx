// The states every panel shares: loading, empty (saying what to do), and an API error with its message.
import type { ComponentChildren } from 'preact';
import { ApiError } from '../api.ts';

export const Loading = ({ label = 'Loading…' }: { label?: string }) => (
  <p class="note loading" role="status">
    {label}
  </p>
);

export const Empty = ({ children }: { children: ComponentChildren }) => <p class="note empty">{children}</p>;

export function ErrorNote({ error }: { error: Error }) {
  const code = error instanceof ApiError ? error.code : null;
  return (
    <p class="note error" role="alert">
      {error.message}
      {code && code !== 'NETWORK' ? <span class="code"> ({code})</span> : null}
    </p>
  );
}
