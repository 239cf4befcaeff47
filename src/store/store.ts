import type { ApprovalRequest, ApprovalResponse } from "../runtime/approver.js";

/*
 * What every tackle process of one workspace (or, on PostgreSQL, every instance of one namespace)
 * shares: the calls waiting for a person, their answers, the "always" rules people granted, the
 * events dashboards show and the audit trail. Two implementations keep the same contract
 * (test/store/contract.ts): files on one machine, PostgreSQL across machines.
 */

/** A call waiting at the desk for a person. */
export interface DeskEntry {
  /** The desk's own id for this wait (a toolCallId may repeat across processes). */
  id: string;
  request: ApprovalRequest;
  /** The instance whose call waits: only it runs the call once approved. */
  instance: string;
  askedAt: number;
  expiresAt: number;
}

/** A waiting entry as listed: orphaned when the instance that asked is gone. */
export interface DeskItem extends DeskEntry {
  orphaned: boolean;
}

/** An answer as kept: what was decided, by whom, when. */
export interface DeskAnswer {
  response: ApprovalResponse;
  /** Who answered: a person's name as the front end gave it, or "tackle" for a timeout or cancellation. */
  by: string;
  at: number;
}

/** The outcome of claiming an entry: exactly one claim wins. */
export type ClaimResult = { won: true } | { won: false; reason: "answered"; answer: DeskAnswer } | { won: false; reason: "unknown" };

/** An "always" rule kept in the store, with where it came from. */
export interface SharedRule {
  id: string;
  /** The rule as written (`write_file(notes.txt)`). */
  rule: string;
  /** "person": written by a person; "approval": saved from an answer with "always". */
  origin: "person" | "approval";
  by: string;
  at: number;
  /** The call whose answer saved it. */
  toolCallId?: string;
  tool?: string;
}

/** An event as stored: ids grow, so a client that missed some asks for those after the last it saw. */
export interface StoredEvent {
  id: string;
  type: string;
  data: unknown;
  instance: string;
  at: number;
}

/** One row of the audit trail: written before a call runs ("start") and before its answer is returned ("end"). */
export interface AuditEntry {
  phase: "start" | "end";
  toolCallId: string;
  tool: string;
  record: Record<string, unknown>;
}

/** An instance as the store knows it: alive while it keeps its heartbeat. */
export interface InstanceInfo {
  id: string;
  host: string;
  pid: number;
  /** It serves a desk (a dashboard, the Emacs package): calls may wait for its people. */
  desk: boolean;
  seenAt: number;
}

/** The shared store's contract. Every method is safe under concurrent callers in other processes. */
export interface Store {
  readonly kind: "file" | "postgres";
  /** Where it is, for people (`file:/path`, `postgres://host/db`, without the password). */
  readonly location: string;
  /** This process's id in the store. */
  readonly instance: string;

  /** Puts a call at the desk. */
  post(entry: DeskEntry): Promise<void>;
  /** Answers an entry; exactly one of any number of concurrent claims wins. */
  claim(id: string, answer: DeskAnswer): Promise<ClaimResult>;
  /** The answer an entry got, if any. */
  answerOf(id: string): Promise<DeskAnswer | undefined>;
  /** Unanswered entries, oldest first, each marked orphaned when its instance is gone. */
  waiting(): Promise<DeskItem[]>;
  /** Removes an answered entry of this instance (its waiter has read the answer). */
  settle(id: string): Promise<void>;

  /** Keeps this instance's heartbeat, saying whether it serves a desk. */
  register(desk: boolean): Promise<void>;
  /** Instances alive now. */
  instances(): Promise<InstanceInfo[]>;

  addRule(rule: Omit<SharedRule, "id" | "at">): Promise<SharedRule>;
  removeRule(id: string, by: string): Promise<boolean>;
  /** Rules in force, oldest first. */
  rules(): Promise<SharedRule[]>;

  /** Appends events in order. */
  publish(events: ReadonlyArray<{ type: string; data: unknown }>): Promise<void>;
  /** Events after `after` (all kept when undefined), oldest first, at most `limit`. */
  eventsAfter(after: string | undefined, limit: number): Promise<StoredEvent[]>;
  /** The id of the newest event, to start a stream from now. */
  lastEventId(): Promise<string | undefined>;
  /** Whether `a` comes after `b` (ids are opaque but ordered). */
  isAfter(a: string, b: string): boolean;

  /**
   * Appends rows to the audit trail, in order and all or none (one write); an append-only store
   * refuses changes to what is written.
   */
  audit(...entries: AuditEntry[]): Promise<void>;

  /**
   * Calls `listener` when the desk, rules or events may have changed (a notification, a file
   * watch); it may be spurious or, rarely, lost, so users also poll. Returns an unsubscribe.
   */
  onChange(listener: (what: "desk" | "rules" | "events") => void): () => void;

  close(): Promise<void>;
}
