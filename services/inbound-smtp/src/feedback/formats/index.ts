import { arfJmrp } from './arf-jmrp';
import { arfStandard } from './arf-standard';
import { arfText } from './arf-text';
import { courier } from './courier';
import { domino } from './domino';
import { dragonfly } from './dragonfly';
import { exchange } from './exchange';
import { exim } from './exim';
import type { ReportFormat } from './format';
import { generic } from './generic';
import { gmail } from './gmail';
import { hotmail } from './hotmail';
import { imail } from './imail';
import { mdaemon } from './mdaemon';
import { notes } from './notes';
import { opensmtpd } from './opensmtpd';
import { postfix } from './postfix';
import { qmail } from './qmail';
import { rfc3464 } from './rfc3464';
import { sendmail } from './sendmail';
import { verizon } from './verizon';
import { x1 } from './x1';
import { yahoo } from './yahoo';
import { zoho } from './zoho';

export type { ReportFormat } from './format';

/**
 * The plain-text bounce families, each recognised by its own fixed sentences. Also read beside a
 * delivery-status part that gives a recipient no diagnostic (notification-text.ts).
 */
export const TEXT_FORMATS: readonly ReportFormat[] = [qmail, exim, postfix, sendmail, exchange, hotmail, gmail, yahoo, domino, courier, opensmtpd, dragonfly, mdaemon, imail, notes, verizon, zoho, x1];

/**
 * Every family, in the order readReport tries them; the first that reads the message wins.
 * Structured reports first (a feedback-report or delivery-status part is unambiguous), then
 * the text families, then a text complaint, then the generic bounce reader. To support a new
 * family, add a module and list it here (a text family in TEXT_FORMATS).
 */
export const FORMATS: readonly ReportFormat[] = [arfStandard, rfc3464, arfJmrp, ...TEXT_FORMATS, arfText, generic];
