import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AppError, type Command } from '@gensvc/kernel';
import { pinnedLookup, resolveCheckedHost } from '@gensvc/http';
import { checkImportUrl, isIpLiteral, refusedAddress } from './address-policy';
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
    const slot = await this.slots.acquire(accountId);
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
      return await this.ingest.ingest(accountId, name, response, { mode: 'detect', hint }, { kind: 'import', url: source.toString() }, {
        slot,
        expectedBytes: Number.isFinite(length) ? length : undefined,
        timeoutError: () => failed(`the download took longer than ${Math.round(this.limits.importTimeoutMs / 1000)} seconds`),
        slowError: () => failed(`the download is too slow to finish within ${Math.round(this.limits.importTimeoutMs / 1000)} seconds`),
      });
    } catch (err) {
      if (err instanceof ReceiveInterrupted) throw abort.signal.aborted ? failed('the download timed out') : failed('the connection broke off');
      throw err;
    } finally {
      clearTimeout(timer);
      slot.release();
    }
  }

  /** One request to a checked address; resolves with the response head. */
  private async fetch(url: URL, signal: AbortSignal): Promise<IncomingMessage> {
    const checked = await resolveCheckedHost(url, (name) => this.network.resolve(name), (a) => refusedAddress(a));
    const host = checked.host;
    if (!checked.ok) {
      if (checked.reason === 'unresolved') throw failed(`${host} could not be resolved`);
      if (checked.reason === 'no_address') throw failed(`${host} has no address`);
      throw new AppError('IMPORT_URL_FORBIDDEN', `url: ${host} resolves to ${checked.address}, which is not a public address (${checked.why})`);
    }
    const dial = this.network.dialTarget(checked.addresses[0], 443);
    const lookup = pinnedLookup(dial.address);
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
