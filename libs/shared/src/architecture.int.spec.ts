import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * Architecture rules, checked on the sources (DESIGN.md rule 1; the ESLint boundary rule
 * says the same while editing):
 * - a context under libs/<ctx> is used by other contexts and apps only through its public
 *   index `@gensvc/<ctx>`: no deep alias paths, no relative paths into it;
 * - libraries never import apps;
 * - a context's test kit (`@gensvc/<ctx>/testing/...`) only in tests;
 * - every context has its public index and every alias target exists;
 * - domain code does not depend on Nest or on store/transport libraries;
 * - packages under packages/ (`@gensvc/sdk`, public entry points included) are packages, not
 *   contexts, and import no server code: no context, no app, no Nest, no store library.
 */
const root = resolve(__dirname, '..', '..', '..');
const contexts = readdirSync(join(root, 'libs')).filter((d) => statSync(join(root, 'libs', d)).isDirectory());
const packages = existsSync(join(root, 'packages')) ? readdirSync(join(root, 'packages')).filter((d) => statSync(join(root, 'packages', d)).isDirectory()) : [];

interface SourceFile {
  path: string; // relative to the repo root, with /
  area: { kind: 'lib'; ctx: string } | { kind: 'app'; app: string } | { kind: 'test' };
  test: boolean;
}

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function sources(): SourceFile[] {
  const files: SourceFile[] = [];
  for (const ctx of contexts) {
    for (const p of walk(join(root, 'libs', ctx, 'src'))) files.push(describeFile(p, { kind: 'lib', ctx }));
  }
  for (const app of existsSync(join(root, 'apps')) ? readdirSync(join(root, 'apps')) : []) {
    for (const p of walk(join(root, 'apps', app, 'src'))) files.push(describeFile(p, { kind: 'app', app }));
  }
  for (const p of walk(join(root, 'test'))) files.push(describeFile(p, { kind: 'test' }));
  return files;
}

function describeFile(abs: string, area: SourceFile['area']): SourceFile {
  const path = relative(root, abs).split(sep).join('/');
  const test = /\.spec\.ts$|\.e2e-spec\.ts$/.test(path) || path.startsWith('test/') || /^libs\/[^/]+\/src\/testing\//.test(path);
  return { path, area, test };
}

