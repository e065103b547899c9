import { AppError, type Command, type Decider } from '@gensvc/kernel';

/**
 * A quote (stream `quote-<quote_id>`): a priced, validated request that reserves nothing.
 * One task may lock it (QuoteAccepted); a task creation that is rolled back releases its
 * lock again (QuoteReleased), after which that task id can never lock it. It keeps the price
 * and price version it was issued with until it expires, whatever the catalogue publishes
 * meanwhile; but a quote of a model the catalogue no longer sells (removed, or not available)
 * cannot be locked any more (MODEL_UNAVAILABLE).
 */
export const QUOTE_STREAM = 'quote';
export const QUOTE_TTL_MS = 15 * 60 * 1000;

export interface QuoteTerms {
  readonly quote_id: string;
  readonly account_id: string;
  readonly connection_id: string;
  readonly model: string;
  readonly resolved_model: string;
  readonly capability: string;
  readonly modality: string;
  /** Supplier channel of the model (internal; never shown). */
  readonly supplier: string;
  /** Input merged with options, validated, defaults applied. */
  readonly params: Record<string, unknown>;
  readonly asset_ids: readonly string[];
  readonly voice_id: string | null;
  readonly currency: 'CNY';
  readonly pricing_mode: 'fixed';
  readonly price_version: string;
  readonly unit: string;
  readonly unit_price: string;
  readonly quantity: number;
  readonly estimated_amount: string;
  readonly max_amount: string;
  readonly issued_at: string;
  readonly expires_at: string;
}

export type QuoteEvent =
  | { type: 'QuoteIssued'; data: QuoteTerms }
  | { type: 'QuoteAccepted'; data: { quote_id: string; account_id: string; task_id: string; at: string } }
  | { type: 'QuoteReleased'; data: { quote_id: string; account_id: string; task_id: string; at: string } };

export const QUOTE_EVENT_TYPES: readonly QuoteEvent['type'][] = ['QuoteIssued', 'QuoteAccepted', 'QuoteReleased'];

export type QuoteCommand =
  | Command<'IssueQuote', QuoteTerms>
  | Command<
      'AcceptQuote',
      {
        readonly quote_id: string;
        readonly account_id: string;
        readonly task_id: string;
        /** The models the catalogue sells now (`Catalogue.availableModels()`). */
        readonly available_models: readonly string[];
      }
    >
  | Command<'ReleaseQuote', { readonly quote_id: string; readonly task_id: string }>;

export type QuoteState =
  | { readonly status: 'none' }
  | {
      readonly status: 'open' | 'accepted';
      readonly terms: QuoteTerms;
      readonly acceptedBy: string | null;
      /** Task ids whose lock was released: they never lock this quote again. */
      readonly released: readonly string[];
    };

const initialState = (): QuoteState => ({ status: 'none' });

function evolve(state: QuoteState, event: QuoteEvent): QuoteState {
  switch (event.type) {
    case 'QuoteIssued':
      return { status: 'open', terms: event.data, acceptedBy: null, released: [] };
    case 'QuoteAccepted':
      if (state.status === 'none') return state;
      return { ...state, status: 'accepted', acceptedBy: event.data.task_id };
    case 'QuoteReleased': {
      if (state.status === 'none') return state;
      const released = [...state.released, event.data.task_id];
      return state.acceptedBy === event.data.task_id ? { ...state, status: 'open', acceptedBy: null, released } : { ...state, released };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decide(command: QuoteCommand, state: QuoteState): QuoteEvent[] {
  switch (command.type) {
    case 'IssueQuote':
      if (state.status !== 'none') throw new AppError('CONFLICT', `quote ${command.data.quote_id} exists`);
      return [{ type: 'QuoteIssued', data: command.data }];
    case 'AcceptQuote': {
      if (state.status === 'none' || state.terms.account_id !== command.data.account_id) {
        throw new AppError('NOT_FOUND', `quote ${command.data.quote_id} not found`);
      }
      if (state.acceptedBy === command.data.task_id) return [];
      if (state.released.includes(command.data.task_id)) {
        throw new AppError('CONFLICT', `the creation of task ${command.data.task_id} was rolled back`);
      }
      if (state.acceptedBy !== null) throw new AppError('QUOTE_ALREADY_USED', `quote ${command.data.quote_id} is already used by another task`);
      if (command.metadata.now.getTime() >= Date.parse(state.terms.expires_at)) {
        throw new AppError('QUOTE_EXPIRED', `quote ${command.data.quote_id} expired at ${state.terms.expires_at}; request a new quote`);
      }
      if (!command.data.available_models.includes(state.terms.model)) {
        throw new AppError('MODEL_UNAVAILABLE', `model ${state.terms.model} of quote ${command.data.quote_id} is not available any more; see GET /v1/models`);
      }
      return [{ type: 'QuoteAccepted', data: { quote_id: command.data.quote_id, account_id: command.data.account_id, task_id: command.data.task_id, at: command.metadata.now.toISOString() } }];
    }
    case 'ReleaseQuote': {
      if (state.status === 'none') return [];
      if (state.released.includes(command.data.task_id)) return [];
      return [
        {
          type: 'QuoteReleased',
          data: { quote_id: command.data.quote_id, account_id: state.terms.account_id, task_id: command.data.task_id, at: command.metadata.now.toISOString() },
        },
      ];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const quoteDecider: Decider<QuoteState, QuoteCommand, QuoteEvent> = { initialState, evolve, decide };

/** Why a quote cannot be locked by a new task now, or null when it can. */
export function quoteUnusableReason(state: QuoteState, quoteId: string, accountId: string, now: Date, availableModels: readonly string[]): AppError | null {
  try {
    decide({ type: 'AcceptQuote', data: { quote_id: quoteId, account_id: accountId, task_id: '\u0000probe', available_models: availableModels }, metadata: { now } }, state);
    return null;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}
