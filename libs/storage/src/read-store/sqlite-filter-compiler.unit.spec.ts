import type { Filter } from '@gensvc/event-sourcing';
import { idOf, indexedBy, orderOf, pathExpr, searchTextExpr, whereOf, type CollectionShape } from './sqlite-filter-compiler';

const shape = (over: Partial<CollectionShape> = {}): CollectionShape => ({ arrays: new Set(), odd: new Set(), indexes: [], ...over });
const A = `json_extract(body, '$."a"')`;

describe('sqlite filter compiler', () => {
  it('names document paths in SQL, and refuses paths it cannot name', () => {
    expect(pathExpr('_id')).toBe('id');
    expect(pathExpr('a.b_c-d')).toBe(`json_extract(body, '$."a"."b_c-d"')`);
    for (const bad of ['a b', '$x', 'a..b', "a'b", '1a']) expect(pathExpr(bad)).toBeNull();
    expect(searchTextExpr('title')).toBe(`CASE json_type(body, '$."title"') WHEN 'text' THEN json_extract(body, '$."title"') ELSE '' END`);
    expect(searchTextExpr('_id')).toBe('id');
  });

  it('translates scalar conditions exactly', () => {
    expect(whereOf(shape(), { a: 'x' })).toEqual({ sql: `(${A} = ?)`, params: ['x'], exact: true });
    expect(whereOf(shape(), { a: null })).toEqual({ sql: `(${A} IS NULL)`, params: [], exact: true });
    expect(whereOf(shape(), { a: { $gte: 2, $lt: 5 } })).toEqual({
      sql: `((${A} >= ? AND typeof(${A}) IN ('integer', 'real')) AND (${A} < ? AND typeof(${A}) IN ('integer', 'real')))`,
      params: [2, 5],
      exact: true,
    });
    expect(whereOf(shape(), { a: { $in: ['x', 'y'] } })).toEqual({ sql: `((${A} IN (?, ?)))`, params: ['x', 'y'], exact: true });
    expect(whereOf(shape(), { a: { $in: [] } })).toEqual({ sql: '((0))', params: [], exact: true });
    expect(whereOf(shape(), { a: { $exists: false } })).toEqual({ sql: `((json_type(body, '$."a"') IS NULL))`, params: [], exact: true });
    expect(whereOf(shape(), { _id: 'd1', a: { $ne: 'x' } })).toEqual({ sql: `(id = ?) AND ((NOT ifnull(${A} = ?, 0)))`, params: ['d1', 'x'], exact: true });
    expect(whereOf(shape(), {})).toEqual({ sql: '1', params: [], exact: true });
  });

  it('leaves to the matcher what SQL cannot decide as Mongo does', () => {
    expect(whereOf(shape({ arrays: new Set(['a']) }), { a: 'x' }).exact).toBe(false);
    expect(whereOf(shape({ arrays: new Set(['a']) }), { 'a.b': 'x' })).toEqual({ sql: '1', params: [], exact: false });
    expect(whereOf(shape({ odd: new Set(['a']) }), { a: 1 })).toEqual({ sql: `(${A} = ?)`, params: [1], exact: false });
    expect(whereOf(shape(), { a: true })).toEqual({ sql: `(${A} = ?)`, params: [1], exact: false });
    expect(whereOf(shape(), { a: { $regex: '^x' } }).exact).toBe(false);
    expect(whereOf(shape(), { $where: 'x' } as Filter)).toEqual({ sql: '1', params: [], exact: false });
    expect(whereOf(shape(), { a: { b: 1 } }).exact).toBe(false);
  });

  it('narrows literal searches through the substring index, or with LIKE', () => {
    const meta = shape({ search: { fts: 'd_1_search', fields: ['title', 'ref'] } });
    const search = (literal: string): Filter => ({ $or: [{ title: { $regex: literal, $options: 'i' } }, { ref: { $regex: literal, $options: 'i' } }] });
    expect(whereOf(meta, search('fox'))).toEqual({ sql: '(rowid IN (SELECT rowid FROM d_1_search WHERE d_1_search MATCH ?))', params: ['{c0 c1} : "fox"'], exact: false });
    expect(whereOf(meta, search('a\\.b'), 'like')).toEqual({
      sql: `(json_extract(body, '$."title"') LIKE ? ESCAPE '\\' OR json_extract(body, '$."ref"') LIKE ? ESCAPE '\\')`,
      params: ['%a.b%', '%a.b%'],
      exact: false,
    });
    expect(whereOf(meta, search('fo')).sql).toContain('LIKE');
    expect(whereOf(meta, search('fox'), 'base')).toEqual({ sql: '1', params: [], exact: false });
    // not a literal: no narrowing
    expect(whereOf(meta, search('fo+')).sql).toBe('1');
  });

  it('orders in SQL only where SQL orders as Mongo does, ties in insertion order', () => {
    expect(orderOf(shape(), undefined)).toBe('rowid ASC');
    expect(orderOf(shape(), { a: -1 })).toBe(`${A} DESC, rowid ASC`);
    expect(orderOf(shape(), { a: 1, _id: -1 })).toBe(`${A} ASC, id DESC`);
    expect(orderOf(shape({ arrays: new Set(['a']) }), { a: 1 })).toBeNull();
    expect(orderOf(shape({ odd: new Set(['a']) }), { a: 1 })).toBeNull();
  });

  it('reads a sorted query from the index whose leading fields the filter pins and whose next fields follow the sort', () => {
    const meta = shape({
      indexes: [
        { name: 'i_created', keys: { created_at: -1 } },
        { name: 'i_account_created', keys: { account_id: 1, created_at: -1, _id: -1 } },
        { name: 'i_account_status_created', keys: { account_id: 1, status: 1, created_at: -1 } },
      ],
    });
    expect(indexedBy(meta, { account_id: 'a' }, { created_at: -1, _id: -1 })).toBe(' INDEXED BY i_account_created');
    expect(indexedBy(meta, { account_id: 'a', status: 'new' }, { created_at: -1 })).toBe(' INDEXED BY i_account_status_created');
    expect(indexedBy(meta, { account_id: 'a' }, { created_at: 1, _id: 1 })).toBe(' INDEXED BY i_account_created'); // read backwards
    expect(indexedBy(meta, {}, { created_at: -1 })).toBe(' INDEXED BY i_created');
    expect(indexedBy(meta, { account_id: 'a' }, { created_at: -1, _id: 1 })).toBe(' INDEXED BY i_account_created'); // the first key only
    expect(indexedBy(meta, { account_id: 'a' }, undefined)).toBe('');
    expect(indexedBy(meta, { account_id: 'a' }, { ref: 1 })).toBe('');
  });

  it('finds the one _id a filter names', () => {
    expect(idOf({ _id: 'x', a: 1 })).toBe('x');
    expect(idOf({ _id: { $eq: 'x' } })).toBe('x');
    expect(idOf({ _id: { $eq: 'x', $ne: 'y' } })).toBeUndefined();
    expect(idOf({ _id: { $in: ['x'] } })).toBeUndefined();
    expect(idOf({ a: 'x' })).toBeUndefined();
  });
});