/** Every module specifier of a file: imports, re-exports, dynamic imports, require(). */
function specifiers(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** Which context or app a relative import lands in. */
function landing(from: string, spec: string): { kind: 'lib'; ctx: string } | { kind: 'app' } | { kind: 'other' } {
  const target = relative(root, resolve(root, dirname(from), spec)).split(sep).join('/');
  const lib = /^libs\/([^/]+)(?:\/|$)/.exec(target);
  if (lib) return { kind: 'lib', ctx: lib[1] };
  if (/^apps\//.test(target)) return { kind: 'app' };
  return { kind: 'other' };
}

/** The rule: returns why an import is not allowed, or null. */
function violation(file: SourceFile, spec: string): string | null {
  const alias = /^@gensvc\/([^/]+)(?:\/(.+))?$/.exec(spec);
  if (alias) {
    const [, ctx, rest] = alias;
    if (packages.includes(ctx)) return null; // a package of this repository, used like any package
    if (!contexts.includes(ctx)) return `unknown context alias ${spec}`;
    if (!rest) return null;
    if (file.area.kind === 'lib' && file.area.ctx === ctx) return null; // its own internals
    if (rest.startsWith('testing/')) return file.test ? null : `the test kit of "${ctx}" is for tests only`;
    return `deep import into context "${ctx}": use @gensvc/${ctx}`;
  }
  if (!spec.startsWith('.')) return null; // a package
  const to = landing(file.path, spec);
  if (file.area.kind === 'lib') {
    if (to.kind === 'app') return 'a library imports an app';
    if (to.kind === 'lib' && to.ctx !== file.area.ctx) return `relative import into context "${to.ctx}": use @gensvc/${to.ctx}`;
  } else if (to.kind === 'lib') {
    return `relative import into context "${to.ctx}": use @gensvc/${to.ctx}`;
  }
  return null;
}

const forbiddenInDomain = /^(@nestjs\/|express$|mongodb$|minio$|@eventstore\/|better-sqlite3$|supertest$)/;

describe('architecture', () => {
  const files = sources();

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(contexts).toEqual(expect.arrayContaining(['shared', 'catalogue']));
  });

  it('contexts import each other only through their public index', () => {
    const found: string[] = [];
    for (const f of files) for (const s of specifiers(f.path)) {
      const why = violation(f, s);
      if (why) found.push(`${f.path}: '${s}' — ${why}`);
    }
    expect(found).toEqual([]);
  });

  it('every context has a public index.ts and a path alias', () => {
    const tsconfig = ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(join(root, 'tsconfig.json'), 'utf8')).config as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    for (const ctx of contexts) {
      expect({ ctx, index: existsSync(join(root, 'libs', ctx, 'src', 'index.ts')) }).toEqual({ ctx, index: true });
      expect({ ctx, alias: tsconfig.compilerOptions.paths[`@gensvc/${ctx}`] }).toEqual({ ctx, alias: [`libs/${ctx}/src`] });
    }
  });

  it('domain code depends on neither Nest nor store and transport libraries', () => {
    const found: string[] = [];
    for (const f of files.filter((x) => /^libs\/[^/]+\/src\/domain\//.test(x.path) && !x.test)) {
      for (const s of specifiers(f.path)) if (forbiddenInDomain.test(s)) found.push(`${f.path}: '${s}'`);
    }
    expect(found).toEqual([]);
  });

  it('packages import no server code', () => {
    const found: string[] = [];
    for (const pkg of packages) {
      for (const abs of walk(join(root, 'packages', pkg))) {
        const path = relative(root, abs).split(sep).join('/');
        for (const s of specifiers(path)) {
          const alias = /^@gensvc\/([^/]+)/.exec(s);
          const target = s.startsWith('.') ? relative(root, resolve(root, dirname(path), s)).split(sep).join('/') : '';
          if ((alias && !packages.includes(alias[1])) || /^(libs|apps)\//.test(target) || forbiddenInDomain.test(s)) found.push(`${path}: '${s}'`);
        }
      }
    }
    expect(packages).toContain('sdk');
    expect(found).toEqual([]);
  });

  describe('the rule itself', () => {
    const lib = (path: string, ctx: string, test = false): SourceFile => ({ path, area: { kind: 'lib', ctx }, test });
    const app: SourceFile = { path: 'apps/api/src/app.module.ts', area: { kind: 'app', app: 'api' }, test: false };

    const rows: [SourceFile, string, string | null][] = [
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/quoting', null],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/quoting/domain/quote', 'deep import'],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/tasks/domain/task', null],
      [lib('libs/tasks/src/application/x/a.ts', 'tasks'), '../../../../quoting/src/index', 'relative import into context "quoting"'],
      [lib('libs/tasks/src/application/x/a.ts', 'tasks'), '../../domain/task', null],
      [lib('libs/tasks/src/a.ts', 'tasks'), '../../../apps/api/src/app.module', 'a library imports an app'],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/shared/testing/decider-specification', 'test kit'],
      [lib('libs/tasks/src/a.unit.spec.ts', 'tasks', true), '@gensvc/shared/testing/decider-specification', null],
      [{ path: 'test/tasks.e2e-spec.ts', area: { kind: 'test' }, test: true }, '@gensvc/suppliers/testing/job-events', null],
      [{ path: 'test/tasks.e2e-spec.ts', area: { kind: 'test' }, test: true }, '@gensvc/suppliers/application/jobs', 'deep import'],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/nowhere', 'unknown context'],
      [app, '@gensvc/identity', null],
      [app, '@gensvc/identity/application/accounts.service', 'deep import'],
      [app, '../../../libs/identity/src/index', 'relative import into context "identity"'],
      [lib('libs/tasks/src/a.ts', 'tasks'), 'mongodb', null],
    ];
    it.each(rows.map(([file, spec, expected]) => [file.path, spec, expected, file] as const))('%s imports %s', (_path, spec, expected, file) => {
      const why = violation(file, spec);
      if (expected === null) expect(why).toBeNull();
      else expect(why).toContain(expected);
    });
  });
});
