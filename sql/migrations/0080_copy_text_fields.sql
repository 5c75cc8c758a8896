-- A flush's rows come as one text parameter in COPY's text format (src/db/flush-text.ts). Its statements
-- split a line on tabs themselves (string_to_array, \N for null) and call this only for a line holding an
-- escape (\\, \t, \n or \r: rare), to undo the escapes of each field. An escaped backslash splits a field
-- into pieces that hold only the other escapes; those are replaced, and the pieces joined by a backslash.
create or replace function loupe_unescape_copy(fields text[]) returns text[] language sql immutable strict parallel safe as $$
  select array(
    select case when f is null or strpos(f, E'\\') = 0 then f
      else array_to_string(array(
        select replace(replace(replace(p, E'\\t', E'\t'), E'\\n', E'\n'), E'\\r', E'\r')
        from unnest(string_to_array(f, E'\\\\')) with ordinality as q(p, k) order by k), E'\\') end
    from unnest(fields) with ordinality as u(f, n) order by n)
$$;
