// HTTP status lines, as uWebSockets.js wants them written ("404 Not Found").
const reasons: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

// Built once: every response writes one, and a template string per request is garbage to collect.
const lines = new Map(Object.entries(reasons).map(([status, reason]) => [Number(status), `${status} ${reason}`]));

export const statusLine = (status: number) => lines.get(status) ?? `${status} Status`;
