import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The architecture rules (DESIGN.md rule 1), computed from the sources of a checkout. The
 * ESLint boundary rule (eslint.config.mjs) says the same while editing;
 * `libs/kernel/src/architecture.int.spec.ts` runs this on the repository and on planted
 * fixtures that break each rule.
 *
 * - A library under `libs/` is a bounded context unless `architecture.json` lists it as a
 *   kernel library (architecture.json: `kernel`, the pure core, and the platform libraries around it).
 * - Another library imports a context only through its `contracts` entry point,
 *   `@gensvc/<ctx>/contracts`, which is Nest-free (nothing reachable from it inside the context
 *   imports `@nestjs/*`). The module index `@gensvc/<ctx>` is for apps and end-to-end tests.
 * - An infrastructure library (`storage`: the adapters behind the kernel's ports) is no context
 *   either; it is imported through its index, and only by apps and tests: neither a context
 *   nor the kernel depends on it in production code (the apps compose it).
 * - A kernel library is imported through its index (`@gensvc/kernel`, `@gensvc/event-sourcing`); a test kit
 *   (`@gensvc/<lib>/testing/...`) only by tests; no relative path into another library; no
 *   library imports an app.
 * - The graph "context A imports context B" (production sources of libs/, test kits and specs
 *   left out) has no cycle.
 * - Domain code depends on neither Nest nor store and transport libraries.
 * - A package under `packages/` (`@gensvc/sdk`, entry points included) is imported like any
 *   package, and imports no server code: no library, no app, no Nest, no store library.
 */

export interface SourceFile {
  /** Relative to the checkout's root, with `/`. */
  readonly path: string;
  readonly area: { kind: 'lib'; lib: string } | { kind: 'app'; app: string } | { kind: 'test' };
  readonly test: boolean;
}

export interface Layout {
  readonly root: string;
  /** Every library under libs/. */
  readonly libraries: readonly string[];
  /** Libraries that are not bounded contexts, imported by any library. */
  readonly kernel: readonly string[];
  /** Libraries of adapters, composed by the apps: imported by apps and tests only. */
  readonly infrastructure?: readonly string[];
  /** Packages under packages/ (`@gensvc/<name>`, published on their own). */
  readonly packages?: readonly string[];
}

export interface Analysis {
  readonly files: readonly SourceFile[];
  /** context → contexts it imports (production code). */
  readonly graph: ReadonlyMap<string, ReadonlySet<string>>;
  readonly cycles: readonly string[];
  /** `file: 'specifier' — why`. */
  readonly violations: readonly string[];
  /** Contract files that reach Nest (`file -> ... -> '@nestjs/x'`). */
  readonly impureContracts: readonly string[];
  readonly domainViolations: readonly string[];
}

export function layoutOf(root: string): Layout {
  const libsDir = join(root, 'libs');
  const libraries = existsSync(libsDir) ? readdirSync(libsDir).filter((d) => statSync(join(libsDir, d)).isDirectory()).sort() : [];
  const config = join(root, 'architecture.json');
  const declared = existsSync(config) ? (JSON.parse(readFileSync(config, 'utf8')) as { kernel?: string[]; infrastructure?: string[] }) : {};
  const kernel = declared.kernel ?? ['shared'];
  const infrastructure = declared.infrastructure ?? [];
  const packagesDir = join(root, 'packages');
  const packages = existsSync(packagesDir) ? readdirSync(packagesDir).filter((d) => statSync(join(packagesDir, d)).isDirectory()).sort() : [];
  return { root, libraries, kernel, infrastructure, packages };
}

/** The bounded contexts: every library that is neither kernel nor infrastructure. */
export function contextsOf(layout: Layout): string[] {
  return layout.libraries.filter((l) => !layout.kernel.includes(l) && !(layout.infrastructure ?? []).includes(l));
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

export function describeFile(root: string, abs: string, area: SourceFile['area']): SourceFile {
  const path = relative(root, abs).split(sep).join('/');
  const test = /\.spec\.ts$|\.e2e-spec\.ts$/.test(path) || path.startsWith('test/') || /^libs\/[^/]+\/src\/testing\//.test(path);
  return { path, area, test };
}

export function sourcesOf(layout: Layout): SourceFile[] {
  const { root } = layout;
  const files: SourceFile[] = [];
  for (const lib of layout.libraries) for (const p of walk(join(root, 'libs', lib, 'src'))) files.push(describeFile(root, p, { kind: 'lib', lib }));
  for (const app of existsSync(join(root, 'apps')) ? readdirSync(join(root, 'apps')) : []) {
    for (const p of walk(join(root, 'apps', app, 'src'))) files.push(describeFile(root, p, { kind: 'app', app }));
  }
  for (const p of walk(join(root, 'test'))) files.push(describeFile(root, p, { kind: 'test' }));
  return files;
}

/** Every module specifier of a file: imports, re-exports, dynamic imports, require(). */
export function specifiers(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

type Target = { kind: 'lib'; lib: string; rest: string } | { kind: 'app' } | { kind: 'package' } | { kind: 'other' };

/** Where a specifier lands: a library (and the path inside its src/), an app, a package. */
export function targetOf(layout: Layout, from: string, spec: string): Target {
  const alias = /^@gensvc\/([^/]+)(?:\/(.+))?$/.exec(spec);
  if (alias && layout.packages?.includes(alias[1])) return { kind: 'package' };
  if (alias) return { kind: 'lib', lib: alias[1], rest: alias[2] ?? '' };
  if (!spec.startsWith('.')) return { kind: 'package' };
  const target = relative(layout.root, resolve(layout.root, dirname(from), spec)).split(sep).join('/');
  const lib = /^libs\/([^/]+)(?:\/src)?(?:\/(.*))?$/.exec(target);
  if (lib) return { kind: 'lib', lib: lib[1], rest: lib[2] ?? '' };
  if (/^apps\//.test(target)) return { kind: 'app' };
  return { kind: 'other' };
}

/** The import rule: why `spec` may not be imported by `file`, or null. */
export function violation(layout: Layout, file: SourceFile, spec: string): string | null {
  const to = targetOf(layout, file.path, spec);
  if (to.kind === 'app') return file.area.kind === 'lib' ? 'a library imports an app' : null;
  if (to.kind !== 'lib') return null;
  if (!layout.libraries.includes(to.lib)) return `unknown library ${spec}`;
  const own = file.area.kind === 'lib' && file.area.lib === to.lib;
  if (own) return null; // its own code, by any path
  const relativePath = spec.startsWith('.');
  const infrastructure = (layout.infrastructure ?? []).includes(to.lib);
  if (relativePath) return `relative import into library "${to.lib}": use @gensvc/${to.lib}${layout.kernel.includes(to.lib) || infrastructure ? '' : '/contracts'}`;
  if (to.rest.startsWith('testing/')) return file.test ? null : `the test kit of "${to.lib}" is for tests only`;
  if (infrastructure) {
    if (to.rest !== '') return `deep import into infrastructure library "${to.lib}": use @gensvc/${to.lib}`;
    return file.area.kind === 'lib' && !file.test ? `library "${file.area.lib}" imports infrastructure library "${to.lib}": only the apps compose it` : null;
  }
  if (layout.kernel.includes(to.lib)) return to.rest === '' ? null : `deep import into kernel library "${to.lib}": use @gensvc/${to.lib}`;
  if (to.rest === 'contracts') return null;
  if (to.rest === '') {
    return file.area.kind === 'lib' ? `import of context "${to.lib}" through its module index: libraries use @gensvc/${to.lib}/contracts` : null;
  }
  return `import of "${to.lib}" internals (${spec}): use @gensvc/${to.lib}/contracts`;
}

/** Cycles of a directed graph, each as `a -> b -> a` (one per back edge found by DFS). */
export function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const cycles: string[] = [];
  const color = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (u: string): void => {
    color.set(u, 1);
    stack.push(u);
    for (const v of [...(graph.get(u) ?? [])].sort()) {
      if (color.get(v) === 1) cycles.push([...stack.slice(stack.indexOf(v)), v].join(' -> '));
      else if (!color.get(v)) visit(v);
    }
    stack.pop();
    color.set(u, 2);
  };
  for (const n of [...graph.keys()].sort()) if (!color.get(n)) visit(n);
  return cycles;
}

function resolveRelative(root: string, from: string, spec: string): string | null {
  const base = resolve(root, dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return relative(root, candidate).split(sep).join('/');
  return null;
}

/** Files reachable from a context's contracts entry inside the context that import Nest. */
function impureContractsOf(layout: Layout, ctx: string): string[] {
  const entry = `libs/${ctx}/src/contracts/index.ts`;
  if (!existsSync(join(layout.root, entry))) return [`${entry}: missing`];
  const found: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, trail: string[]): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const s of specifiers(layout.root, file)) {
      if (/^@nestjs\//.test(s)) found.push([...trail, file, `'${s}'`].join(' -> '));
      const ownAlias = s.startsWith(`@gensvc/${ctx}/`) ? `./${relative(dirname(join(layout.root, file)), join(layout.root, 'libs', ctx, 'src', s.slice(`@gensvc/${ctx}/`.length)))}` : null;
      const rel = s.startsWith('.') ? s : ownAlias;
      if (!rel) continue;
      const next = resolveRelative(layout.root, file, rel);
      if (next && next.startsWith(`libs/${ctx}/`)) visit(next, [...trail, file]);
    }
  };
  visit(entry, []);
  return found;
}

/**
 * What domain code must not load: Nest, store and transport clients, the runtime packages of
 * the platform, and every library of the platform around the pure kernel (`@gensvc/kernel` is
 * the only library a domain file imports besides other contexts' contracts).
 */
const forbiddenInDomain = /^(@nestjs\/|express$|mongodb$|minio$|@eventstore\/|node:sqlite$|supertest$|rxjs$|mingo$|pino$|ipaddr\.js$|@gensvc\/(event-sourcing|blob-store|config|logging|http|storage)(\/|$))/;

export function analyse(layout: Layout): Analysis {
  const files = sourcesOf(layout);
  const contexts = contextsOf(layout);
  const graph = new Map<string, Set<string>>(contexts.map((c) => [c, new Set<string>()]));
  const violations: string[] = [];
  const domainViolations: string[] = [];
  for (const f of files) {
    for (const s of specifiers(layout.root, f.path)) {
      const why = violation(layout, f, s);
      if (why) violations.push(`${f.path}: '${s}' — ${why}`);
      if (f.area.kind === 'lib' && !f.test) {
        const to = targetOf(layout, f.path, s);
        if (to.kind === 'lib' && to.lib !== f.area.lib && graph.has(f.area.lib) && graph.has(to.lib)) graph.get(f.area.lib)!.add(to.lib);
      }
      if (/^libs\/[^/]+\/src\/domain\//.test(f.path) && !f.test && forbiddenInDomain.test(s)) domainViolations.push(`${f.path}: '${s}'`);
    }
  }
  return {
    files,
    graph,
    cycles: cyclesOf(graph),
    violations,
    impureContracts: contexts.flatMap((c) => impureContractsOf(layout, c)),
    domainViolations,
  };
}

/** The graph as `a -> b, c` lines, like ../shared/tools/context-cycles prints it. */
export function printGraph(graph: ReadonlyMap<string, ReadonlySet<string>>): string {
  return [...graph.entries()]
    .filter(([, to]) => to.size > 0)
    .map(([from, to]) => `${from} -> ${[...to].sort().join(', ')}`)
    .join('\n');
}

const serverCode = /^(@nestjs\/|express$|mongodb$|minio$|@eventstore\/|node:sqlite$|supertest$)/;

/** Imports of server code by the packages under packages/ (`file: 'specifier'`). */
export function packageViolations(layout: Layout): string[] {
  const found: string[] = [];
  for (const pkg of layout.packages ?? []) {
    for (const abs of walk(join(layout.root, 'packages', pkg))) {
      const file = describeFile(layout.root, abs, { kind: 'test' });
      for (const spec of specifiers(layout.root, file.path)) {
        const to = targetOf(layout, file.path, spec);
        if (to.kind === 'lib' || to.kind === 'app' || serverCode.test(spec)) found.push(`${file.path}: '${spec}'`);
      }
    }
  }
  return found;
}
