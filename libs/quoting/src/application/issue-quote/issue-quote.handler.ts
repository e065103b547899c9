import { Inject, Injectable } from '@nestjs/common';
import { AppError, Clock, Money, newId, streamName } from '@gensvc/kernel';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { type Principal } from '@gensvc/http';
import { Catalogue, MEDIA_TYPES_KEYWORD, type CatalogueModel, type CatalogueVersion } from '@gensvc/catalogue/contracts';
import { AssetRegistry } from '@gensvc/assets/contracts';
import { VoiceRegistry } from '@gensvc/voices/contracts';
import { QUOTE_STREAM, QUOTE_TTL_MS, quoteDecider, type QuoteTerms } from '../../domain/quote';

export interface IssueQuoteCommand {
  readonly principal: Pick<Principal, 'accountId' | 'connectionId'>;
  readonly model: string;
  readonly capability: string;
  readonly input: Record<string, unknown>;
  readonly options?: Record<string, unknown>;
  readonly currency?: string;
}

/** The quote object of the spec: exactly these fields. */
export interface QuoteResponse {
  quote_id: string;
  model: string;
  resolved_model: string;
  currency: 'CNY';
  pricing_mode: 'fixed';
  price_version: string;
  estimated_amount: string;
  max_amount: string;
  quantity: number;
  unit: string;
  unit_price: string;
  expires_at: string;
}

/** Parameters that carry references and consent: only inside `input`, only where the schema declares them. */
export const INPUT_ONLY = ['asset_ids', 'voice_id', 'consent_attested'] as const;
/** Names that would set where a supplier calls back: the service generates that address. */
const CALLBACK_NAME = /^(callback|webhook|notify|notification)(_?(url|uri|address))?$|_(callback|webhook)(_url)?$/i;
const VOICE_CLONE = 'voice.clone';

/**
 * The files `asset_ids` names must be of a type the model's input schema lists (its
 * `x-media-types`; `image/*` takes any image type), or the task could only fail after it was
 * paid for: ASSET_TYPE_UNSUPPORTED naming the first that is not. A schema without the list
 * takes any accepted file.
 */
