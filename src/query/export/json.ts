// JSON as the route's normal answer: `data` holds every row, then the envelope's other members. Written
// as text pieces, one row at a time, so the whole document never exists in memory.
import { ChunkBuffer } from './chunks.ts';

export async function* jsonChunks(
  rows: AsyncIterable<Record<string, unknown>>,
  envelope: Record<string, unknown> = {},
): AsyncGenerator<string> {
  const buffer = new ChunkBuffer();
  buffer.push('{"data":[');
  let first = true;
  for await (const row of rows) {
    buffer.push(first ? JSON.stringify(row) : ',' + JSON.stringify(row));
    first = false;
    if (buffer.full) yield buffer.take();
  }
  buffer.push(']');
  for (const [key, value] of Object.entries(envelope)) {
    if (key === 'data' || value === undefined) continue;
    buffer.push(`,${JSON.stringify(key)}:${JSON.stringify(value)}`);
  }
  buffer.push('}\n');
  yield buffer.take();
}
