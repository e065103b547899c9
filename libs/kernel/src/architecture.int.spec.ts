import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { analyse, contextsOf, cyclesOf, layoutOf, packageViolations, printGraph, violation, type Layout, type SourceFile } from './testing/architecture-rules';

/**
 * Architecture rules (DESIGN.md rule 1), computed from the sources: see
 * ./testing/architecture-rules.ts. The same analysis runs on this repository and on planted
 * fixtures (a small tree of libs/ written to a temporary directory) that break one rule each,
 * so the test shows it can fail.
 */
const root = resolve(__dirname, '..', '..', '..');

/** Writes a fixture checkout: `files` maps repo paths to sources. */
function plant(files: Record<string, string>, kernel = ['shared'], infrastructure = ['storage']): Layout {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-arch-'));
  planted.push(dir);
  writeFileSync(join(dir, 'architecture.json'), JSON.stringify({ kernel, infrastructure }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return layoutOf(dir);
}
const planted: string[] = [];
afterAll(() => planted.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A clean fixture: tasks above assets, assets above identity, all through contracts. */
const cleanFixture: Record<string, string> = {
  'libs/shared/src/index.ts': `export const kernel = 1;\n`,
  'libs/storage/src/index.ts': `import { kernel } from '@gensvc/shared';\nexport const stores = kernel;\n`,
  'libs/identity/src/index.ts': `export * from './contracts';\nexport { IdentityModule } from './identity.module';\n`,
  'libs/identity/src/contracts/index.ts': `export abstract class UploadTokens {}\n`,
  'libs/identity/src/identity.module.ts': `import { Module } from '@nestjs/common';\n@Module({})\nexport class IdentityModule {}\n`,
  'libs/assets/src/index.ts': `export * from './contracts';\n`,
  'libs/assets/src/contracts/index.ts': `export * from '../domain/asset';\n`,
  'libs/assets/src/domain/asset.ts': `export type AssetEvent = { type: 'AssetRegistered' };\n`,
  'libs/assets/src/application/uploads.ts': `import { UploadTokens } from '@gensvc/identity/contracts';\nimport { kernel } from '@gensvc/shared';\nexport const x = [UploadTokens, kernel];\n`,
  'libs/tasks/src/index.ts': `export * from './contracts';\n`,
  'libs/tasks/src/contracts/index.ts': `export const TASK_STREAM = 'task';\n`,
  'libs/tasks/src/application/create.ts': `import type { AssetEvent } from '@gensvc/assets/contracts';\nexport type E = AssetEvent;\n`,
  'apps/api/src/app.module.ts': `import { IdentityModule } from '@gensvc/identity';\nimport { stores } from '@gensvc/storage';\nexport const m = [IdentityModule, stores];\n`,
  'libs/assets/src/application/uploads.int.spec.ts': `import { stores } from '@gensvc/storage';\nexport const s = stores;\n`,
};

describe('architecture', () => {
  const layout = layoutOf(root);
  const result = analyse(layout);

  it('finds the sources and contexts it checks', () => {
    expect(result.files.length).toBeGreaterThan(20);
    expect([...result.graph.keys()]).toEqual(expect.arrayContaining(['tasks', 'assets', 'voices', 'wallet', 'catalogue']));
    expect(result.graph.has('shared')).toBe(false);
    expect(result.graph.has('storage')).toBe(false);
    expect(layout.infrastructure).toEqual(['storage']);
    expect(result.graph.get('tasks')!.size).toBeGreaterThan(2);
  });

  it('the graph of contexts has no cycle', () => {
    // On a failure, the graph as it stands is shown beside the cycles.
    const found = result.cycles.length ? { cycles: result.cycles, graph: printGraph(result.graph).split('\n') } : { cycles: [] };
    expect(found).toEqual({ cycles: [] });
  });

  it('libraries import other contexts only through their contracts; nothing reaches internals', () => {
    expect(result.violations).toEqual([]);
  });

  it("every context's contracts entry point exists and is Nest-free", () => {
    expect(result.impureContracts).toEqual([]);
  });

  it('every library has a public index.ts and path aliases', () => {
    const tsconfig = ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(join(root, 'tsconfig.json'), 'utf8')).config as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    for (const lib of layout.libraries) {
      expect({ lib, index: existsSync(join(root, 'libs', lib, 'src', 'index.ts')) }).toEqual({ lib, index: true });
      expect({ lib, alias: tsconfig.compilerOptions.paths[`@gensvc/${lib}`] }).toEqual({ lib, alias: [`libs/${lib}/src`] });
      if (contextsOf(layout).includes(lib)) {
        expect({ lib, contracts: tsconfig.compilerOptions.paths[`@gensvc/${lib}/contracts`] }).toEqual({ lib, contracts: [`libs/${lib}/src/contracts`] });
      }
    }
  });

  it('domain code depends on neither Nest nor store and transport libraries, and of the kernel libraries only on the pure kernel', () => {
    expect(result.domainViolations).toEqual([]);
    const planted = analyse(
      plant({
        ...cleanFixture,
        'libs/assets/src/domain/engine.ts': `import { SubscriptionEngine } from '@gensvc/event-sourcing';\nimport { AppError } from '@gensvc/kernel';\nexport const e = [SubscriptionEngine, AppError];\n`,
        'libs/assets/src/domain/guard.ts': `import ipaddr from 'ipaddr.js';\nexport const g = ipaddr;\n`,
      }, ['kernel', 'event-sourcing']),
    );
    expect(planted.domainViolations).toEqual([`libs/assets/src/domain/engine.ts: '@gensvc/event-sourcing'`, `libs/assets/src/domain/guard.ts: 'ipaddr.js'`]);
  });

  it('packages (packages/) import no server code, and anything may import them', () => {
    expect(layout.packages).toContain('sdk');
    expect(packageViolations(layout)).toEqual([]);
  });

  describe('the rules prove themselves on planted fixtures', () => {
    it('a package that imports a library or Nest fails', () => {
      const fixture = plant({
        ...cleanFixture,
        'packages/kit/src/index.ts': `import { kernel } from '@gensvc/shared';\nimport { Module } from '@nestjs/common';\nexport const k = [kernel, Module];\n`,
        'apps/api/src/uses-kit.ts': `import { k } from '@gensvc/kit';\nexport const x = k;\n`,
      });
      expect(packageViolations(fixture)).toEqual([`packages/kit/src/index.ts: '@gensvc/shared'`, `packages/kit/src/index.ts: '@nestjs/common'`]);
      expect(analyse(fixture).violations).toEqual([]);
    });

    it('a clean fixture passes', () => {
      const clean = analyse(plant(cleanFixture));
      expect({ cycles: clean.cycles, violations: clean.violations, impure: clean.impureContracts }).toEqual({ cycles: [], violations: [], impure: [] });
      expect(printGraph(clean.graph)).toBe('assets -> identity\ntasks -> assets');
    });

    it('a planted cycle fails: assets hears of tasks by importing its contracts', () => {
      const cyclic = analyse(
        plant({
          ...cleanFixture,
          'libs/assets/src/application/task-refs.ts': `import { TASK_STREAM } from '@gensvc/tasks/contracts';\nexport const s = TASK_STREAM;\n`,
        }),
      );
      expect(cyclic.violations).toEqual([]); // through contracts, yet a cycle
      expect(cyclic.cycles).toEqual(['assets -> tasks -> assets']);
    });

    it('a planted cycle through a relative path fails as a cycle and as an internal import', () => {
      const cyclic = analyse(
        plant({ ...cleanFixture, 'libs/identity/src/application/x.ts': `import { x } from '../../../assets/src/application/uploads';\nexport const y = x;\n` }),
      );
      expect(cyclic.cycles).toEqual(['assets -> identity -> assets']);
      expect(cyclic.violations).toEqual([
        `libs/identity/src/application/x.ts: '../../../assets/src/application/uploads' — relative import into library "assets": use @gensvc/assets/contracts`,
      ]);
    });

    it("a planted import of another context's internals fails", () => {
      const leaky = analyse(
        plant({ ...cleanFixture, 'libs/tasks/src/application/peek.ts': `import type { AssetEvent } from '@gensvc/assets/domain/asset';\nexport type P = AssetEvent;\n` }),
      );
      expect(leaky.violations).toEqual([
        `libs/tasks/src/application/peek.ts: '@gensvc/assets/domain/asset' — import of "assets" internals (@gensvc/assets/domain/asset): use @gensvc/assets/contracts`,
      ]);
      expect(leaky.cycles).toEqual([]);
    });

    it("a planted import of another context's module index from a library fails", () => {
      const leaky = analyse(plant({ ...cleanFixture, 'libs/assets/src/application/m.ts': `import { IdentityModule } from '@gensvc/identity';\nexport const m = IdentityModule;\n` }));
      expect(leaky.violations).toEqual([
        `libs/assets/src/application/m.ts: '@gensvc/identity' — import of context "identity" through its module index: libraries use @gensvc/identity/contracts`,
      ]);
    });

    it('planted contracts that reach Nest fail', () => {
      const impure = analyse(
        plant({
          ...cleanFixture,
          'libs/assets/src/contracts/index.ts': `export * from '../domain/asset';\nexport * from '../application/registry';\n`,
          'libs/assets/src/application/registry.ts': `import { Injectable } from '@nestjs/common';\n@Injectable()\nexport class Registry {}\n`,
        }),
      );
      expect(impure.impureContracts).toEqual([
        `libs/assets/src/contracts/index.ts -> libs/assets/src/application/registry.ts -> '@nestjs/common'`,
      ]);
    });

    it('a context or the kernel that imports the storage adapters fails; apps and tests may', () => {
      const leaky = analyse(
        plant({
          ...cleanFixture,
          'libs/tasks/src/application/stores.ts': `import { stores } from '@gensvc/storage';\nexport const s = stores;\n`,
          'libs/shared/src/stores.ts': `import { stores } from '@gensvc/storage';\nexport const s = stores;\n`,
          'libs/assets/src/application/deep.int.spec.ts': `import { stores } from '@gensvc/storage/read-store/sqlite-read-store';\nexport const s = stores;\n`,
        }),
      );
      expect(leaky.violations).toEqual([
        `libs/assets/src/application/deep.int.spec.ts: '@gensvc/storage/read-store/sqlite-read-store' — deep import into infrastructure library "storage": use @gensvc/storage`,
        `libs/shared/src/stores.ts: '@gensvc/storage' — library "shared" imports infrastructure library "storage": only the apps compose it`,
        `libs/tasks/src/application/stores.ts: '@gensvc/storage' — library "tasks" imports infrastructure library "storage": only the apps compose it`,
      ]);
      expect(leaky.graph.has('storage')).toBe(false);
      expect(leaky.impureContracts).toEqual([]);
    });

    it('a planted context without contracts fails', () => {
      const missing = analyse(plant({ ...cleanFixture, 'libs/voices/src/index.ts': `export const v = 1;\n` }));
      expect(missing.impureContracts).toEqual(['libs/voices/src/contracts/index.ts: missing']);
    });
  });

  describe('the import rule, case by case', () => {
    const lay: Layout = { root: '/repo', libraries: ['shared', 'storage', 'tasks', 'quoting', 'identity', 'suppliers'], kernel: ['shared'], infrastructure: ['storage'] };
    const lib = (path: string, l: string, test = false): SourceFile => ({ path, area: { kind: 'lib', lib: l }, test });
    const app: SourceFile = { path: 'apps/api/src/app.module.ts', area: { kind: 'app', app: 'api' }, test: false };
    const e2e: SourceFile = { path: 'test/tasks.e2e-spec.ts', area: { kind: 'test' }, test: true };

    const rows: [SourceFile, string, string | null][] = [
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/quoting/contracts', null],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/quoting', 'through its module index'],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/quoting/domain/quote', 'internals'],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/tasks/domain/task', null],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/shared', null],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/shared/event-sourcing/engine', 'deep import into kernel'],
      [lib('libs/tasks/src/application/x/a.ts', 'tasks'), '../../../../quoting/src/contracts', 'relative import into library "quoting"'],
      [lib('libs/tasks/src/application/x/a.ts', 'tasks'), '../../domain/task', null],
      [lib('libs/tasks/src/a.ts', 'tasks'), '../../../apps/api/src/app.module', 'a library imports an app'],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/shared/testing/decider-specification', 'test kit'],
      [lib('libs/tasks/src/a.unit.spec.ts', 'tasks', true), '@gensvc/shared/testing/decider-specification', null],
      [lib('libs/tasks/src/a.int.spec.ts', 'tasks', true), '@gensvc/quoting/testing/quoting-test-kit', null],
      [e2e, '@gensvc/suppliers/testing/job-events', null],
      [e2e, '@gensvc/suppliers/application/jobs', 'internals'],
      [e2e, '@gensvc/suppliers', null],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/nowhere', 'unknown library'],
      [app, '@gensvc/identity', null],
      [app, '@gensvc/identity/contracts', null],
      [app, '@gensvc/identity/application/accounts.service', 'internals'],
      [app, '../../../libs/identity/src/index', 'relative import into library "identity"'],
      [lib('libs/tasks/src/a.ts', 'tasks'), 'mongodb', null],
      [lib('libs/tasks/src/a.ts', 'tasks'), '@gensvc/storage', 'only the apps compose it'],
      [lib('libs/shared/src/a.ts', 'shared'), '@gensvc/storage', 'only the apps compose it'],
      [lib('libs/tasks/src/a.int.spec.ts', 'tasks', true), '@gensvc/storage', null],
      [lib('libs/storage/src/a.ts', 'storage'), '@gensvc/shared', null],
      [app, '@gensvc/storage', null],
      [app, '@gensvc/storage/storage.module', 'deep import into infrastructure'],
      [e2e, '@gensvc/storage', null],
    ];
    it.each(rows.map(([file, spec, expected]) => [file.path, spec, expected, file] as const))('%s imports %s', (_path, spec, expected, file) => {
      expect(violation(lay, file, spec)).toEqual(expected === null ? null : expect.stringContaining(expected));
    });

    it('finds every cycle of a graph', () => {
      const g = new Map([
        ['a', new Set(['b'])],
        ['b', new Set(['c'])],
        ['c', new Set(['a'])],
        ['d', new Set(['a'])],
      ]);
      expect(cyclesOf(g)).toEqual(['a -> b -> c -> a']);
      expect(cyclesOf(new Map([['a', new Set(['b'])], ['b', new Set<string>()]]))).toEqual([]);
    });
  });
});