function checkMediaTypes(model: CatalogueModel, assets: readonly { id: string; mime: string }[]): void {
  const schema = (model.input_schema as { properties?: Record<string, Record<string, unknown> | undefined> }).properties?.asset_ids;
  const types = schema?.[MEDIA_TYPES_KEYWORD];
  if (!Array.isArray(types)) return;
  const allowed = (mime: string) => types.some((t: string) => (t.endsWith('/*') ? mime.startsWith(t.slice(0, -1)) : mime === t));
  assets.forEach((asset, i) => {
    const mime = asset.mime.split(';')[0].trim().toLowerCase();
    if (!allowed(mime)) throw new AppError('ASSET_TYPE_UNSUPPORTED', `input.asset_ids[${i}]: ${asset.id} is ${mime}; ${model.id} takes ${types.join(', ')}`);
  });
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * POST /v1/quotes: validates input and options against the model (spec rules 1–8), prices
 * the request from the catalogue and records the quote (QuoteIssued). Reserves nothing.
 */
@Injectable()
export class IssueQuoteHandler {
  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    private readonly catalogue: Catalogue,
    private readonly assets: AssetRegistry,
    private readonly voices: VoiceRegistry,
    private readonly clock: Clock,
  ) {}

  async execute(cmd: IssueQuoteCommand): Promise<QuoteResponse> {
    const { terms } = await this.price(cmd);
    // The quote id was made just now: its stream is not read first.
    await handleCommand(this.events, streamName(QUOTE_STREAM, terms.quote_id), quoteDecider, { type: 'IssueQuote', data: terms, metadata: { now: this.clock.now() } }, { fresh: true });
    return quoteResponse(terms);
  }

  /**
   * Validates and prices without storing anything, all on the catalogue version in service
   * when it starts (a publish meanwhile does not mix two versions into one quote).
   */
  async price(cmd: IssueQuoteCommand): Promise<{ terms: QuoteTerms }> {
    if (cmd.currency !== undefined && cmd.currency !== 'CNY') throw new AppError('VALIDATION_ERROR', 'currency: only CNY is supported');
    const catalogue = this.catalogue.current();
    const model = catalogue.model(cmd.model);
    if (!model) throw new AppError('VALIDATION_ERROR', `model: unknown model ${JSON.stringify(cmd.model)}; see GET /v1/models`);
    if (!model.capabilities.includes(cmd.capability)) {
      throw new AppError('VALIDATION_ERROR', `capability: ${JSON.stringify(cmd.capability)} is not a capability of ${model.id} (${model.capabilities.join(', ')})`);
    }
    if (!this.catalogue.isAvailable(model)) throw new AppError('MODEL_UNAVAILABLE', `model ${model.id} is not available now`);
    const params = this.validateParams(catalogue, model, cmd.input, cmd.options ?? {});
    const assetIds = Array.isArray(params.asset_ids) ? (params.asset_ids as string[]) : [];
    const voiceId = typeof params.voice_id === 'string' ? params.voice_id : null;
    if (cmd.capability === VOICE_CLONE && params.consent_attested !== true) {
      throw new AppError('VALIDATION_ERROR', 'input.consent_attested: must be true for voice cloning');
    }
    if (assetIds.length) checkMediaTypes(model, await this.assets.requireUsable(cmd.principal.accountId, assetIds, 'input.asset_ids'));
    if (voiceId !== null) await this.voices.requireUsable(cmd.principal.accountId, voiceId, this.catalogue.channelsOf(model));
    const price = catalogue.price(model.id, cmd.capability, params);
    if (price.quantity <= 0) throw new AppError('PRICE_UNAVAILABLE', `no price for ${model.id} with a quantity of ${price.quantity}`);
    const now = this.clock.now();
    const estimated = price.amount;
    return {
      terms: {
        quote_id: newId('qt'),
        account_id: cmd.principal.accountId,
        connection_id: cmd.principal.connectionId,
        model: model.id,
        resolved_model: model.resolved_model,
        capability: cmd.capability,
        modality: model.modality,
        supplier: model.supplier,
        params,
        asset_ids: assetIds,
        voice_id: voiceId,
        currency: 'CNY',
        pricing_mode: 'fixed',
        price_version: catalogue.priceVersionOf(model.id),
        unit: price.unit,
        unit_price: Money.format(price.unitPrice),
        quantity: price.quantity,
        estimated_amount: Money.format(estimated),
        // Fixed pricing: the most a task can cost is its estimate.
        max_amount: Money.format(estimated),
        issued_at: now.toISOString(),
        expires_at: new Date(now.getTime() + QUOTE_TTL_MS).toISOString(),
      },
    };
  }

  /** Rules 1–5 and 7: merge input and options, validate against the model's schema, defaults applied. */
  private validateParams(catalogue: CatalogueVersion, model: CatalogueModel, input: Record<string, unknown>, options: Record<string, unknown>): Record<string, unknown> {
    if (!isPlainObject(input)) throw new AppError('VALIDATION_ERROR', 'input: must be an object');
    if (!isPlainObject(options)) throw new AppError('VALIDATION_ERROR', 'options: must be an object');
    const errors: string[] = [];
    const declared = new Set(Object.keys(((model.input_schema as { properties?: object }).properties ?? {}) as object));
    for (const key of Object.keys(options)) {
      if ((INPUT_ONLY as readonly string[]).includes(key)) errors.push(`options.${key}: must be given inside input`);
      else if (Object.prototype.hasOwnProperty.call(input, key)) errors.push(`options.${key}: also given in input; give each parameter once`);
    }
    for (const [where, obj] of [['input', input], ['options', options]] as const) {
      for (const key of Object.keys(obj)) {
        if (CALLBACK_NAME.test(key)) errors.push(`${where}.${key}: the supplier callback address is generated by the service and cannot be set`);
        else if (where === 'input' && (INPUT_ONLY as readonly string[]).includes(key) && !declared.has(key)) {
          errors.push(`input.${key}: model ${model.id} takes no ${key}`);
        }
      }
    }
    if (errors.length) throw new AppError('VALIDATION_ERROR', errors.join('; '));
    const merged = { ...input, ...options };
    const result = catalogue.validateInput(model.id, merged);
    if (!result.valid) {
      const fromOptions = new Set(Object.keys(options));
      const messages = result.errors.map((m) => {
        const field = /^input\.([^.:[\s]+)/.exec(m)?.[1];
        return field && fromOptions.has(field) ? `options.${m.slice('input.'.length)}` : m;
      });
      throw new AppError('VALIDATION_ERROR', [...new Set(messages)].join('; '));
    }
    return result.params;
  }
}

export function quoteResponse(t: QuoteTerms): QuoteResponse {
  return {
    quote_id: t.quote_id,
    model: t.model,
    resolved_model: t.resolved_model,
    currency: t.currency,
    pricing_mode: t.pricing_mode,
    price_version: t.price_version,
    estimated_amount: t.estimated_amount,
    max_amount: t.max_amount,
    quantity: t.quantity,
    unit: t.unit,
    unit_price: t.unit_price,
    expires_at: t.expires_at,
  };
}
