import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '@gensvc/kernel';
import { CatalogueFileError, ROUTED, type CatalogueFile } from '@gensvc/catalogue';
import type { SupplierSettings } from '@gensvc/suppliers';
import { UsageError, requireArg, type AdminCommand } from '../command';

/** The text of the file named on the command line (relative to the working directory). */
function readCatalogueFile(path: string): string {
  try {
    return readFileSync(resolve(path), 'utf8');
  } catch (err) {
    throw new AppError('VALIDATION_ERROR', `FILE: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * The deployment's part of a catalogue's validation, as at start: a model on sale names
 * channels this configuration has (`local`, a gensvc-protocol channel of SUPPLIER_CHANNELS,
 * or for routes a provider channel). A model that is not on sale may name others.
 */
export function channelCheck(settings: SupplierSettings): (file: CatalogueFile) => void {
  return (file) => {
    for (const m of file.models) {
      if (!m.available) continue;
      if (m.routes) {
        m.routes.forEach((r, i) => {
          if (!settings.providers.has(r.channel)) {
            throw new CatalogueFileError(m.id, `routes[${i}].channel`, `routes[${i}].channel names "${r.channel}", which is not a provider channel of SUPPLIER_CHANNELS`);
          }
        });
      } else if (m.supplier !== 'local' && m.supplier !== ROUTED && !settings.channels.has(m.supplier ?? '')) {
        throw new CatalogueFileError(m.id, 'supplier', `supplier names channel "${m.supplier}", which is not configured (SUPPLIER_CHANNELS)`);
      }
    }
  };
}

/**
 * `catalogue publish FILE`: validates the file (an error JSON names the model and the field;
 * nothing is published) and publishes it as the next version, which every running process
 * serves within a second. Prints `{"version", "changes"}`.
 */
const publish: AdminCommand = {
  words: ['catalogue', 'publish'],
  usage: 'catalogue publish FILE',
  args: ['FILE'],
  run: (use, _flags, args) =>
    use.publishCatalogue.execute(
      { type: 'PublishCatalogue', data: { file: readCatalogueFile(requireArg(args, 0, 'FILE')) }, metadata: { now: use.clock.now() } },
      { check: channelCheck(use.supplierSettings) },
    ),
};

/** `catalogue show [--version N]`: `{"version", "published_at", "catalogue"}`, the file as published. */
const show: AdminCommand = {
  words: ['catalogue', 'show'],
  usage: 'catalogue show [--version N]',
  run(use, flags) {
    const v = flags.version;
    if (v !== undefined && (typeof v !== 'string' || !/^[1-9]\d{0,8}$/.test(v))) throw new UsageError('--version needs a version number');
    return use.showCatalogue.execute(v === undefined ? {} : { version: Number(v) });
  },
};

/** `catalogue diff FILE`: `{"changes"}` against the version in service, without publishing. */
const diff: AdminCommand = {
  words: ['catalogue', 'diff'],
  usage: 'catalogue diff FILE',
  args: ['FILE'],
  run: (use, _flags, args) => use.diffCatalogue.execute({ file: readCatalogueFile(requireArg(args, 0, 'FILE')) }),
};

export const CATALOGUE_COMMANDS: AdminCommand[] = [publish, show, diff];
