// Structured logging: one JSON object per line on stdout, with a level, a message and fields.
// Secrets never reach it: callers pass ids and prefixes, not tokens or keys.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Logger = {
  [L in LogLevel]: (msg: string, fields?: Record<string, unknown>) => void;
} & {
  child: (fields: Record<string, unknown>) => Logger;
  /** Whether a line of this level would be written: lets hot paths skip building it. */
  enabled: (level: LogLevel) => boolean;
};

const rank: Record<LogLevel | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(
  level: LogLevel | 'silent' = 'info',
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Logger {
  const min = rank[level];
  const emit = (l: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (rank[l] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...base, ...fields }, errorReplacer));
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
    enabled: (l) => rank[l] >= min,
  };
}

function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
