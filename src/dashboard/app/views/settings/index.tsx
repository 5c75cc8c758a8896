// Settings (admin access to the project, as the API allows): the project's settings, its keys (rotating
// the secret key shows the new one once), API tokens (organisation-wide: owners, and admins listing no
// projects) and members with their roles (owners change them; admins read them). Each section reads its
// own route, so a section the caller may not use shows the API's refusal and the others still work.
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { canAdmin, useProjectInfo } from '../../project-info.ts';
import type { ProjectViewProps } from '../index.ts';
import { Keys } from './keys.tsx';
import { Members } from './members.tsx';
import { ProjectForm } from './project-form.tsx';
import { Tokens } from './tokens.tsx';

export default function Settings({ project }: ProjectViewProps) {
  const info = useProjectInfo(project);
  if (info.error) return <ErrorNote error={info.error} />;
  if (!info.data) return <Loading label="Loading settings…" />;
  return (
    <section class="settings" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings of {info.data.name}</h1>
      {canAdmin(info.data) ? (
        <>
          <ProjectForm info={info.data} onSaved={info.reload} />
          <Keys project={project} info={info.data} onRotated={info.reload} />
        </>
      ) : (
        <Empty>
          Only an owner, or an admin of this project, can change its settings and keys. Your credential reads its
          numbers.
        </Empty>
      )}
      <Tokens project={project} />
      <Members project={project} />
    </section>
  );
}
