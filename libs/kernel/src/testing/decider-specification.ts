import type { Decider } from '../decider';
import type { DomainEvent } from '../event';
import { AppError, type ErrorCode } from '../errors';

/**
 * Given / when / then for deciders:
 * `DeciderSpecification.for(decider).given([...]).when(command).then([...])`
 * or `.thenThrows('QUOTE_EXPIRED')`.
 */
export const DeciderSpecification = {
  for<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
    return {
      given(events: readonly E[]) {
        return {
          when(command: C) {
            const run = () => decider.decide(command, events.reduce(decider.evolve, decider.initialState()));
            return {
              then(expected: readonly E[]): void {
                expect(run()).toEqual(expected);
              },
              thenReturns(check: (events: readonly E[]) => void): void {
                check(run());
              },
              thenThrows(code: ErrorCode): void {
                let thrown: unknown;
                try {
                  run();
                } catch (err) {
                  thrown = err;
                }
                expect(thrown).toBeInstanceOf(AppError);
                expect((thrown as AppError).code).toBe(code);
              },
            };
          },
        };
      },
    };
  },
};
