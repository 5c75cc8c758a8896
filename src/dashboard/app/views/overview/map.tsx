// The countries panel's map: world-atlas's 110m country shapes drawn once with d3-geo (Equal Earth),
// each shaded by its share of visitors. Its own chunk, loaded when the Map tab opens; the Countries tab
// is the same data as text, for keyboards and screen readers.
import { geoEqualEarth, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import codes from 'i18n-iso-countries/codes.json' with { type: 'json' };
import world from 'world-atlas/countries-110m.json' with { type: 'json' };
import { count, countryName } from '../../format.ts';

const WIDTH = 960;
const HEIGHT = 470;

/** ISO numeric (world-atlas ids) to alpha-2 (Loupe's country values). */
const alpha2 = new Map((codes as string[][]).map(([a2, , num]) => [num!, a2!]));

type Shape = { code: string; d: string };
let shapes: Shape[] | null = null;

function drawShapes(): Shape[] {
  const topo = world as unknown as Topology<{ countries: GeometryCollection }>;
  const countries = feature(topo, topo.objects.countries);
  const projection = geoEqualEarth().fitSize([WIDTH, HEIGHT], countries);
  const path = geoPath(projection);
  return countries.features.map((f) => ({ code: alpha2.get(String(f.id)) ?? '', d: path(f) ?? '' })).filter((s) => s.d);
}

export type MapRow = { value: string | null; visitors: number; share: number };

export default function WorldMap({ rows, onPick }: { rows: MapRow[]; onPick: (code: string) => void }) {
  shapes ??= drawShapes();
  const byCode = new Map(rows.filter((r) => r.value).map((r) => [r.value!, r]));
  const max = Math.max(...rows.map((r) => r.share), 0.0001);
  return (
    <svg
      class="map"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={`Map of visitors by country: ${rows
        .slice(0, 5)
        .map((r) => `${countryName(r.value ?? '')} ${count(r.visitors)}`)
        .join(', ')}`}
    >
      {shapes.map((s, i) => {
        const row = byCode.get(s.code);
        const strength = row ? 0.15 + 0.85 * Math.sqrt(row.share / max) : 0;
        return (
          <path
            key={i}
            d={s.d}
            class={row ? 'land has' : 'land'}
            style={row ? { fillOpacity: strength } : undefined}
            onClick={row ? () => onPick(s.code) : undefined}
          >
            <title>{row ? `${countryName(s.code)}: ${count(row.visitors)} visitors` : countryName(s.code)}</title>
          </path>
        );
      })}
    </svg>
  );
}
