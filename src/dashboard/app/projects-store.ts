// The readable projects (GET /v2/projects), loaded once per sign-in state and shared by the shell
// (project names) and the projects view.
import { signal } from '@preact/signals';
import { get } from './api.ts';

export type Project = {
  id: string;
  name: string;
  visibility: string;
  publicVisitorData: boolean;
  createdAt: string;
  publicKey?: string;
};

export const projects = signal<{ list: Project[] | null; error: Error | null }>({ list: null, error: null });

let latest = 0;

/** Reads the list again; an answer overtaken by a later call (a new sign-in) is dropped. */
export async function loadProjects(): Promise<void> {
  const mine = ++latest;
  try {
    const { data } = await get<{ data: Project[] }>('/v2/projects');
    if (mine === latest) projects.value = { list: data, error: null };
  } catch (err) {
    if (mine === latest) projects.value = { list: null, error: err as Error };
  }
}
