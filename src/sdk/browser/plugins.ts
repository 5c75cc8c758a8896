// The SDK plugins module: the optional plugins and the scrub function callers use before
// captureError/captureMessage (spec Events, rule 6).
export { scrub, cut } from '../scrub.ts';
export { errors } from './errors.ts';
export type { ErrorsPlugin } from './errors.ts';
export { vitals } from './vitals.ts';
