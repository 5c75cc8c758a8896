import postgres from 'postgres';
const sql = postgres('postgres://postgres@127.0.0.1:5432/test', { max: 1, onnotice: () => {} });
await sql.unsafe(`drop table if exists dd_a, dd_b, dd_c`);
await sql.unsafe(`create table dd_a (project_id text not null, event_id text not null, ts timestamptz not null, primary key (project_id, event_id))`);
await sql.unsafe(`create table dd_b (project_id text collate "C" not null, event_id text collate "C" not null, ts timestamptz not null, primary key (project_id, event_id))`);
await sql.unsafe(`create table dd_c (project_id text not null, event_id uuid not null, ts timestamptz not null, primary key (project_id, event_id))`);
const fill = (t: string, n: number) => `insert into ${t} select 'proj-bench', k${t === 'dd_c' ? '' : '::text'}, now() from (select gen_random_uuid() k from generate_series(1, ${n}) order by 1${t === 'dd_c' ? '' : '::text'}) s`;
for (const t of ['dd_a', 'dd_b', 'dd_c']) await sql.unsafe(fill(t, 200_000));
await sql.unsafe('checkpoint');
const time: Record<string, number> = { dd_a: 0, dd_b: 0, dd_c: 0 };
const gen: Record<string, number> = { dd_a: 0, dd_b: 0, dd_c: 0 };
for (let round = 0; round < 200; round++) {
  for (const t of ['dd_a', 'dd_b', 'dd_c']) {
    let t0 = performance.now();
    await sql.unsafe(`select count(*) from (select gen_random_uuid() k from generate_series(1, 500) order by 1${t === 'dd_c' ? '' : '::text'}) s`);
    gen[t] += performance.now() - t0;
    t0 = performance.now();
    await sql.unsafe(fill(t, 500));
    time[t] += performance.now() - t0;
  }
}
for (const t of Object.keys(time)) console.log(t, ((time[t] - gen[t]) * 1000 / (200 * 500)).toFixed(2), 'µs a key beyond generating it');
await sql.unsafe(`drop table dd_a, dd_b, dd_c`);
await sql.end();
