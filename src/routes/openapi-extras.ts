// What the OpenAPI document says beyond the route declarations: the ingest body's events and their
// kinds, the dimension and metric names a read takes, and the live WebSocket, which is no HTTP route.
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { EventSchema, MAX_BATCH, MAX_PROPS, ReportSchema } from '../ingest/event-schema.ts';
import { dimensionNames } from '../query/dimensions.ts';
import { builtInMetrics } from '../query/metrics.ts';
import { range } from './response-parts.ts';
import { logLine, realtimeResponse } from './responses.ts';

type Json = Record<string, unknown>;
export const jsonSchema = (s: v.GenericSchema): Json =>
  toJsonSchema(s as never, { errorMode: 'ignore', typeMode: 'input' }) as Json;
const bare = (s: Json) => {
  const { $schema: _, ...rest } = s;
  return rest;
};

export const dimensionParam: Json = {
  description:
    'A registered dimension, or prop:<key> (an event prop), trait:<key> (the visitor trait) or group:<type> (the event group).',
  anyOf: [
    { type: 'string', enum: dimensionNames },
    { type: 'string', pattern: '^(prop|trait|group):[A-Za-z0-9_.$-]{1,64}$' },
  ],
};

export const metricParam: Json = {
  description:
    'A built-in metric (conversion_rate needs filter[event]), or sum:prop.<key> / avg:prop.<key> over a numeric prop.',
  anyOf: [
    { type: 'string', enum: [...builtInMetrics] },
    { type: 'string', pattern: '^(sum|avg):prop\\.[A-Za-z0-9_.$-]{1,64}$' },
  ],
};

/** Query parameters whose valibot schema checks more than JSON Schema can say, by name. */
export function documentedQueryParam(name: string, schema: Json, required: boolean): Json | null {
  const plain = schema.type === 'string' && !('enum' in schema);
  if (name === 'metric' && plain) return { name, in: 'query', required, schema: metricParam };
  if (name === 'metrics' && plain)
    return {
      name,
      in: 'query',
      required,
      description: 'Comma-separated metric names; rows sort by the first two.',
      style: 'form',
      explode: false,
      schema: { type: 'array', minItems: 1, items: metricParam },
    };
  if (name === 'filter')
    return {
      name,
      in: 'query',
      required: false,
      description: 'filter[<dimension>]=value keeps that value; =!value leaves it out. Repeatable across dimensions.',
      style: 'deepObject',
      explode: true,
      schema: { type: 'object', propertyNames: dimensionParam, additionalProperties: { type: 'string', minLength: 1 } },
    };
  return null;
}

const KINDS =
  'The name says the kind: pageview (page.url or page.path), error (props: message, type, stack, level, ' +
  'breadcrumbs), speed (vitals: lcp, inp, cls, fcp, ttfb, element), engagement (time on page and scroll ' +
  'depth in props; extends a session, never starts one), or any other name: a custom event with props.';

/** The event as the ingest route reads it: EventSchema, with what its custom checks mean spelled out. */
function eventJson(): Json {
  const event = bare(jsonSchema(EventSchema));
  const props = event.properties as Record<string, Json>;
  const propValue = { type: ['string', 'number', 'boolean', 'null'] };
  props.name = { ...props.name, description: KINDS };
  props.props = {
    type: 'object',
    maxProperties: MAX_PROPS,
    propertyNames: { minLength: 1, maxLength: 64 },
    additionalProperties: propValue,
    description:
      'Strings of at most 500 characters (an error event’s stack and breadcrumbs 4096), finite numbers, booleans or null.',
  };
  const traits = props.user?.properties as Record<string, Json> | undefined;
  if (traits) traits.traits = { ...props.props, description: 'The visitor’s traits, as props.' };
  const stringMap = (max: number) => ({
    type: 'object',
    maxProperties: max,
    propertyNames: { maxLength: 64 },
    additionalProperties: { type: 'string', minLength: 1, maxLength: 128 },
  });
  props.groups = stringMap(10);
  props.experiments = stringMap(20);
  props.context = {
    ...props.context,
    description: 'The visitor’s IP and user agent, as a server forwards them: secret key only.',
  };
  return event;
}

export function ingestBody(): Json {
  const event = eventJson();
  const report = bare(jsonSchema(ReportSchema));
  (report.properties as Json).data = { type: 'object' };
  return {
    description:
      'A batch, or one event alone. Each event is checked on its own: a bad one is rejected with its index and field, the rest are stored.',
    oneOf: [
      {
        type: 'object',
        required: ['events'],
        properties: {
          events: { type: 'array', maxItems: MAX_BATCH, items: event },
          reports: { type: 'array', items: report, description: 'The SDK’s own reports, written to the log stream.' },
        },
      },
      event,
    ],
  };
}

const message = (type: string, properties: Json, description: string): Json => ({
  type: 'object',
  description,
  required: ['type', ...Object.keys(properties)],
  properties: { type: { const: type }, ...properties },
});

/** The live WebSocket, described as the GET that upgrades. */
export function livePath(): Json {
  return {
    get: {
      summary: 'Live WebSocket: the realtime snapshot while it changes and, with detail access, every log line.',
      description:
        'Upgrade with the REST credentials (header or cookie), or send {"type":"auth","token":…} within 10 s. ' +
        'On a public project a socket without a credential starts at once; a token sent later adds the log lines. ' +
        'Refusals close the socket with 4000 + the HTTP status (4401, 4403, 4404). Access: Anyone for a public ' +
        'project; otherwise a member or API token listing the project.',
      tags: ['Realtime'],
      operationId: 'getV2ProjectsByProjectLive',
      parameters: [
        { name: 'project', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'Upgrade', in: 'header', required: true, schema: { const: 'websocket' } },
      ],
      responses: {
        '101': {
          description: 'Switching protocols. Messages from the server, one JSON object each:',
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  message(
                    'hello',
                    { project: { type: 'string' }, logs: { type: 'boolean' } },
                    'Sent on open, and again when a later token adds the log lines.',
                  ),
                  message(
                    'realtime',
                    { data: bare(jsonSchema(realtimeResponse.entries.data)), window: bare(jsonSchema(range)) },
                    'The realtime snapshot (as GET …/realtime), at most once a second and only when it changed.',
                  ),
                  message('log', { line: bare(jsonSchema(logLine)) }, 'A log line, with detail access.'),
                ],
              },
            },
          },
        },
      },
    },
  };
}
