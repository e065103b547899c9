import type { AdminCommand } from '../command';
import { IDENTITY_COMMANDS } from './identity.commands';
import { replayCommand } from './replay.command';

/** Every admin command. Each context's commands live in their own file here. */
export const COMMANDS: AdminCommand[] = [...IDENTITY_COMMANDS, replayCommand];
