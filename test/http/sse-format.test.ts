import t from 'tap';
import { SSE_HEARTBEAT, sseEvent, sseRetry } from '../../src/http/sse-format.ts';

t.test('sse framing', async (t) => {
  const line = { id: '42', message: 'two\nlines', data: { code: 'SVC_INGEST_REJECTED', index: 3 } };
  const frame = sseEvent(line.id, 'log', JSON.stringify(line));
  t.equal(frame, `id: 42\nevent: log\ndata: ${JSON.stringify(line)}\n\n`);
  t.equal(frame.split('\n').length, 5, 'a newline in the message stays inside one data field');
  t.same(JSON.parse(frame.split('\n')[2]!.slice('data: '.length)), line);
  t.equal(SSE_HEARTBEAT, ': ping\n\n');
  t.equal(sseRetry(2000), 'retry: 2000\n\n');
});
