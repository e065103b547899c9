import { resolveAll } from '@gensvc/http';
import { ImportNetwork } from '../application/import-asset/import-network';

/** Resolves with the system resolver (bounded in time), connects where it resolved, trusts the system CAs. */
export class DnsImportNetwork extends ImportNetwork {
  override resolve(hostname: string): Promise<string[]> {
    return resolveAll(hostname);
  }
}
