// GET /v2/sdk/{file}: the browser SDK bundles, built in memory on first use (src/sdk/build.ts) and
// served with a strong ETag so browsers revalidate cheaply. It never builds per request nor reads disk.
import { notFound } from '../errors.ts';
import { SDK_FILES, isSdkFile, sdkBundle } from '../sdk/build.ts';
import { reply, route } from './route.ts';
import { textBody } from './responses.ts';

const CACHE_CONTROL = 'public, max-age=3600, stale-while-revalidate=86400';

export const sdkRoutes = [
  route({
    method: 'GET',
    path: '/v2/sdk/{file}',
    response: textBody,
    responseType: 'text/javascript',
    access: 'public',
    tag: 'SDK',
    summary: `The browser SDK: ${SDK_FILES.join(', ')}. Answers 304 to a matching If-None-Match.`,
    responses: { 200: 'JavaScript', 304: 'Not modified', 404: 'Unknown SDK file' },
    async handler({ params, headers }) {
      const file = params.file ?? '';
      if (!isSdkFile(file)) throw notFound(`No SDK file ${file}; there are ${SDK_FILES.join(', ')}.`);
      const { body, etag } = await sdkBundle(file);
      const cacheHeaders = { ETag: etag, 'Cache-Control': CACHE_CONTROL };
      if (matchesEtag(headers['if-none-match'], etag)) return reply({ status: 304, headers: cacheHeaders });
      return reply({ raw: body, contentType: 'application/javascript; charset=utf-8', headers: cacheHeaders });
    },
  }),
];

/** If-None-Match is a list of tags compared weakly (RFC 9110 §13.1.2), or `*`. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
