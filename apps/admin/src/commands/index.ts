import type { AdminCommand } from '../command';

/** Every admin command. Each context's commands live in their own file here. */
export const COMMANDS: AdminCommand[] = [];
