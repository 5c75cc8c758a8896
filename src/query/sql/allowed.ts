// What a query on the SQL route may name: the analyst views, and an allow list of functions that read
// their arguments and nothing else (no settings, files, locks, sequences, other queries, sleeping).
// Anything not listed is refused by name, so a function added to PostgreSQL later is refused too.

/** The views of the analyst schema (sql/migrations/0025_analyst_schema.sql), documented in docs/sql-route.md. */
export const ANALYST_VIEWS = ['events', 'sessions', 'visitors', 'issues', 'speed_samples', 'annotations'] as const;

const words = (s: string) => s.trim().split(/\s+/);

/** Functions (by name, unqualified or in pg_catalog) a query may call. */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set(
  words(`
    count sum avg min max bool_and bool_or every array_agg string_agg json_agg jsonb_agg json_object_agg
    jsonb_object_agg stddev stddev_pop stddev_samp variance var_pop var_samp corr covar_pop covar_samp
    regr_slope regr_intercept regr_r2 regr_count percentile_cont percentile_disc mode grouping any_value
    bit_and bit_or
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
    now date_trunc date_part extract date_bin age make_date make_time make_timestamp make_timestamptz
    make_interval to_timestamp to_date to_char timezone justify_days justify_hours justify_interval isfinite
    statement_timestamp transaction_timestamp overlaps
    lower upper initcap length char_length character_length octet_length substr substring position strpos
    replace split_part left right btrim ltrim rtrim trim concat concat_ws starts_with reverse translate
    regexp_replace regexp_match regexp_like regexp_count regexp_substr regexp_split_to_array md5
    to_number quote_literal quote_ident string_to_array array_to_string encode decode ascii chr normalize
    abs ceil ceiling floor round trunc sign sqrt cbrt exp ln log log10 power pow mod div greatest least
    width_bucket random pi degrees radians gcd lcm scale to_hex nullif coalesce num_nulls num_nonnulls
    to_json to_jsonb row_to_json json_build_object jsonb_build_object json_build_array jsonb_build_array
    json_object jsonb_object json_extract_path jsonb_extract_path json_extract_path_text
    jsonb_extract_path_text json_array_length jsonb_array_length json_array_elements jsonb_array_elements
    json_array_elements_text jsonb_array_elements_text json_each jsonb_each json_each_text jsonb_each_text
    json_object_keys jsonb_object_keys json_typeof jsonb_typeof jsonb_strip_nulls jsonb_pretty jsonb_set
    jsonb_insert jsonb_path_exists jsonb_path_match jsonb_path_query jsonb_path_query_array
    jsonb_path_query_first json_to_record jsonb_to_record json_to_recordset jsonb_to_recordset
    generate_series unnest array_length array_position array_positions array_append array_prepend array_cat
    array_remove array_replace cardinality array_lower array_upper array_dims array_ndims trim_array
  `),
);

/** Parse-tree nodes a read-only SELECT is made of. Any other node (an INSERT inside WITH, a locking
 *  clause, SELECT INTO, a parameter, XML functions, …) is refused by its name. */
export const ALLOWED_NODES: ReadonlySet<string> = new Set(
  words(`
    SelectStmt ResTarget ColumnRef A_Const A_Expr BoolExpr FuncCall TypeCast TypeName RangeVar RangeSubselect
    RangeFunction JoinExpr SortBy WindowDef WithClause CommonTableExpr SubLink CaseExpr CaseWhen CoalesceExpr
    MinMaxExpr NullTest BooleanTest A_Star A_Indices A_Indirection A_ArrayExpr RowExpr SQLValueFunction
    String Integer Float Boolean BitString List Alias GroupingSet NamedArgExpr CollateClause ColumnDef
    CTESearchClause CTECycleClause RangeTableSample
  `),
);

/** SQLValueFunction operations allowed: the clock, not who is connected. */
export const ALLOWED_VALUE_FUNCTIONS: ReadonlySet<string> = new Set(
  words(`
    SVFOP_CURRENT_DATE SVFOP_CURRENT_TIME SVFOP_CURRENT_TIME_N SVFOP_CURRENT_TIMESTAMP SVFOP_CURRENT_TIMESTAMP_N
    SVFOP_LOCALTIME SVFOP_LOCALTIME_N SVFOP_LOCALTIMESTAMP SVFOP_LOCALTIMESTAMP_N
  `),
);
