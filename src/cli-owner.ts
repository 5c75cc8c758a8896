// The owner's commands of the CLI: members (list, remove) and deleting a project, doing what the
// /v2/members and DELETE /v2/projects/{project} routes do. Registered by src/cli.ts.
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import type { Database } from './db/client.ts';
import { LastOwnerError, listMembers, removeMember } from './db/members.ts';
import { deleteProject } from './db/projects.ts';
import { memberView } from './routes/members.ts';
import { projectIdSchema } from './routes/schemas.ts';

export const ownerUsage = `  user list                                 list dashboard members (login, role, projects, last seen)
  user remove --login L                     remove a member; their sessions end (the last owner stays)
  project delete --id P                     delete a project and all its data (asks nothing)`;

export const ownerCommands: Record<string, (db: Database, args: string[]) => Promise<unknown>> = {
  'user list': async (db) => ({ data: (await listMembers(db.sql)).map(memberView) }),
  'user remove': async (db, args) => {
    const { values } = parseArgs({ args, options: { login: { type: 'string' } } });
    if (!values.login) throw new Error('--login is required');
    let removed;
    try {
      removed = await removeMember(db.sql, values.login);
    } catch (err) {
      // The route's 409: the same words, as an error.
      if (err instanceof LastOwnerError) throw new Error(err.message);
      throw err;
    }
    if (!removed) throw new Error(`No member ${values.login}`);
    return {
      id: removed.member.id,
      login: removed.member.login,
      removed: true,
      sessionsEnded: removed.sessionHashes.length,
    };
  },
  'project delete': async (db, args) => {
    const { values } = parseArgs({ args, options: { id: { type: 'string' } } });
    const id = v.parse(projectIdSchema, values.id);
    if (!(await deleteProject(db.sql, id))) throw new Error(`No project ${id}`);
    return { id, deleted: true };
  },
};
