import { Inject, Injectable } from '@nestjs/common';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { type Command } from '@gensvc/kernel';
import type { CatalogueChange } from '../../domain/catalogue-changes';
import { parseCatalogueFile, type CatalogueFile } from '../../domain/catalogue-file';
import { catalogueVersionDecider } from '../../domain/catalogue-versions';
import { CATALOGUE_STREAM_NAME } from '../catalogue-stream';
import { CatalogueFollower } from '../live-catalogue/catalogue-follower';

/** `file`: the catalogue file's text or its parsed JSON. */
export type PublishCatalogueCommand = Command<'PublishCatalogue', { readonly file: unknown }>;

export interface PublishCatalogueOptions {
  /** Checks of the deployment the file must also pass (the channels it names exist); throws a `CatalogueFileError`. */
  readonly check?: (file: CatalogueFile) => void;
}

/** The answer of `admin catalogue publish`: the version in service and what it changed (none when the file is the version in service). */
export interface PublishCatalogueResult {
  readonly version: number;
  readonly changes: readonly CatalogueChange[];
}

/**
 * Publishes a catalogue file as the next version (the operator's `admin catalogue publish`):
 * validated first (a `CatalogueFileError` names the model and the field, and nothing is
 * stored), then one `CataloguePublished` event; every process serves it within a second
 * (`CatalogueFollower`), this one at once. The file in service published again changes nothing.
 */
@Injectable()
export class PublishCatalogueHandler {
  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    private readonly follower: CatalogueFollower,
  ) {}

  async execute(command: PublishCatalogueCommand, options: PublishCatalogueOptions = {}): Promise<PublishCatalogueResult> {
    const catalogue = parseCatalogueFile(command.data.file);
    options.check?.(catalogue);
    const result = await handleCommand(this.events, CATALOGUE_STREAM_NAME, catalogueVersionDecider, { type: 'PublishCatalogue', data: { catalogue }, metadata: command.metadata });
    if (result.state.status !== 'published') throw new Error('catalogue: nothing published');
    await this.follower.catchUp();
    return { version: result.state.current.version, changes: result.events.length ? result.state.current.changes : [] };
  }
}
