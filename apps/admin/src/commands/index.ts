import type { AdminCommand } from '../command';
import { CATALOGUE_COMMANDS } from './catalogue.commands';
import { channelsCommand } from './channels.command';
import { IDENTITY_COMMANDS } from './identity.commands';
import { replayCommand } from './replay.command';
import { REPORT_COMMANDS } from './report.commands';
import { WALLET_COMMANDS } from './wallet.commands';

/** Every admin command. Each context's commands live in their own file here. */
export const COMMANDS: AdminCommand[] = [...IDENTITY_COMMANDS, ...WALLET_COMMANDS, ...CATALOGUE_COMMANDS, ...REPORT_COMMANDS, replayCommand, channelsCommand];
