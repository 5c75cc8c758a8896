// No cycles between folders: checked by `npm run -s lint:deps` beside .dependency-cruiser.cjs.
// The files directly in src/ are left out of this graph: they are the composition root (main, app,
// services, cli, cluster) and the shared leaves every folder may use (config, errors, log, memo,
// secrets, reply). As a folder, src/ would also hold every folder below it, so any import would close a
// cycle through it; the module rules in .dependency-cruiser.cjs still read those files.
const { options } = require('./.dependency-cruiser.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Two folders never import each other, directly or through others.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: { ...options, exclude: { path: ['^src/[^/]+\\.ts$', '^src/dashboard/app/'] } },
};
