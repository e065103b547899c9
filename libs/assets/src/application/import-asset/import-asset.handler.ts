import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { AppError, type Command } from '@gensvc/shared';
import { checkImportUrl, isIpLiteral, refusedAddress } from '../../domain/address-policy';
import { checkFileName } from '../../domain/file-name';
import { UploadLimits } from '../../domain/limits';
import { parseContentType } from '../../domain/media-types';
import { AssetIngest } from '../asset-ingest';
import type { AssetView } from '../asset-records';
import { ReceiveSlots } from '../receive-slots';
import { ReceiveInterrupted } from '../store-inspected';
import { ImportNetwork } from './import-network';

/** POST /v1/uploads/import: `url` and `name` as the body gave them (checked here). */
export type ImportAssetCommand = Command<'ImportAsset', { readonly account_id: string; readonly url: unknown; readonly name: unknown }>;

const failed = (why: string) => new AppError('IMPORT_FAILED', `the file could not be imported: ${why}`);

/**
 * POST /v1/uploads/import: downloads a public HTTPS file and registers it as an asset.
 * Every hop (the first address and each redirect) is checked: HTTPS, port 443, and every
 * resolved address public; the connection goes to the checked address. The download is
 * limited in size (while streaming) and time, and its real type is recognised.
 */
@Injectable()
export class ImportAssetHandler {
  constructor(
    private readonly network: ImportNetwork,
    private readonly limits: UploadLimits,
    private readonly slots: ReceiveSlots,
    private readonly ingest: AssetIngest,
  ) {}

  async execute(cmd: ImportAssetCommand): Promise<AssetView> {
    const accountId = cmd.data.account_id;
    let url = checkImportUrl(cmd.data.url);
    const name = checkFileName(cmd.data.name, 'name');
    const release = await this.slots.acquire(accountId);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.limits.importTimeoutMs);
    try {
      let response: IncomingMessage | undefined;
      for (let hop = 0; ; hop++) {
        response = await this.fetch(url, abort.signal);
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          if (hop >= this.limits.importMaxRedirects) throw failed(`more than ${this.limits.importMaxRedirects} redirects`);
          let next: URL;
          try {
            next = new URL(response.headers.location, url);
          } catch {
            throw failed('the server redirected to an invalid address');
          }
          url = checkImportUrl(next.toString());
          continue;
        }
        if (status !== 200) {
          response.resume();
          throw failed(`the server answered HTTP ${status}`);
        }
        break;
      }
      const encoding = response.headers['content-encoding'];
      if (encoding && encoding !== 'identity') {
        response.resume();
        throw failed(`the server sent an encoded (${encoding}) body`);
      }
      const length = Number(response.headers['content-length']);
      if (Number.isFinite(length) && length > this.limits.maxFileBytes) {
        response.destroy();
        throw new AppError('PAYLOAD_TOO_LARGE', `the file is larger than ${this.limits.maxFileBytes} bytes`);
      }
      const hint = parseContentType(response.headers['content-type'])?.essence ?? null;
      const source = new URL(url.toString());
      source.search = '';
      source.hash = '';
      return await this.ingest.ingest(accountId, name, response, { mode: 'detect', hint }, { kind: 'import', url: source.toString() }, () =>
        failed(`the download took longer than ${Math.round(this.limits.importTimeoutMs / 1000)} seconds`),
      );
    } catch (err) {
      if (err instanceof ReceiveInterrupted) throw abort.signal.aborted ? failed('the download timed out') : failed('the connection broke off');
      throw err;
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /** One request to a checked address; resolves with the response head. */
  private async fetch(url: URL, signal: AbortSignal): Promise<IncomingMessage> {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let addresses: string[];
    if (isIpLiteral(url.hostname)) addresses = [host];
    else {
      try {
        addresses = await this.network.resolve(host);
      } catch {
        throw failed(`${host} could not be resolved`);
      }
    }
    if (!addresses.length) throw failed(`${host} has no address`);
    for (const a of addresses) {
      const why = refusedAddress(a);
      if (why) throw new AppError('IMPORT_URL_FORBIDDEN', `url: ${host} resolves to ${a}, which is not a public address (${why})`);
    }
    const dial = this.network.dialTarget(addresses[0], 443);
    const family = isIP(dial.address) === 6 ? 6 : 4;
    const lookup: LookupFunction = (_name, options, callback) => {
      const cb = callback as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
      if ((options as { all?: boolean }).all) cb(null, [{ address: dial.address, family }]);
      else cb(null, dial.address, family);
    };
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: isIpLiteral(url.hostname) ? dial.address : host,
          port: dial.port,
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          lookup,
          servername: isIpLiteral(url.hostname) ? undefined : host,
          ca: this.network.trustedCertificates(),
          agent: false,
          signal,
          headers: { Host: url.host, 'User-Agent': 'gensvc-import/0.1', Accept: '*/*', 'Accept-Encoding': 'identity' },
        },
        resolve,
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (signal.aborted) reject(failed('the download timed out'));
        else if (err.code?.startsWith('ERR_TLS') || /certificate|self.signed|SSL/i.test(err.message)) reject(failed(`TLS: ${err.message}`));
        else reject(failed(err.code ?? err.message));
      });
      req.end();
    });
  }
}
