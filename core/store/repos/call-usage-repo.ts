/**
 * The token usage the voice provider confirmed for each response of a controlled call (migration
 * 016), one row per call and response: a response reported again counts once.
 */
import type { Knex } from "knex";
import type { DatabaseClient } from "../../settings.ts";
import { insertSkippingDuplicate } from "../insert-skipping-duplicate.ts";
import { USAGE_COLUMNS } from "../migrations/016-call-control.ts";

export type UsageColumn = (typeof USAGE_COLUMNS)[number];

export type CallUsageRow = {
  id: string;
  call_id: string;
  response_id: string;
  session_id: string;
  model: string;
  created_at: number;
} & Record<UsageColumn, number>;

export class CallUsageRepo {
  constructor(
    private readonly knex: Knex,
    private readonly client: DatabaseClient,
  ) {}

  /** Stores `row` unless its call and response are stored already; whether it was new. */
  async record(row: CallUsageRow): Promise<boolean> {
    await insertSkippingDuplicate(
      this.knex,
      "call_usage",
      row,
      ["call_id", "response_id"],
      this.client,
    );
    const stored = await this.knex("call_usage")
      .where({ call_id: row.call_id, response_id: row.response_id })
      .first("id");
    return (stored as { id: string } | undefined)?.id === row.id;
  }

  /** The usage of a session's calls, per model: the token counts summed by kind. */
  async ofSession(
    sessionId: string,
  ): Promise<Array<{ model: string } & Record<UsageColumn, number>>> {
    const rows = await this.knex("call_usage")
      .where({ session_id: sessionId })
      .groupBy("model")
      .select(
        "model",
        ...USAGE_COLUMNS.map((column) => this.knex.raw(`sum(${column}) as ${column}`)),
      );
    return rows.map((row: Record<string, unknown>) => ({
      model: String(row.model),
      ...(Object.fromEntries(
        USAGE_COLUMNS.map((column) => [column, Number(row[column])]),
      ) as Record<UsageColumn, number>),
    }));
  }
}
