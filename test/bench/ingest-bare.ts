// The transport bound for `npm run bench:ingest`: a bare uWebSockets.js app that reads a POST body in full
// and answers 202 with a small JSON body, as the ingest route does minus everything in between.
// Run as a child process; prints one JSON line ({url}) when listening; SIGTERM stops it.
import uWS from 'uWebSockets.js';

const answer = JSON.stringify({ accepted: 50, duplicates: 0, rejected: [] });

uWS
  .App()
  .post('/*', (res) => {
    let aborted = false;
    let size = 0;
    res.onAborted(() => (aborted = true));
    res.onData((chunk, isLast) => {
      size += chunk.byteLength; // a real handler copies the chunk; reading its length is the least work
      if (!isLast || aborted) return;
      res.cork(() =>
        res
          .writeStatus('202 Accepted')
          .writeHeader('Content-Type', 'application/json')
          .end(size > 0 ? answer : '{}'),
      );
    });
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) throw new Error('bare server could not listen');
    process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${uWS.us_socket_local_port(socket)}` }) + '\n');
  });
process.once('SIGTERM', () => process.exit(0));
