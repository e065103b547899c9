import fc from 'fast-check';
import { Reservations } from './reservations';

type Model = Map<string, { status: 'open' | 'closed'; amount: bigint }>;

/** Applies random operations to random earlier versions and compares each version with a copied-map model. */
describe('Reservations (persistent set of reservation ids)', () => {
  it('behaves like an immutable map whichever version is extended', () => {
    const op = fc.record({
      base: fc.nat(),
      kind: fc.constantFrom('open', 'close', 'void'),
      id: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      amount: fc.bigInt({ min: 1n, max: 100n }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const versions: { r: Reservations; m: Model }[] = [{ r: Reservations.empty(), m: new Map() }];
        for (const o of ops) {
          const { r, m } = versions[o.base % versions.length];
          const cur = m.get(o.id);
          let next: { r: Reservations; m: Model } | undefined;
          if (o.kind === 'open' && !cur) next = { r: r.openReservation(o.id, o.id, o.amount), m: new Map(m).set(o.id, { status: 'open', amount: o.amount }) };
          if (o.kind === 'close' && cur?.status === 'open') next = { r: r.close(o.id, 0n, cur.amount), m: new Map(m).set(o.id, { status: 'closed', amount: cur.amount }) };
          if (o.kind === 'void' && !cur) next = { r: r.void(o.id), m: new Map(m).set(o.id, { status: 'closed', amount: 0n }) };
          if (next) versions.push(next);
          for (const v of versions) {
            for (const id of ['a', 'b', 'c', 'd', 'e']) {
              const want = v.m.get(id);
              const got = v.r.get(id);
              expect(got?.status).toBe(want?.status);
              if (want) expect(got?.amount).toBe(want.amount);
            }
            expect([...v.r.open()].map(([id]) => id).sort()).toEqual([...v.m].filter(([, x]) => x.status === 'open').map(([id]) => id).sort());
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
