import type { RecordedEvent } from '@gensvc/kernel';
import { EventTail } from './event-tail';

const ev = (position: number, stream: string, revision: number): RecordedEvent => ({
  id: `e${position}`,
  streamName: stream,
  revision: BigInt(revision),
  position: BigInt(position),
  type: 'T',
  data: { position, nested: { list: [position] } },
  metadata: { schemaVersion: 1, occurredAt: '2026-01-01T00:00:00.000Z' },
});

describe('EventTail', () => {
  it('serves reads only inside the range it holds completely', () => {
    const tail = new EventTail(10n);
    expect(tail.readAll(10n, 5)).toBeUndefined(); // empty: nothing after its end
    tail.extend([ev(11, 'a-1', 0), ev(13, 'b-1', 4), ev(14, 'a-1', 1)], 15n);
    expect(tail.end).toBe(15n);
    expect(tail.readAll(9n, 10)).toBeUndefined(); // starts before the tail
    expect(tail.readAll(10n, 10)!.map((e) => e.position)).toEqual([11n, 13n, 14n]);
    expect(tail.readAll(11n, 1)!.map((e) => e.position)).toEqual([13n]);
    expect(tail.readAll(12n, 10)!.map((e) => e.position)).toEqual([13n, 14n]);
    expect(tail.readAll(15n, 10)).toBeUndefined(); // at its end: the file may have more
    expect(tail.readStream('a-1', 0n)!.map((e) => e.revision)).toEqual([0n, 1n]);
    expect(tail.readStream('a-1', 1n)!.map((e) => e.revision)).toEqual([1n]);
    expect(tail.readStream('a-1', 7n)).toEqual([]);
    // b-1 began before the tail: only reads from revision 4 on are known
    expect(tail.readStream('b-1', 0n)).toBeUndefined();
    expect(tail.readStream('b-1', 4n)!.map((e) => e.position)).toEqual([13n]);
    expect(tail.readStream('c-1', 0n)).toBeUndefined();
  });

  it('refuses events outside the range being added, and never moves back', () => {
    const tail = new EventTail(5n);
    expect(() => tail.extend([ev(5, 'a-1', 0)], 6n)).toThrow(/outside/);
    expect(() => tail.extend([ev(7, 'a-1', 0)], 6n)).toThrow(/outside/);
    expect(() => tail.extend([], 4n)).toThrow(/back/);
  });

  it('forgets its oldest events past its capacity, per stream too', () => {
    const tail = new EventTail(-1n, 1000);
    const events = Array.from({ length: 1020 }, (_, i) => ev(i, i % 2 ? 'odd-1' : 'even-1', Math.floor(i / 2)));
    tail.extend(events, 1019n);
    expect(tail.size).toBe(1020); // forgets in chunks, once it holds twice its capacity (at most 1,024 over)
    const more = Array.from({ length: 8 }, (_, i) => ev(1020 + i, i % 2 ? 'odd-1' : 'even-1', 510 + Math.floor(i / 2)));
    const forAWhile = Array.from({ length: 980 }, (_, i) => ev(1028 + i, 'later-1', i));
    tail.extend([...more, ...forAWhile, ev(2008, 'new-1', 0), ev(2009, 'new-1', 1)], 2009n);
    expect(tail.size).toBe(1000);
    expect(tail.from).toBe(1009n);
    expect(tail.readAll(1008n, 10)).toBeUndefined();
    expect(tail.readAll(2007n, 10)!.map((e) => e.position)).toEqual([2008n, 2009n]);
    expect(tail.readAll(1009n, 1)!.map((e) => e.position)).toEqual([1010n]);
    expect(tail.readStream('even-1', 0n)).toBeUndefined();
    expect(tail.readStream('odd-1', 0n)).toBeUndefined();
    expect(tail.readStream('odd-1', 513n)!.map((e) => e.position)).toEqual([1027n]);
    expect(tail.readStream('later-1', 0n)!.map((e) => e.position)).toHaveLength(980);
    expect(tail.readStream('new-1', 0n)!.map((e) => e.revision)).toEqual([0n, 1n]);
  });

  it('remembers streams found empty until one of their events arrives or the tail forgets that far', () => {
    const tail = new EventTail(10n, 1);
    tail.noteAbsent('x-1');
    tail.noteAbsent('y-1');
    expect(tail.knownAbsent('x-1')).toBe(true);
    expect(tail.knownAbsent('z-1')).toBe(false);
    tail.extend([ev(11, 'x-1', 0)], 11n);
    expect(tail.knownAbsent('x-1')).toBe(false); // it has an event now
    expect(tail.knownAbsent('y-1')).toBe(true);
    tail.extend([ev(12, 'w-1', 0), ev(13, 'w-1', 1)], 13n); // over twice the capacity: forgets up to 12
    expect(tail.from).toBe(12n);
    expect(tail.knownAbsent('y-1')).toBe(false); // noted at 10: events 11 and 12 are no longer held
    tail.reset(20n);
    tail.noteAbsent('v-1');
    tail.reset(21n);
    expect(tail.knownAbsent('v-1')).toBe(false);
  });

  it('hands out frozen events, so one reader cannot change what the others see', () => {
    const tail = new EventTail(0n);
    tail.extend([ev(1, 'a-1', 0)], 1n);
    const [e] = tail.readAll(0n, 1)!;
    expect(() => {
      (e.data as { position: number }).position = 2;
    }).toThrow(TypeError);
    expect(() => (e.data as { nested: { list: number[] } }).nested.list.push(3)).toThrow(TypeError);
  });
});
