import type { Workflow } from '../workflow';

/**
 * Given / when / then for workflows:
 * `WorkflowSpecification.for(workflow).given([...inputs]).when(input).then([...commands])`.
 * `given` are the inputs already folded (what a runner finds stored after a crash, or what it
 * saw so far); `when` is the next input; `then` the commands the workflow sends.
 */
export const WorkflowSpecification = {
  for<I, S, O>(workflow: Workflow<I, S, O>) {
    return {
      given(inputs: readonly I[]) {
        return {
          when(input: I) {
            const run = () => {
              const state = workflow.evolve(inputs.reduce(workflow.evolve, workflow.initialState()), input);
              return workflow.decide(input, state);
            };
            return {
              then(expected: readonly O[]): void {
                expect(run()).toEqual(expected);
              },
            };
          },
        };
      },
    };
  },
};
