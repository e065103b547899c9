import { Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { AppError, type Clock } from '@gensvc/kernel';
import { ConfigError } from '@gensvc/config';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { Catalogue, startCatalogueFile } from '../../domain/catalogue';
import { parseCatalogueFile, type CatalogueFile } from '../../domain/catalogue-file';
import { catalogueVersionDecider, type CatalogueVersionState } from '../../domain/catalogue-versions';
import { CATALOGUE_STREAM_NAME, START_ACTOR, loadCatalogueVersions, versionOf } from '../catalogue-stream';

const logger = new Logger('Catalogue');

/** The start file, validated; a file that does not validate stops the start naming the variable, the model and the field. */
function readStartFile(path: string): CatalogueFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError('CATALOGUE_FILE', `cannot be read (${path}): ${(err as Error).message}`);
  }
  try {
    return parseCatalogueFile(text);
  } catch (err) {
    if (err instanceof AppError) throw new ConfigError('CATALOGUE_FILE', `${path} does not validate: ${err.message}`);
    throw err;
  }
}

/**
 * The catalogue a process serves, at its start: the start file (`CATALOGUE_FILE` or the
 * repository's default) is published when the rules of the version stream say so
 * (`domain/catalogue-versions.ts`: the first version, or a file changed since a start last
 * published it), each outcome said in one log line, then the published version in service is
 * loaded. `CatalogueFollower` keeps it current afterwards.
 */
export async function openCatalogue(events: EventStore, clock: Clock, path = startCatalogueFile()): Promise<Catalogue> {
  const file = readStartFile(path);
  let state: CatalogueVersionState;
  try {
    const result = await handleCommand(events, CATALOGUE_STREAM_NAME, catalogueVersionDecider, { type: 'PublishStartFile', data: { catalogue: file, file: path }, metadata: { now: clock.now() } }, { metadata: { actor: START_ACTOR } });
    state = result.state;
    const published = result.events[0]?.data;
    if (published?.version === 1) logger.log(`published ${path} as catalogue version 1`);
    else if (published) logger.warn(`${path} changed since a start last published it: published as catalogue version ${published.version} (${published.changes.length} changes; \`admin catalogue show\` prints it)`);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'CONFLICT') throw err;
    logger.warn(`${err.message}`);
    state = await loadCatalogueVersions(events);
  }
  if (state.status !== 'published') throw new Error('catalogue: no version is published');
  logger.log(`serving catalogue version ${state.current.version} (published ${state.current.published_at})`);
  return new Catalogue(versionOf(state.current));
}
