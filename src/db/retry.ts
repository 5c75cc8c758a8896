// Transactions that lock rows of a shared project (dedup keys racing a retry, sessions and visitors of two
// processes' checkpoints) take them in key order, but a deadlock stays possible between their statements:
// Postgres aborts one transaction, and it is simply run again.

export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (i >= attempts || (code !== '40P01' && code !== '40001')) throw err;
      await new Promise((r) => setTimeout(r, 5 * i * Math.random()));
    }
  }
}
