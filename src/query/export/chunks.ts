// Turns many small strings into few large ones (about 64 KiB), so a stream writes in sizes that make
// backpressure meaningful without holding more than one chunk. Knows nothing about formats.

export const CHUNK_CHARS = 64 * 1024;

/** Gathers parts; `take()` returns the gathered text once it is at least `size` characters. */
export class ChunkBuffer {
  private parts: string[] = [];
  private length = 0;
  constructor(private readonly size = CHUNK_CHARS) {}

  push(s: string): void {
    this.parts.push(s);
    this.length += s.length;
  }

  get full(): boolean {
    return this.length >= this.size;
  }

  /** Everything gathered so far (possibly ''), and the buffer starts over. */
  take(): string {
    const out = this.parts.join('');
    this.parts = [];
    this.length = 0;
    return out;
  }
}
