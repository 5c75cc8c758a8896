// One project as the caller may see it (GET /v2/projects/{project}). Settings and keys are in the answer
// only for callers with admin access to it, which is how views decide whether to offer admin controls
// (the API still decides every change, and its refusal is shown).
import { get } from './api.ts';
import { authKey } from './auth.ts';
import { useLoad } from './components/load.ts';

export type ProjectInfo = {
  id: string;
  name: string;
  visibility: string;
  publicVisitorData: boolean;
  createdAt: string;
  sqlEnabled?: boolean;
  widgetReports?: boolean;
  allowedOrigins?: string[];
  retentionDays?: number;
  dailySalt?: boolean;
  publicKey?: string;
  secretKeyHint?: string | null;
  updatedAt?: string;
};

export const canAdmin = (p: ProjectInfo | null): boolean => p?.sqlEnabled !== undefined;

export const projectApi = (project: string, rest = '') => `/v2/projects/${encodeURIComponent(project)}${rest}`;

export function useProjectInfo(project: string) {
  return useLoad(`${authKey.value}|${project}`, (signal) =>
    get<{ data: ProjectInfo }>(projectApi(project), undefined, signal).then((r) => r.data),
  );
}
