// The project's keys: the public key (browser ingest) and the secret key's hint; rotating the secret key
// (POST /v2/projects/{p}/keys/rotate) shows the new key this once, after a confirming second click,
// since the old key stops working at once.
import { useSignal } from '@preact/signals';
import { send } from '../../api.ts';
import { projectApi, type ProjectInfo } from '../../project-info.ts';
import { Refusal } from './refusal.tsx';

export function Keys({ project, info, onRotated }: { project: string; info: ProjectInfo; onRotated: () => void }) {
  const confirming = useSignal(false);
  const secret = useSignal<string | null>(null);
  const error = useSignal<Error | null>(null);
  async function rotate() {
    confirming.value = false;
    try {
      const { data } = await send<{ data: { secretKey: string } }>('POST', projectApi(project, '/keys/rotate'));
      secret.value = data.secretKey;
      error.value = null;
      onRotated();
    } catch (err) {
      error.value = err as Error;
    }
  }
  return (
    <section class="card settings-card" aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      <dl class="keys">
        <div>
          <dt>Public key (the browser SDK's data-key)</dt>
          <dd>
            <code data-key="public">{info.publicKey}</code>
          </dd>
        </div>
        <div>
          <dt>Secret key (server SDKs)</dt>
          <dd>
            <code data-key="hint">{info.secretKeyHint ?? 'hidden'}</code>
          </dd>
        </div>
      </dl>
      {confirming.value ? (
        <p class="confirm">
          The current secret key stops working at once.{' '}
          <button class="primary" onClick={() => void rotate()}>
            Rotate now
          </button>{' '}
          <button onClick={() => (confirming.value = false)}>Cancel</button>
        </p>
      ) : (
        <button onClick={() => (confirming.value = true)}>Rotate the secret key</button>
      )}
      {secret.value ? (
        <p class="secret" role="status">
          New secret key, shown this once: <code data-secret>{secret.value}</code>
        </p>
      ) : null}
      {error.value ? <Refusal error={error.value} /> : null}
    </section>
  );
}
