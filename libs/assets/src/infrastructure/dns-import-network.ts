import { lookup } from 'node:dns/promises';
import { ImportNetwork } from '../application/import-asset/import-network';

/** Resolves with the system resolver, connects where it resolved, trusts the system CAs. */
export class DnsImportNetwork extends ImportNetwork {
  override async resolve(hostname: string): Promise<string[]> {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((a) => a.address);
  }
}
