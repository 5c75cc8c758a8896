// People (detail access): the visitors with events in the range, under the overview's period, traffic,
// environment and filters (all in the address), paged, with CSV and JSON exports; /people/{visitor} is
// one visitor's profile.
import { place } from '../../router.ts';
import type { ProjectViewProps } from '../index.ts';
import { VisitorList } from './list.tsx';
import { VisitorProfile } from './visitor.tsx';

export default function People({ project, item }: ProjectViewProps) {
  return item ? (
    <VisitorProfile key={item} project={project} visitor={item} />
  ) : (
    <VisitorList project={project} search={place.value.search} />
  );
}
