// Projects: the list (public projects for anyone, readable ones for a signed-in caller), create,
// read, change settings, rotate the secret key, delete. Secret keys appear only on create and rotate.
import * as v from 'valibot';
import { canAdminProject, canReadProject } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { conflict, notFound } from '../errors.ts';
import { createProject, deleteProject, rotateSecretKey, updateProject, type ProjectRow } from '../db/projects.ts';
import { accessInfo } from './pipeline.ts';
import { route } from './route.ts';
import { atLeastOneField, iso, origin, projectIdSchema } from './schemas.ts';
import {
  deletedResponse,
  keysRotatedResponse,
  projectCreatedResponse,
  projectPatchResponse,
  projectResponse,
  projectsResponse,
} from './responses.ts';

const visibility = v.picklist(['public', 'private'], 'must be public or private');
const settings = {
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200))),
  visibility: v.optional(visibility),
  publicVisitorData: v.optional(v.boolean()),
  sqlEnabled: v.optional(v.boolean()),
  widgetReports: v.optional(v.boolean()),
  allowedOrigins: v.optional(v.pipe(v.array(origin), v.maxLength(100))),
  retentionDays: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1), v.maxValue(3650))),
  dailySalt: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Visitors without an SDK id are HMAC(salt, IP ‖ user agent) under a salt that rotates daily (the salt job), ' +
          'so their ids cannot be followed across days; the previous salt is kept 48 hours so sessions go on.',
      ),
    ),
  ),
};

const PatchProject = v.pipe(v.strictObject(settings), v.check(atLeastOneField, 'Send at least one setting to change.'));
const CreateProject = v.strictObject({
  id: v.optional(projectIdSchema),
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)),
  visibility: v.optional(visibility, 'private'),
});

/** A project as callers see it: settings and keys only for admins. */
export function projectView(p: ProjectRow, principal: Principal) {
  let views = viewsByRow.get(p);
  if (!views) viewsByRow.set(p, (views = buildViews(p)));
  return canAdminProject(principal, p.id) ? views.admin : views.basic;
}

// Built once per row object: the directory replaces rows on refresh, so a changed project is a new key,
// and every read would otherwise format two dates. Frozen because many answers share them.
const viewsByRow = new WeakMap<ProjectRow, ReturnType<typeof buildViews>>();

function buildViews(p: ProjectRow) {
  const basic = {
    id: p.id,
    name: p.name,
    visibility: p.visibility,
    publicVisitorData: p.public_visitor_data,
    createdAt: iso(p.created_at),
  };
  const admin = {
    ...basic,
    sqlEnabled: p.sql_enabled,
    widgetReports: p.widget_reports,
    allowedOrigins: p.allowed_origins,
    retentionDays: p.retention_days,
    dailySalt: p.daily_salt,
    publicKey: p.public_key,
    secretKeyHint: p.secret_key_hint,
    updatedAt: iso(p.updated_at),
  };
  return { basic: Object.freeze(basic), admin: Object.freeze(admin) };
}

export const projectRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects',
    response: projectsResponse,
    access: 'public',
    tag: 'Projects',
    summary:
      'List the projects the caller can read: public projects for anyone, plus private ones the credential lists.',
    handler({ services, caller }) {
      const readable = services.projects.all().filter((p) => canReadProject(caller.principal, accessInfo(p)));
      return { data: readable.map((p) => projectView(p, caller.principal)) };
    },
  }),
  route({
    method: 'POST',
    path: '/v2/projects',
    response: projectCreatedResponse,
    access: 'organization',
    tag: 'Projects',
    status: 201,
    summary: 'Create a project. Answers its public key and, this once, its secret key.',
    body: CreateProject,
    async handler({ body, services, caller }) {
      const id = body.id ?? slugOf(body.name);
      const created = await createProject(services.sql, { id, name: body.name, visibility: body.visibility });
      if (!created) throw conflict(`A project with id ${id} already exists.`);
      await services.projects.refresh();
      return { data: { ...projectView(created.project, caller.principal), secretKey: created.secretKey } };
    },
  }),
  route({
    method: 'GET',
    path: '/v2/projects/{project}',
    response: projectResponse,
    access: 'project',
    tag: 'Projects',
    summary: 'One project; settings and keys are shown to callers with admin access.',
    handler: ({ project, caller }) => ({ data: projectView(project, caller.principal) }),
  }),
  route({
    method: 'PATCH',
    path: '/v2/projects/{project}',
    response: projectPatchResponse,
    access: 'admin',
    tag: 'Projects',
    summary:
      'Change settings; only the fields sent change. allowedOrigins [] allows every origin; retentionDays 1–3650.',
    body: PatchProject,
    async handler({ project, body, services }) {
      const row = await updateProject(services.sql, project.id, body);
      if (!row) throw notFound(`Project ${project.id} not found.`);
      await services.projects.refresh();
      return {
        data: {
          id: row.id,
          name: row.name,
          visibility: row.visibility,
          publicVisitorData: row.public_visitor_data,
          sqlEnabled: row.sql_enabled,
          widgetReports: row.widget_reports,
          allowedOrigins: row.allowed_origins,
          retentionDays: row.retention_days,
          dailySalt: row.daily_salt,
          updatedAt: iso(row.updated_at),
        },
      };
    },
  }),
  route({
    method: 'POST',
    path: '/v2/projects/{project}/keys/rotate',
    response: keysRotatedResponse,
    access: 'admin',
    tag: 'Projects',
    summary: 'Replace the secret key. The new key is in this answer only; the old one stops working at once.',
    async handler({ project, services }) {
      const row = await rotateSecretKey(services.sql, project.id);
      if (!row) throw notFound(`Project ${project.id} not found.`);
      services.credentials.forgetAll();
      await services.projects.refresh();
      return {
        data: { id: row.id, publicKey: row.public_key, secretKey: row.secretKey, updatedAt: iso(row.updated_at) },
      };
    },
  }),
  route({
    method: 'DELETE',
    path: '/v2/projects/{project}',
    response: deletedResponse,
    access: 'owner',
    tag: 'Projects',
    summary: 'Delete a project and all its data (owner only).',
    async handler({ project, services }) {
      await deleteProject(services.sql, project.id);
      await services.projects.refresh();
      return { data: { id: project.id, deleted: true } };
    },
  }),
];

function slugOf(name: string): string {
  const base =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'project';
  return `${base}-${Math.random().toString(36).slice(2, 8)}`;
}
