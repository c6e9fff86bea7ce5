import type { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Clock } from '../clock.js';
import { AppError, errorResponse, toErrorResponse } from '../errors.js';
import { CLI_ORIGIN } from '../domain/audit/audit.js';
import { productView } from '../domain/ads/advertiser-products.js';
import { adFundsEntryView } from '../domain/ads/funds.js';
import { millicentsToCents } from '../domain/ads/money.js';
import type { PaymentGateway } from '../domain/billing/gateway.js';
import { ledgerEntryView } from '../domain/credits/ledger.js';
import { adjustAdFunds, adjustCredits, suspendAccount, unsuspendAccount } from '../domain/operators/accounts.js';
import { reviewProduct } from '../domain/operators/products.js';
import { listAllPayouts, type OperatorPayoutView, settlePayout } from '../domain/payouts/settle.js';
import { accountDetail } from '../domain/operators/detail.js';
import { fleetReport } from '../domain/operators/fleet.js';
import { operatorInputs } from '../domain/operators/inputs.js';
import { refundPurchase } from '../domain/operators/purchases.js';
import { type AccountSummary, searchAccounts } from '../domain/operators/search.js';
import type { ImageStorage } from '../storage/storage.js';
import { type ParsedArgs, parseArgs, UsageError } from './args.js';
import { dollars, fields, table } from './table.js';

/** What the commands work with: the same database, gateway and storage the server uses. */
export interface CliDeps {
  db: Db;
  payments: PaymentGateway;
  storage: ImageStorage;
  clock: Clock;
  /** EARNINGS_HOLD: what the account's earnings show as held. */
  earningsHoldMs: number;
}

/** A command's answer: the data `--json` prints, and the text a person reads otherwise. */
interface Answer {
  data: unknown;
  text: string;
}

interface Command {
  usage: string;
  summary: string;
  run(deps: CliDeps, args: ParsedArgs): Promise<Answer>;
}

/** Words of the command line by the names its usage gives them (`<account>` …), in order. */
function words(args: ParsedArgs, names: readonly string[]): string[] {
  const given = args.words;
  if (given.length < names.length) throw new UsageError(`Missing ${names.slice(given.length).join(' ')}.`);
  if (given.length > names.length) throw new UsageError(`Unexpected ${given.slice(names.length).join(' ')}.`);
  return given;
}

/** How the CLI names each input field in its messages. */
const LABELS: Record<string, string> = {
  reason: '--reason',
  reference: '--reference',
  days: '--days',
  status: '--status',
  delta: '<delta>',
  delta_cents: '<delta-cents>',
  q: '<query>',
  id: '<id>',
  transaction_id: '<transaction>',
};

/** The API's own schema decides, so the shell refuses exactly what the API refuses; the problem becomes a sentence. */
function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    return `${LABELS[field] ?? field}: ${issue.message.replace(/\.$/, '')}`;
  });
  throw new UsageError(`${problems.join('; ')}.`);
}

/** `+25` and `-5` are numbers; anything else is left as typed for the schema to refuse. */
const signedInteger = (word: string): number | string => (/^[+-]?\d+$/.test(word) ? Number(word) : word);

/** Who changes, why and when: what every change carries into its audit entry (actor `cli`). */
const change = (deps: CliDeps, reason: string) => ({ origin: CLI_ORIGIN, reason, now: deps.clock.now() });

const accountRows = (accounts: AccountSummary[]) =>
  table(
    ['ACCOUNT', 'OWNER', 'CREDITS', 'STATUS', 'CREATED'],
    accounts.map((a) => [a.id, a.owner_email, a.credits, a.status, a.created_at]),
    'No account matches.',
  );

const payoutRows = (payouts: OperatorPayoutView[]) =>
  table(
    ['PAYOUT', 'ACCOUNT', 'E-MAIL', 'AMOUNT', 'STATUS', 'REFERENCE', 'REQUESTED', 'PAID'],
    payouts.map((p) => [
      p.id,
      p.account_id,
      p.email,
      dollars(p.amount_cents),
      p.status,
      p.reference,
      p.created_at,
      p.paid_at,
    ]),
    'No payouts.',
  );

