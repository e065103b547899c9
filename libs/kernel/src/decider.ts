import type { DomainEvent } from './event';

/**
 * The one shape of a command: its type, its data (snake_case, like events) and the metadata of
 * the request that sends it (the time, so that deciders stay pure).
 */
export interface Command<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
  readonly metadata: { readonly now: Date };
}

/**
 * An aggregate as a decider: pure functions, no I/O. Time and ids arrive inside commands.
 * `decide` throws an `AppError` to refuse a command.
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): readonly Event[];
}

export const fold = <S, E extends DomainEvent>(decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>, events: readonly E[]): S =>
  events.reduce(decider.evolve, decider.initialState());
