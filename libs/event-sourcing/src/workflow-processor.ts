import type { Workflow } from '@gensvc/kernel';
import { AppendChain, ChainDiverged } from './append-chain';
import type { EventStore } from './event-store.port';

/** What one command of a workflow did: its outcome as the workflow's next inputs. */
export interface WorkflowOutcome<Input> {
  readonly inputs: readonly Input[];
  /** Highest position the command appended, if it appended anything. */
  readonly position?: bigint;
}

/**
 * One workflow as its processor runs it: the pure workflow, how to read what is stored of one
 * instance as its inputs, and how to execute its commands. `Key` names an instance (a task
 * id, a creation intent).
 */
export interface WorkflowDefinition<Key, Input, State, Command> {
  readonly name: string;
  readonly workflow: Workflow<Input, State, Command>;
  /** The instance's id (for the inline runs the subscription waits for). */
  idOf(key: Key): string;
  /**
   * What is stored of the instance, as its inputs in order: history the workflow already acted
   * upon, except for the last input, which it decides on (again: its commands are idempotent).
   */
  history(key: Key): Promise<readonly Input[]>;
  /** Executes one command; idempotent, so that a run resumed after a crash converges. */
  execute(command: Command): Promise<WorkflowOutcome<Input>>;
  /** Whether a run that ended in `state` finished the instance (else the subscription resumes it). */
  finished(state: State): boolean;
  /**
   * Whether an inline start may chain its appends into one group commit (`AppendChain`): only
   * for workflows whose commands touch nothing but the event store.
   */
  readonly chained?: boolean;
}

export interface WorkflowRun<State> {
  readonly state: State;
  /** Highest position the run appended, if it appended anything. */
  readonly position?: bigint;
}

/** Finished inline runs remembered for the subscription (older ones: it reads what is stored). */
const REMEMBERED = 20_000;

const maxPos = (a: bigint | undefined, b: bigint | undefined): bigint | undefined => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

/**
 * Runs every workflow of the service, one way: fold the stored inputs, decide on the last one,
 * execute the commands the workflow sends and feed their outcomes back as inputs until it
 * sends nothing more. The same loop runs inline, when a request starts an instance and wants
 * its answer (`start`), and from the checkpointed subscription (`resume`), which hears every
 * stored trigger: it waits for an inline run of the same instance, does nothing more when that
 * run finished, and otherwise (the request failed part-way, or the process died and this is
 * the delivery after a restart) resumes from what is stored. Inputs the workflow has already
 * seen are history: they are folded, not decided on again.
 */
export class WorkflowProcessor<Key, Input, State, Command> {
  private readonly inline = new Map<string, Promise<boolean>>();

  constructor(
    private readonly definition: WorkflowDefinition<Key, Input, State, Command>,
    private readonly events: EventStore,
  ) {}

  get name(): string {
    return this.definition.name;
  }

  /**
   * Inline: `trigger` records what starts the instance (a command on its stream) and returns
   * the stored inputs to run from; the run is marked as in progress, so the subscription waits
   * for it. A chained workflow runs in one `AppendChain`; if a chained append did not go in,
   * the run starts again from what is stored.
   */
  async start(key: Key, trigger: () => Promise<readonly Input[]>): Promise<WorkflowRun<State>> {
    const id = this.definition.idOf(key);
    let done!: (finished: boolean) => void;
    this.remember(id, new Promise<boolean>((resolve) => (done = resolve)));
    try {
      const run = await this.startRun(key, trigger);
      done(this.definition.finished(run.state));
      return run;
    } catch (err) {
      done(false);
      throw err;
    }
  }

  /** From the subscription: resumes the instance from what is stored, unless an inline run finished it. */
  async resume(key: Key): Promise<WorkflowRun<State> | null> {
    const inline = this.inline.get(this.definition.idOf(key));
    if (inline && (await inline)) return null;
    return this.run(key);
  }

  /** Runs the instance from what is stored (a retry of a request, say); converges with any other run of it. */
  async run(key: Key): Promise<WorkflowRun<State>> {
    return this.process(await this.definition.history(key));
  }

  private async startRun(key: Key, trigger: () => Promise<readonly Input[]>): Promise<WorkflowRun<State>> {
    if (!this.definition.chained) return this.process(await trigger());
    try {
      const { value, position } = await AppendChain.run(this.events, async () => this.process(await trigger()));
      return { state: value.state, position: maxPos(value.position, position) };
    } catch (err) {
      if (!(err instanceof ChainDiverged)) throw err;
      return this.run(key);
    }
  }

  /** The loop: folds the history, decides on its last input, then on the outcomes of its own commands. */
  private async process(stored: readonly Input[]): Promise<WorkflowRun<State>> {
    const w = this.definition.workflow;
    let state = stored.slice(0, -1).reduce(w.evolve, w.initialState());
    let position: bigint | undefined;
    const queue = stored.slice(-1);
    for (let input = queue.shift(); input !== undefined; input = queue.shift()) {
      state = w.evolve(state, input);
      for (const command of w.decide(input, state)) {
        const outcome = await this.definition.execute(command);
        position = maxPos(position, outcome.position);
        queue.push(...outcome.inputs);
      }
    }
    return { state, position };
  }

  private remember(id: string, finished: Promise<boolean>): void {
    this.inline.set(id, finished);
    void finished.then((ok) => {
      if (!ok && this.inline.get(id) === finished) this.inline.delete(id);
    });
    if (this.inline.size > REMEMBERED) this.inline.delete(this.inline.keys().next().value as string);
  }
}