function productCommand(decision: 'reject' | 'restore'): Command {
  return {
    usage: `product ${decision} <id> --reason <text>`,
    summary:
      decision === 'reject' ? 'Reject an advertiser’s product: it is never placed again' : 'Restore a rejected product',
    async run(deps, args) {
      const [id] = words(args, ['<id>']);
      const input = validate(operatorInputs.productReview, { id, reason: args.options.reason ?? '' });
      const product = await reviewProduct(deps.db, { ...change(deps, input.reason), productId: input.id, decision });
      const view = productView(deps.storage, product);
      return { data: view, text: `Product ${view.id} (${view.name}) is ${view.status}.` };
    },
  };
}

function payoutCommand(outcome: 'paid' | 'rejected'): Command {
  const verb = outcome === 'paid' ? 'paid' : 'reject';
  return {
    usage: `payout ${verb} <id> ${outcome === 'paid' ? '--reference <transfer> ' : ''}--reason <text>`,
    summary:
      outcome === 'paid'
        ? 'Mark a requested payout paid and e-mail the agent'
        : 'Reject a requested payout: the amount is available again; the agent is e-mailed',
    async run(deps, args) {
      const [id] = words(args, ['<id>']);
      const input = validate(operatorInputs.payoutSettlement, {
        id,
        reference: args.options.reference,
        reason: args.options.reason ?? '',
      });
      const payout = await settlePayout(deps.db, {
        ...change(deps, input.reason),
        payoutId: input.id,
        outcome,
        reference: input.reference,
      });
      const reference = payout.reference ? ` (reference ${payout.reference})` : '';
      return {
        data: payout,
        text: `Payout ${payout.id} of ${dollars(payout.amount_cents)} to ${payout.email} is ${payout.status}${reference}; the agent is e-mailed.`,
      };
    },
  };
}

function suspensionCommand(action: 'suspend' | 'unsuspend'): Command {
  return {
    usage: `${action} <account> --reason <text>`,
    summary:
      action === 'suspend'
        ? 'Suspend an account: its keys and sessions are refused at once; queued jobs fail and are refunded'
        : 'Restore a suspended account',
    async run(deps, args) {
      const [id] = words(args, ['<account>']);
      const input = validate(operatorInputs.suspension, { id, reason: args.options.reason ?? '' });
      const input2 = { ...change(deps, input.reason), accountId: input.id };
      if (action === 'unsuspend') {
        const result = await unsuspendAccount(deps.db, input2);
        return { data: result, text: `Account ${input.id} is active again.` };
      }
      const { status, jobsFailed } = await suspendAccount(deps.db, input2);
      return {
        data: { status, jobs_failed: jobsFailed },
        text: `Account ${input.id} is suspended; ${jobsFailed} queued job${jobsFailed === 1 ? '' : 's'} failed and ${jobsFailed === 1 ? 'was' : 'were'} refunded.`,
      };
    },
  };
}

const credits: Command = {
  usage: 'credits <account> <+n|-n> --reason <text>',
  summary: 'Grant or deduct credits (ledger reason `adjustment`; never below zero)',
  async run(deps, args) {
    const [id, delta] = words(args, ['<account>', '<delta>']);
    const input = validate(operatorInputs.adjustCredits, {
      id,
      delta: signedInteger(delta ?? ''),
      reason: args.options.reason ?? '',
    });
    const result = await adjustCredits(deps.db, {
      ...change(deps, input.reason),
      accountId: input.id,
      delta: input.delta,
    });
    const data = { credits: result.credits, transaction: ledgerEntryView(result.transaction) };
    return {
      data,
      text: `Account ${input.id} now has ${data.credits} credits (${input.delta > 0 ? '+' : ''}${input.delta}, ${data.transaction.id}).`,
    };
  },
};

