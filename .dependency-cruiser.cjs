// Which folder may import which: checked by `npm run -s lint:deps` (part of `npm test`); folder cycles
// are checked by .dependency-cruiser-folders.cjs.
// Folders are the architecture (docs/architecture.md); these rules keep the imports following them.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'actors-no-database',
      severity: 'error',
      comment: 'Actors hold live state; the database and Redis are reached through what src/ hands them.',
      from: { path: '^actors/' },
      to: { path: ['^src/db/', '^node_modules/(postgres|ioredis|@electric-sql)/'] },
    },
    {
      name: 'query-not-routes',
      severity: 'error',
      comment: 'src/query builds SQL for reads; the routes call it, never the reverse.',
      from: { path: '^src/query/' },
      to: { path: '^src/routes/' },
    },
    {
      name: 'uws-only-in-http',
      severity: 'error',
      comment: 'Only src/http touches uWebSockets.js.',
      from: { pathNot: '^src/http/' },
      to: { path: '^node_modules/uWebSockets\\.js/' },
    },
  ],
  options: {
    // The dashboard's browser code (src/dashboard/app, .tsx) is bundled by esbuild and imports only its own
    // folder and npm packages; the swc parser used here does not read JSX.
    exclude: { path: '^src/dashboard/app/' },
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
