/**
 * A workflow (process manager, saga) as pure functions, in the shape of emmett's workflows:
 * `decide(input, state) → commands` and `evolve(state, input) → state` over the input events it
 * hears (its own outcomes included), from `initialState()`. No I/O: a runner in the
 * application layer feeds it stored events (from the checkpointed subscription, or inline in
 * a request for latency), executes the commands it returns and feeds their outcomes back as
 * inputs. Because the state is a fold of inputs, a runner that crashed part-way resumes by
 * folding the inputs it finds stored and deciding again.
 */
export interface Workflow<Input, State, Output> {
  initialState(): State;
  /** Folds one input into the state. */
  evolve(state: State, input: Input): State;
  /** The commands to send after `input` was folded into `state`. */
  decide(input: Input, state: State): readonly Output[];
}

/** Folds `inputs` and returns the state and the commands the last input asks for. */
export function runWorkflow<I, S, O>(workflow: Workflow<I, S, O>, state: S, input: I): { state: S; commands: readonly O[] } {
  const next = workflow.evolve(state, input);
  return { state: next, commands: workflow.decide(input, next) };
}
