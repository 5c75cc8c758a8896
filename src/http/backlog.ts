// One server's budget for the bytes it holds for live readers that are behind, SSE streams and WebSockets
// together: each stream's own allowance bounds one reader, this bounds the process. It only counts; the
// readers cut themselves off when it says so (src/http/push.ts, src/http/websocket.ts).

export class Backlog {
  #held = 0;

  constructor(readonly limit: number) {}

  /** Bytes held now: the sum of every open reader's latest figure. */
  get held(): number {
    return this.#held;
  }

  /** A reader's figure goes from `before` to `now` (0 when it caught up or ended). True when that reader
   *  should be cut off: it is itself behind and the total is over the budget. A reader holding nothing is
   *  never cut off for others' backlog. Runs on every write: two adds and no allocation. */
  update(before: number, now: number): boolean {
    this.#held += now - before;
    return now > 0 && this.#held > this.limit;
  }
}
