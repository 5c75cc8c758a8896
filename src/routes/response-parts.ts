// The pieces the success-body schemas (responses*.ts) are built from: timestamps, integers, nullable
// members, the data and paging envelopes, and the members every aggregate read echoes.
import * as v from 'valibot';
import { environments, trafficKinds } from '../query/params.ts';

export const at = v.pipe(v.string(), v.isoTimestamp());
export const int = v.pipe(v.number(), v.integer());
export const text = v.string();
export const maybe = <S extends v.GenericSchema>(s: S) => v.nullable(s);
export const data = <S extends v.GenericSchema>(s: S) => v.object({ data: s });
export const paged = <S extends v.GenericSchema>(row: S) => v.object({ data: v.array(row), nextCursor: maybe(text) });

/** The members every aggregate read echoes. */
export const range = v.object({ from: at, to: at });
export const filters = v.pipe(
  v.record(v.string(), v.string()),
  v.description('The applied filters by dimension; an excluded value starts with !.'),
);
export const echo = {
  range,
  traffic: v.picklist(trafficKinds),
  environment: v.picklist(environments),
  filters,
};

export const device = v.object({
  type: maybe(text),
  browser: maybe(text),
  browserVersion: maybe(text),
  os: maybe(text),
  osVersion: maybe(text),
  screen: maybe(text),
  viewport: maybe(text),
  language: maybe(text),
  connection: maybe(text),
});
