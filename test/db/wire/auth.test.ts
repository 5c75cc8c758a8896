// The flush writer's authentication: SCRAM-SHA-256 against RFC 7677's worked example, then every method
// against a real PostgreSQL server that asks for passwords (a private one: the shared server trusts every
// local connection), with and without TLS.
import t from 'tap';
import { md5Password, scramClient } from '../../../src/db/wire/auth.ts';
import { saslprep } from '../../../src/db/wire/saslprep.ts';
import { WireConnection, type WireOptions } from '../../../src/db/wire/connection.ts';
import { startPrivatePostgres, type Role } from '../../support/private-postgres.ts';

t.test('SCRAM-SHA-256: RFC 7677, section 3', async (t) => {
  const client = scramClient('pencil', { user: 'user', nonce: 'rOprNGfwEbeRWgbNEkqO' });
  t.equal(client.first, 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
  const final = client.final('r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
  t.equal(
    final,
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  );
  t.doesNotThrow(
    () => client.verify('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='),
    "the server's signature checks out",
  );
  t.throws(
    () => client.verify('v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='),
    /does not match/,
    'a wrong one is refused',
  );
  t.throws(
    () => scramClient('pencil', { nonce: 'abc' }).final('r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096'),
    /malformed/,
    'a server nonce that does not extend ours is refused',
  );
});

t.test('SASLprep: as PostgreSQL prepares a password (RFC 4013)', async (t) => {
  t.equal(saslprep('plain ASCII\u0001'), 'plain ASCII\u0001', 'ASCII as it is, even a control character');
  t.equal(saslprep('I\u00adX'), 'IX', 'a soft hyphen is mapped to nothing');
  t.equal(saslprep('a\u00a0b\u3000c'), 'a b c', 'non-ASCII spaces are mapped to a space');
  t.equal(saslprep('ﬁＡⅨª'), 'fiAIXa', 'NFKC');
  t.equal(saslprep('e\u0301'), '\u00e9', 'composed');
  t.equal(saslprep('ﬁ\u0007'), 'ﬁ\u0007', 'a prohibited character: the password as given');
  t.equal(saslprep('ﬁ\ue000'), 'ﬁ\ue000', 'private use: as given');
  t.equal(saslprep('ﬁ😀'), 'ﬁ😀', 'a character Unicode 3.2 did not have: as given');
  t.equal(saslprep('\u05d0\u05d1'), '\u05d0\u05d1', 'right to left');
  t.equal(saslprep('\u05d0a\u05d1ﬁ'), '\u05d0a\u05d1ﬁ', 'right to left mixed with a left-to-right letter: as given');
  t.equal(saslprep('𝐀ﬁ'), 'Afi', 'mathematical letters of the supplementary planes are mapped');
});

t.test('MD5: md5(md5(password + user) + salt)', async (t) => {
  // Computed apart with Python's hashlib: md5('secretalice') = 4a0a68b43b6cd5cf266fa02f196e2371, then md5 of that hex and the salt
  t.equal(md5Password('alice', 'secret', Buffer.from([1, 2, 3, 4])), 'md598a0412b9c31436fc53776e863350083');
});

t.test('a real server asking for passwords', async (t) => {
  const roles: Role[] = [
    { name: 'scram_writer', password: 'pä$$ w0rd', method: 'scram-sha-256' },
    { name: 'md5_writer', password: 'md5 secret', method: 'md5' },
    { name: 'clear_writer', password: 'clear secret', method: 'password' },
    // SASLprep changes these: a no-break space, a soft hyphen, a ligature, full-width and Roman numerals.
    { name: 'sasl_writer', password: 'ﬁ\u00a0Ｐａｓｓ\u00adⅨ', method: 'scram-sha-256' },
  ];
  const pg = await startPrivatePostgres(roles);
  t.teardown(pg.stop);
  const options = (over: Partial<WireOptions>): WireOptions => ({
    host: '127.0.0.1',
    port: pg.port,
    database: 'postgres',
    user: 'postgres',
    password: '',
    ssl: false,
    params: {},
    ...over,
  });
  // Who signed in, whether over TLS, and over what: a Unix socket has no server address.
  const statements = {
    who: `select current_user, (select ssl from pg_stat_ssl where pid = pg_backend_pid())::text,
    coalesce(host(inet_server_addr()), 'unix socket')`,
  };
  const who = async (o: WireOptions) => {
    const c = await WireConnection.open(o, statements);
    try {
      return (await c.run([{ statement: 'who' }]))[0]!.rows[0];
    } finally {
      await c.close();
    }
  };

  for (const r of roles) {
    t.same(
      await who(options({ user: r.name, password: r.password })),
      [r.name, 'false', '127.0.0.1'],
      `${r.method}: signed in`,
    );
    await t.rejects(
      who(options({ user: r.name, password: 'wrong' })),
      { code: '28P01' },
      `${r.method}: a wrong password is the server's 28P01`,
    );
  }
  t.same(
    await who(options({ user: 'sasl_writer', password: 'fi PassIX' })),
    ['sasl_writer', 'false', '127.0.0.1'],
    'the server stored the password as SASLprep made it',
  );
  t.same(
    await who(options({ user: 'scram_writer', password: async () => 'pä$$ w0rd' })),
    ['scram_writer', 'false', '127.0.0.1'],
    "the password may come from a function, as the client's option allows",
  );

  t.same(
    await who(options({ user: 'scram_writer', password: 'pä$$ w0rd', ssl: 'require' })),
    ['scram_writer', 'true', '127.0.0.1'],
    'require: TLS',
  );
  t.same(await who(options({ ssl: 'prefer' })), ['postgres', 'true', '127.0.0.1'], 'prefer: TLS when offered');
  await t.rejects(
    who(options({ ssl: 'verify-full' })),
    /self.signed/,
    'verify-full refuses a certificate nobody vouches for',
  );
  await t.rejects(
    who(options({ host: '127.0.0.1', port: 1, ssl: false, connectTimeoutMs: 2_000 })),
    /ECONNREFUSED/,
    'nobody listening',
  );
  t.same(
    await who(options({ path: `${pg.socketDir}/.s.PGSQL.${pg.port}` })),
    ['postgres', 'false', 'unix socket'],
    'a Unix socket',
  );

  pg.psql('alter system set ssl = off');
  pg.psql('select pg_reload_conf()');
  t.same(
    await who(options({ ssl: 'prefer' })),
    ['postgres', 'false', '127.0.0.1'],
    'prefer: plain text when the server has no TLS',
  );
  await t.rejects(who(options({ ssl: 'require' })), { code: '08004' }, 'require: refused when the server has no TLS');
});
