// The command line: `npm run -s cli -- <command>`. Every command prints JSON on stdout so scripts can
// read it; errors go to stderr with a non-zero exit. Talks to the database DATABASE_URL (or DATA_DIR) names.
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { ownerCommands, ownerUsage } from './cli-owner.ts';
import { loadConfig } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { addMember } from './db/members.ts';
import { migrate } from './db/migrate.ts';
import { createProject } from './db/projects.ts';
import { createToken } from './db/tokens.ts';
import { createLogger } from './log.ts';
import { projectIdSchema } from './routes/schemas.ts';
import { seedProject } from './seed/index.ts';

const usage = `Usage: npm run -s cli -- <command> [options]

Commands:
  migrate                                   apply pending migrations
  project create --name N [--id ID] [--public]
                                            create a project; prints id, publicKey, secretKey (once)
  token create --name N --scope read|sql|admin [--projects a,b] [--expires ISO]
                                            create an API token; prints it (once)
  user add --login L --role owner|admin|analyst|viewer [--projects a,b] [--name N]
                                            add a dashboard member (or change their role)
${ownerUsage}
  seed --project ID --events N [--days D]   fill a project (created if missing) with synthetic traffic;
                                            prints project, events, sessions, visitors, seconds

Environment: DATABASE_URL (unset: the embedded database in DATA_DIR, default ./data).
Output: JSON on stdout.`;

type Command = (db: Database, args: string[]) => Promise<unknown>;

const list = (s: string | undefined) =>
  s
    ? s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : null;

const commands: Record<string, Command> = {
  ...ownerCommands,
  migrate: async (db) => migrate(db.sql),
  'project create': async (db, args) => {
    const { values } = parseArgs({
      args,
      options: { name: { type: 'string' }, id: { type: 'string' }, public: { type: 'boolean' } },
    });
    if (!values.name) throw new Error('--name is required');
    const id =
      values.id ??
      values.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '');
    v.parse(projectIdSchema, id);
    const created = await createProject(db.sql, {
      id,
      name: values.name,
      visibility: values.public ? 'public' : 'private',
    });
    if (!created) throw new Error(`A project with id ${id} already exists`);
    return {
      id,
      name: values.name,
      visibility: created.project.visibility,
      publicKey: created.project.public_key,
      secretKey: created.secretKey,
    };
  },
  'token create': async (db, args) => {
    const { values } = parseArgs({
      args,
      options: {
        name: { type: 'string' },
        scope: { type: 'string' },
        projects: { type: 'string' },
        expires: { type: 'string' },
      },
    });
    if (!values.name) throw new Error('--name is required');
    const scope = v.parse(v.picklist(['read', 'sql', 'admin']), values.scope);
    const expiresAt = values.expires ? new Date(values.expires) : null;
    if (expiresAt && (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now()))
      throw new Error('--expires must be a future ISO date-time');
    const { row, token } = await createToken(db.sql, {
      name: values.name,
      scope,
      projectIds: list(values.projects),
      expiresAt,
      createdBy: 'cli',
    });
    return {
      id: row.id,
      name: row.name,
      scope: row.scope,
      projectIds: row.project_ids,
      expiresAt: row.expires_at,
      token,
    };
  },
  'user add': async (db, args) => {
    const { values } = parseArgs({
      args,
      options: {
        login: { type: 'string' },
        role: { type: 'string' },
        projects: { type: 'string' },
        name: { type: 'string' },
      },
    });
    if (!values.login) throw new Error('--login is required');
    const role = v.parse(v.picklist(['owner', 'admin', 'analyst', 'viewer']), values.role);
    const m = await addMember(db.sql, {
      login: values.login,
      role,
      projectIds: list(values.projects),
      name: values.name,
    });
    return { id: m.id, login: m.login, role: m.role, projectIds: m.project_ids };
  },
  seed: async (db, args) => {
    const { values } = parseArgs({
      args,
      options: { project: { type: 'string' }, events: { type: 'string' }, days: { type: 'string' } },
    });
    const projectId = v.parse(projectIdSchema, values.project);
    const count = (s: string | undefined, name: string, fallback?: number) => {
      const n = s === undefined ? fallback : Number(s);
      if (n === undefined || !Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
      return n;
    };
    const events = count(values.events, 'events');
    const days = count(values.days, 'days', 90);
    await createProject(db.sql, { id: projectId, name: projectId, visibility: 'private' }); // null when it exists: fine
    return seedProject(db.sql, { projectId, events, days, embedded: db.embedded });
  },
};

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    process.stdout.write(usage + '\n');
    return argv.length === 0 ? 1 : 0;
  }
  const two = `${argv[0]} ${argv[1] ?? ''}`.trim();
  const name = commands[two] ? two : argv[0]!;
  const command = commands[name];
  if (!command) {
    process.stderr.write(`Unknown command: ${argv.join(' ')}\n\n${usage}\n`);
    return 2;
  }
  const config = loadConfig();
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    log: createLogger('warn'),
    max: 2,
  });
  try {
    if (name !== 'migrate') await migrate(db.sql);
    const result = await command(db, argv.slice(name.split(' ').length));
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return 0;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof v.ValiError ? err.issues.map((i) => i.message).join('; ') : (err as Error).message;
    process.stderr.write(`error: ${message}\n`);
    process.exit(1);
  },
);