const COMMANDS: Record<string, Command> = {
  search: {
    usage: 'search <query>',
    summary: 'Find accounts by e-mail (or part of one), acc_…, key or key prefix, claim code, img_… or job_…',
    async run(deps, args) {
      const [q] = words(args, ['<query>']);
      const input = validate(operatorInputs.search, { q });
      const accounts = await searchAccounts(deps.db, input.q);
      return { data: { accounts }, text: accountRows(accounts) };
    },
  },
  account: {
    usage: 'account <account>',
    summary: 'One account: balance, keys, recent jobs, webhooks, ad funds, earnings',
    async run(deps, args) {
      const [id] = words(args, ['<account>']);
      const input = validate(operatorInputs.account, { id });
      const detail = await accountDetail(deps.db, input.id, deps.clock.now(), { earningsHoldMs: deps.earningsHoldMs });
      const text = [
        fields([
          ['Account', detail.id],
          ['Owner', detail.owner_email],
          ['Status', detail.status],
          ['Credits', detail.credits],
          ['Ad funds', dollars(detail.ad_funds_cents)],
          [
            'Earnings',
            `${dollars(detail.earnings.available_cents)} available, ${dollars(detail.earnings.requested_cents)} requested, ${dollars(detail.earnings.paid_cents)} paid`,
          ],
          ['Failed jobs', detail.failed_jobs],
          ['Created', detail.created_at],
        ]),
        '',
        'Keys',
        table(
          ['ID', 'NAME', 'PREFIX', 'MODE', 'LAST USED', 'REVOKED'],
          detail.keys.map((k) => [k.id, k.name, k.prefix, k.mode, k.last_used_at, k.revoked_at]),
        ),
        '',
        'Webhooks',
        table(
          ['KEY', 'DELIVERIES', 'FAILURE RATE'],
          detail.webhooks.map((w) => [w.key_id, w.deliveries, `${(w.failure_rate * 100).toFixed(1)}%`]),
        ),
        '',
        'Recent jobs',
        table(
          ['JOB', 'OPERATION', 'STATUS', 'ERROR', 'CREATED'],
          detail.recent_jobs.map((j) => [j.id, j.operation, j.status, j.error_code, j.created_at]),
        ),
      ].join('\n');
      return { data: detail, text };
    },
  },
  credits,
  'ad-funds': {
    usage: 'ad-funds <account> <+cents|-cents> --reason <text>',
    summary: 'Add or take ad funds, in cents (an `adjustment`; never below zero)',
    async run(deps, args) {
      const [id, delta] = words(args, ['<account>', '<delta-cents>']);
      const input = validate(operatorInputs.adjustAdFunds, {
        id,
        delta_cents: signedInteger(delta ?? ''),
        reason: args.options.reason ?? '',
      });
      const result = await adjustAdFunds(deps.db, {
        ...change(deps, input.reason),
        accountId: input.id,
        deltaCents: input.delta_cents,
      });
      const data = {
        balance_cents: millicentsToCents(result.balanceMillicents),
        transaction: adFundsEntryView(result.transaction),
      };
      return { data, text: `Account ${input.id} now has ${dollars(data.balance_cents)} of ad funds.` };
    },
  },
  refund: {
    usage: 'refund <transaction> --reason <text>',
    summary: 'Refund a credit purchase (its txn_… ledger id) through the payment gateway and take its credits back',
    async run(deps, args) {
      const [transactionId] = words(args, ['<transaction>']);
      const input = validate(operatorInputs.refundPurchase, {
        transaction_id: transactionId,
        reason: args.options.reason ?? '',
      });
      const outcome = await refundPurchase(deps.db, deps.payments, {
        ...change(deps, input.reason),
        transactionId: input.transaction_id,
      });
      const short = outcome.credits_short > 0 ? `; ${outcome.credits_short} had been spent already` : '';
      return {
        data: outcome,
        text: `Refunded ${dollars(outcome.refunded_cents)}; took back ${outcome.credits_deducted} credits${short}.`,
      };
    },
  },
  suspend: suspensionCommand('suspend'),
  unsuspend: suspensionCommand('unsuspend'),
  'product reject': productCommand('reject'),
  'product restore': productCommand('restore'),
  payouts: {
    usage: 'payouts [--status requested|paid|rejected]',
    summary: 'Every account’s payouts, oldest first (`--status requested` is the queue to pay)',
    async run(deps, args) {
      words(args, []);
      const input = validate(operatorInputs.payouts, { status: args.options.status });
      const payouts = await listAllPayouts(deps.db, input.status);
      return { data: { payouts }, text: payoutRows(payouts) };
    },
  },
  'payout paid': payoutCommand('paid'),
  'payout reject': payoutCommand('rejected'),
  fleet: {
    usage: 'fleet [--days 7]',
    summary: 'The service’s days in numbers (1–90 days, today included)',
    async run(deps, args) {
      words(args, []);
      const input = validate(operatorInputs.fleet, { days: args.options.days });
      const report = await fleetReport(deps.db, { days: input.days, now: deps.clock.now() });
      const text = [
        table(
          ['DATE', 'IMAGES', 'BY ENGINE', 'FAILED', 'P50 MS', 'P95 MS', 'CREDITS SOLD', 'AD SPEND', 'EARNINGS OWED'],
          report.daily.map((day) => [
            day.date,
            Object.values(day.images_by_engine).reduce((sum, n) => sum + n, 0),
            Object.entries(day.images_by_engine)
              .map(([engine, n]) => `${engine} ${n}`)
              .join(', ') || '—',
            day.failures,
            day.engine_p50_ms ?? '—',
            day.engine_p95_ms ?? '—',
            day.credits_sold,
            dollars(day.ad_spend_cents),
            dollars(day.earnings_owed_cents),
          ]),
        ),
        '',
        fields([
          ['Webhook backlog', report.webhook_backlog],
          ['Holds outstanding', report.holds_outstanding],
        ]),
      ].join('\n');
      return { data: report, text };
    },
  },
};

