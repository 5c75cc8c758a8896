// The server's entry point: read the configuration, start Loupe, print how to reach it, and shut down
// gracefully on SIGTERM / SIGINT (stop accepting, finish requests, flush, close the database).
import { startLoupe } from './app.ts';
import { bootstrapEmbedded } from './bootstrap.ts';
import { loadConfig } from './config.ts';
import { firstOwnerHint } from './first-owner.ts';
import { createLogger } from './log.ts';
import { Refusal } from './refusal.ts';

const config = loadConfig();
const log = createLogger(config.logLevel);

try {
  const loupe = await startLoupe(config, log);
  const url = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${loupe.port}`;
  log.info('loupe listening', {
    url,
    database: config.databaseUrl ? 'postgres' : `embedded (${config.dataDir})`,
    redis: config.redisUrl ? 'on' : 'off (single process)',
  });
  if (!config.databaseUrl) await bootstrapEmbedded(loupe.services, url);
  const hint = await firstOwnerHint(loupe.services);
  if (hint) process.stdout.write(hint + '\n');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await loupe.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
} catch (err) {
  // A refusal (data folder or port in use) is said plainly, also when the log is silenced.
  if (err instanceof Refusal) process.stderr.write(`loupe: ${err.message}\n`);
  log.error('could not start', { err });
  process.exit(1);
}
