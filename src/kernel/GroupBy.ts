/**
 * How analytics group requests. `none`: one group (null) of every matching request, the totals;
 * `hour`/`day`: UTC buckets, for charts; `org`: per organization, for the gateway-wide view.
 */
export const GROUP_BY = [
  "none",
  "org",
  "tag",
  "model",
  "provider",
  "key",
  "session",
  "hour",
  "day",
  "status",
  "compression"
] as const
export type GroupBy = (typeof GROUP_BY)[number]

export const isGroupBy = (value: string): value is GroupBy => (GROUP_BY as ReadonlyArray<string>).includes(value)