/** Other names some commands answer to (`grant` for `credits`, …): docs/operators/console.md lists them. */
const ALIASES: Record<string, string> = {
  grant: 'credits',
  'payout-paid': 'payout paid',
  'payout-reject': 'payout reject',
};

export const VALUED_OPTIONS: ReadonlySet<string> = new Set(['reason', 'reference', 'days', 'status']);

export function helpText(): string {
  const rows = Object.values(COMMANDS).map((command) => [command.usage, command.summary] as const);
  const width = Math.max(...rows.map(([usage]) => usage.length));
  return [
    'Usage: npm run admin -- <command> [--json]',
    '',
    'The operator console from a shell: the same operations, rules and audit entries (actor `cli`).',
    'Every change needs --reason. --json prints what the API would answer; otherwise tables.',
    '',
    'Commands:',
    ...rows.map(([usage, summary]) => `  ${usage.padEnd(width)}  ${summary}`),
    `  ${'help'.padEnd(width)}  This list`,
    '',
    'Exit codes: 0 done, 1 refused or failed (not found, conflict, the gateway), 2 a command line that cannot run.',
  ].join('\n');
}

type ErrorBody = ReturnType<typeof errorResponse>['body'];

export interface CliOutcome {
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
}

/** Runs one command line; never throws (a fault of ours is reported with exit code 1). */
export async function runAdminCommand(argv: readonly string[], deps: () => Promise<CliDeps>): Promise<CliOutcome> {
  let json = argv.includes('--json');
  const fail = (exitCode: 1 | 2, body: ErrorBody): CliOutcome => ({
    exitCode,
    stdout: '',
    stderr: json
      ? `${JSON.stringify(body)}\n`
      : `${body.message}${exitCode === 2 ? ' See `npm run admin -- help`.' : ''}\n`,
  });
  try {
    const args = parseArgs(argv, VALUED_OPTIONS);
    json = args.json;
    const [first = 'help', second] = args.words;
    const pair = `${first} ${second ?? ''}`.trim();
    const twoWords = COMMANDS[pair] !== undefined;
    const name = twoWords ? pair : (ALIASES[first] ?? first);
    if (name === 'help' || args.help) return { exitCode: 0, stdout: `${helpText()}\n`, stderr: '' };
    const command = COMMANDS[name];
    if (!command) {
      const hint =
        first === 'product' || first === 'payout'
          ? `${first} needs one of: ${Object.keys(COMMANDS)
              .filter((c) => c.startsWith(`${first} `))
              .map((c) => c.split(' ')[1])
              .join(', ')}.`
          : '';
      throw new UsageError(`Unknown command "${pair}". ${hint}`.trim());
    }
    const rest = { ...args, words: args.words.slice(twoWords ? 2 : 1) };
    const answer = await command.run(await deps(), rest);
    return {
      exitCode: 0,
      stdout: `${json ? JSON.stringify(answer.data, null, 2) : answer.text}\n`,
      stderr: '',
    };
  } catch (error) {
    if (error instanceof UsageError) return fail(2, errorResponse('invalid_request', error.message).body);
    if (error instanceof AppError) return fail(1, toErrorResponse(error).body);
    // A shell user is the operator: unlike an API caller, they see what failed (the gateway, the database).
    return fail(1, {
      ...errorResponse('internal_error', 'Failed.').body,
      message: `Failed: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
}
