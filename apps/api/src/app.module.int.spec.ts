import { Logger, type DynamicModule } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStore } from '@gensvc/blob-store';
import { EventStore, LeaseStore, ReadStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { SharedCounters } from '@gensvc/http';
import { loadConfig } from '@gensvc/config';
import { AdminModule, createAdminApp } from '../../admin/src/admin.module';
import { AdminUseCases } from '../../admin/src/admin-use-cases';
import { AppModule } from './app.module';
import { composeContexts } from './compose-contexts';

/**
 * The composition roots wire the modules without a global one: every context module imports
 * what it needs, the storage module exists once (one instance of each store for all), and the
 * contexts that inject another context's contract port get it from that context's module.
 */
describe.each([
  ['api', (dir: string) => AppModule.forRoot(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }))],
  ['admin', (dir: string) => AdminModule.forRoot(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }))],
] as const)('the %s composition', (_name, compose) => {
  let dir: string;
  let modules: ModulesContainer;
  let close: () => Promise<void>;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    dir = mkdtempSync(join(tmpdir(), 'gensvc-compose-'));
    const moduleRef = await Test.createTestingModule({ imports: [compose(dir)] }).compile();
    moduleRef.useLogger(false);
    modules = moduleRef.get(ModulesContainer);
    close = () => moduleRef.close();
  });
  afterAll(async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const ours = () => [...modules.values()].filter((m) => /^(Storage|Catalogue|Identity|Wallet|Voices|Assets|Quoting|Suppliers|Tasks|Operations|Notifications|SharedCounters|Mcp|OpenApi)Module$/.test(m.name));

  it('marks none of its own modules global', () => {
    expect(ours().length).toBeGreaterThanOrEqual(11);
    expect(ours().filter((m) => m.isGlobal).map((m) => m.name)).toEqual([]);
  });

  it('holds one storage module and one instance of each store', () => {
    expect(ours().filter((m) => m.name === 'StorageModule')).toHaveLength(1);
    for (const token of [EventStore, ReadStore, BlobStore, LeaseStore, SubscriptionEngine]) {
      const instances = new Set<unknown>();
      for (const m of modules.values()) {
        const wrapper = m.providers.get(token);
        if (wrapper) instances.add(wrapper.instance);
      }
      expect({ token: token.name, instances: instances.size }).toEqual({ token: token.name, instances: 1 });
    }
  });

  it('gives every context module exactly the modules it imports', () => {
    const importsOf = (name: string) => {
      const m = ours().find((x) => x.name === name)!;
      // Global modules (Nest's core, the throttler: none of ours) are linked to every module.
      return [...m.imports].filter((i) => !i.isGlobal).map((i) => i.name).sort();
    };
    expect(importsOf('TasksModule')).toEqual(['AssetsModule', 'QuotingModule', 'StorageModule', 'SuppliersModule', 'VoicesModule', 'WalletModule']);
    expect(importsOf('QuotingModule')).toEqual(['AssetsModule', 'CatalogueModule', 'StorageModule', 'VoicesModule']);
    expect(importsOf('AssetsModule')).toEqual(['IdentityModule', 'StorageModule']);
    expect(importsOf('WalletModule')).toEqual(['StorageModule']);
    expect(importsOf('CatalogueModule')).toEqual(['StorageModule']);
  });
});

/** Every context module with the modules it imports (global ones left out), by name. */
type NestModule = ModulesContainer extends Map<string, infer M> ? M : never;

async function contextGraph(root: DynamicModule): Promise<{ graph: Record<string, string[]>; rootImports: string[] }> {
  const moduleRef = await Test.createTestingModule({ imports: [root] }).compile();
  try {
    const all = [...moduleRef.get(ModulesContainer).values()];
    const names = (m: NestModule) => [...m.imports].filter((i) => !i.isGlobal).map((i) => i.name).sort();
    const graph: Record<string, string[]> = {};
    for (const m of all) if (CONTEXT_MODULES.test(m.name)) graph[m.name] = names(m);
    return { graph, rootImports: names(all.find((m) => m.name === (root.module as { name: string }).name)!) };
  } finally {
    await moduleRef.close();
  }
}

const CONTEXT_MODULES = /^(Storage|SharedCounters|Catalogue|Identity|Wallet|Voices|Assets|Quoting|Suppliers|Tasks|Operations|Notifications)Module$/;

describe('one composition for both apps (composeContexts)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('the admin app composes the same context modules with the same imports as the API, and adds nothing of its own', async () => {
    const dirs = [mkdtempSync(join(tmpdir(), 'gensvc-compose-')), mkdtempSync(join(tmpdir(), 'gensvc-compose-'))];
    try {
      const api = await contextGraph(AppModule.forRoot(loadConfig({ DATA_DIR: dirs[0], LOG_LEVEL: 'silent' })));
      const admin = await contextGraph(AdminModule.forRoot(loadConfig({ DATA_DIR: dirs[1], LOG_LEVEL: 'silent' })));
      expect(Object.keys(api.graph).sort()).toHaveLength(12);
      expect(admin.graph).toEqual(api.graph);
      const composed = composeContexts(loadConfig({ DATA_DIR: dirs[1], LOG_LEVEL: 'silent' })).modules.map((m) => m.module.name).sort();
      expect(admin.rootImports).toEqual(composed);
      expect(api.rootImports).toEqual(expect.arrayContaining(composed));
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('the admin app', () => {
  it('hands its commands every use case by injection (AdminUseCases, a provider of its root module)', async () => {
    Logger.overrideLogger(false);
    const dir = mkdtempSync(join(tmpdir(), 'gensvc-compose-'));
    const { app, use } = await createAdminApp(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), { logger: false });
    try {
      expect(use).toBeInstanceOf(AdminUseCases);
      expect(Object.entries(use).filter(([, v]) => v === undefined || v === null)).toEqual([]);
      expect(use.engine).toBe(app.get(SubscriptionEngine));
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each([
  ['api', (dir: string) => AppModule.forRoot(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }))],
  ['admin', (dir: string) => AdminModule.forRoot(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }))],
] as const)('the %s composition, counters', (_name, compose) => {
  it('passes the shared counters to the identity context (failed sign-ins)', async () => {
    Logger.overrideLogger(false);
    const dir = mkdtempSync(join(tmpdir(), 'gensvc-compose-'));
    const moduleRef = await Test.createTestingModule({ imports: [compose(dir)] }).compile();
    try {
      const all = [...moduleRef.get(ModulesContainer).values()];
      const identity = all.find((m) => m.name === 'IdentityModule')!;
      const counters = all.find((m) => m.name === 'SharedCountersModule')!;
      expect([...identity.imports]).toContain(counters);
      expect(counters.providers.get(SharedCounters)?.instance).toBeInstanceOf(SharedCounters);
    } finally {
      await moduleRef.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
