import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The notifications context sits at the edge: only the apps (and tests) compose it; no other
 * context imports it, so it can react to everyone's events without a cycle.
 */
const root = resolve(__dirname, '..', '..', '..');

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('notifications boundary', () => {
  it('no other library imports the notifications context', () => {
    const offenders: string[] = [];
    const libs = readdirSync(join(root, 'libs')).filter((c) => c !== 'notifications');
    expect(libs.length).toBeGreaterThan(5);
    for (const ctx of libs) {
      for (const file of walk(join(root, 'libs', ctx, 'src'))) {
        const specs = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
        for (const s of specs) if (s === '@gensvc/notifications' || s.startsWith('@gensvc/notifications/') || /(^|\/)notifications\/src(\/|$)/.test(s)) offenders.push(`${relative(root, file)} → ${s}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the rule sees an import when there is one', () => {
    const specs = ts.preProcessFile("import { X } from '@gensvc/notifications';", true, true).importedFiles.map((f) => f.fileName);
    expect(specs).toEqual(['@gensvc/notifications']);
  });
});
